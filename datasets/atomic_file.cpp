#include "datasets/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace pollscale::datasets {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& p) {
  throw std::system_error(errno, std::generic_category(), what + " " + p.string());
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // Built by appending, not operator+: GCC 12 warns falsely (-Wrestrict, PR105329) on
  // "." + string at -O2.
  std::string hidden(1, '.');
  hidden.append(path.filename().string()).append(".XXXXXX");
  std::string tmpl = (dir / hidden).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail("cannot create a temporary file for", path);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      const int e = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      errno = e;
      fail("cannot write", path);
    }
    done += static_cast<std::size_t>(w);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    fail("cannot flush", path);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str());
    errno = e;
    fail("cannot rename into place", path);
  }
}

}  // namespace pollscale::datasets
