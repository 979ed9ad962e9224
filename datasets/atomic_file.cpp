#include "datasets/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace pollscale::datasets {
namespace {

thread_local write_fault_hook fault_hook;

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& p) {
  throw std::system_error(errno, std::generic_category(), what + " " + p.string());
}

// A step after the temporary file was made failed: remove it, then fail with that step's errno.
[[noreturn]] void discard(const std::string& temporary, const std::string& what, const std::filesystem::path& p) {
  const int e = errno;
  ::unlink(temporary.c_str());
  errno = e;
  fail(what, p);
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t w =
        injected_write_fault("write", path) ? -1 : ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail("cannot write", path);
    done += static_cast<std::size_t>(w);
  }
}

// Not a regular file (a character device, a FIFO, a socket): write through it in order.
void write_through(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open for writing", path);
  try {
    write_all(fd, content, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail("cannot write", path);
}

void replace_regular(const std::filesystem::path& path, std::string_view content);

// Follows `path` to what it names: a directory is refused, a device or FIFO written
// through, a regular (or absent) file replaced, a symlink followed (up to 40 deep, as the
// kernel does) so that the link itself survives.
void write_following(const std::filesystem::path& path, std::string_view content, int depth) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto followed = fs::status(path, ec);  // through symlinks, /proc's magic links too
  if (fs::is_directory(followed)) {
    errno = EISDIR;
    fail("cannot replace", path);
  }
  if (fs::exists(followed) && !fs::is_regular_file(followed)) return write_through(path, content);
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return replace_regular(path, content);
  // A symlink (possibly dangling): write what it points to, keep the link.
  if (depth >= 40) {
    errno = ELOOP;
    fail("cannot resolve the symlink", path);
  }
  fs::path target = fs::read_symlink(path, ec);
  if (ec) {
    errno = ec.value();
    fail("cannot resolve the symlink", path);
  }
  if (target.is_relative()) target = path.parent_path() / target;
  write_following(target, content, depth + 1);
}

void replace_regular(const std::filesystem::path& path, std::string_view content) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // Built by appending, not operator+: GCC 12 warns falsely (-Wrestrict, PR105329) on
  // "." + string at -O2.
  std::string hidden(1, '.');
  hidden.append(path.filename().string()).append(".XXXXXX");
  std::string tmpl = (dir / hidden).string();
  const int fd = injected_write_fault("create", path) ? -1 : ::mkstemp(tmpl.data());
  if (fd < 0) fail("cannot create a temporary file for", path);
  try {
    write_all(fd, content, path);
  } catch (...) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw;
  }
  if (injected_write_fault("flush", path) || ::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    discard(tmpl, "cannot flush", path);
  }
  if (::close(fd) != 0) discard(tmpl, "cannot flush", path);
  if (injected_write_fault("rename", path) || ::rename(tmpl.c_str(), path.c_str()) != 0)
    discard(tmpl, "cannot rename into place", path);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  write_following(path, content, 0);
}

void set_write_fault_hook(write_fault_hook hook) { fault_hook = std::move(hook); }

// The errno a test injects at this step (0: none): set, so that the step fails as the call would.
bool injected_write_fault(std::string_view step, const std::filesystem::path& path) {
  if (!fault_hook) return false;
  const int e = fault_hook(step, path);
  if (e != 0) errno = e;
  return e != 0;
}

}  // namespace pollscale::datasets
