#include "datasets/directory_swap.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "datasets/atomic_file.hpp"

namespace pollscale::datasets {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const fs::path& p) {
  throw std::system_error(errno, std::generic_category(), what + " " + p.string());
}

// Errors that say the swap cannot be made here (the filesystem, the permissions, the
// directory in use), not that the disk failed: the caller replaces files one by one instead.
bool swap_unavailable(int e) {
  return e == EINVAL || e == ENOSYS || e == EOPNOTSUPP || e == EXDEV || e == EACCES || e == EPERM || e == EROFS ||
         e == EBUSY || e == EMLINK;
}

bool same_inode(const fs::path& a, const fs::path& b) {
  struct stat x {};
  struct stat y {};
  return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

// The entries of `dir` the write does not own, each a file or symlink that can be linked;
// nullopt when one cannot (a subdirectory, a FIFO, a socket), or `dir` cannot be listed.
std::optional<std::vector<std::string>> foreign_entries(const fs::path& dir,
                                                        const std::function<bool(std::string_view)>& owned) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (owned(name)) continue;
    const auto type = e.symlink_status(ec).type();
    if (ec || (type != fs::file_type::regular && type != fs::file_type::symlink)) return std::nullopt;
    out.push_back(name);
  }
  if (ec) return std::nullopt;
  return out;
}

// Flushes a directory's entries to disk; false, with errno, when it cannot.
bool sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int e = errno;
  ::close(fd);
  errno = e;
  return ok;
}

// A fresh hidden directory beside `dir`, ".NAME.XXXXXX"; nullopt when the parent cannot
// take one. Made with mkdir 0777 under the umask, as create_directories would make `dir`
// (mkdtemp's 0700 would hide a dataset from the other users), then given `dir`'s own mode
// where it exists.
std::optional<fs::path> make_stage(const fs::path& dir, std::optional<mode_t> mode) {
  static constexpr char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  // Names need only differ between writers (mkdir refuses a taken one): pid and clock.
  const auto pid = static_cast<std::uint64_t>(static_cast<std::uint32_t>(::getpid()));
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::uint64_t bits = pid * std::uint64_t{0x9E3779B97F4A7C15} ^ now;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name(1, '.');  // appended, not "." + string: GCC 12's false -Wrestrict (PR105329)
    name.append(dir.filename().string()).append(1, '.');
    for (int i = 0; i < 6; ++i, bits = bits * std::uint64_t{6364136223846793005} + std::uint64_t{1442695040888963407})
      name.push_back(letters[(bits >> 33) % (sizeof letters - 1)]);
    const fs::path stage = dir.parent_path() / name;
    if (injected_write_fault("stage", dir) || ::mkdir(stage.c_str(), 0777) != 0) {
      if (errno == EEXIST) continue;
      if (swap_unavailable(errno)) return std::nullopt;
      fail("cannot create a directory beside", dir);
    }
    if (mode && ::chmod(stage.c_str(), *mode) != 0) {
      const int e = errno;
      ::rmdir(stage.c_str());
      errno = e;
      if (swap_unavailable(errno)) return std::nullopt;
      fail("cannot set the mode of a directory beside", dir);
    }
    return stage;
  }
  errno = EEXIST;
  fail("cannot create a directory beside", dir);
}

// Removes what the swap moved out (the old contents, now in `old`): the owned files and the
// carried links by name, then the directory. Something else in it (a file another process
// created in the instant of the swap) keeps the directory; nothing is removed unseen. The
// new contents are in place by now, so a failure here only leaves the hidden directory.
void remove_old(const fs::path& old, const std::function<bool(std::string_view)>& owned,
                const std::vector<std::string>& carried) {
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(old, ec)) {
    const std::string name = e.path().filename().string();
    if (owned(name) || std::find(carried.begin(), carried.end(), name) != carried.end()) doomed.push_back(e.path());
  }
  for (const auto& p : doomed)
    if (injected_write_fault("remove", p) || ::unlink(p.c_str()) != 0) return;
  ::rmdir(old.c_str());
}

}  // namespace

directory_swap replace_directory(const fs::path& dir_given, const std::function<void(const fs::path&)>& fill,
                                 const std::function<bool(std::string_view)>& owned) {
  std::error_code ec;
  fs::path dir = dir_given.has_filename() ? dir_given : dir_given.parent_path();  // "out/q/" is "out/q"
  // A symlink stays: the directory it names is the one replaced.
  if (fs::is_symlink(fs::symlink_status(dir, ec))) {
    dir = fs::canonical(dir, ec);
    if (ec) return directory_swap::unavailable;  // dangling, or a loop
  }
  if (!dir.has_filename() || dir.filename() == "." || dir.filename() == "..") return directory_swap::unavailable;
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  fs::create_directories(parent);  // throws filesystem_error (a system_error) naming it
  const bool exists = fs::is_directory(fs::symlink_status(dir, ec));
  // Swapped out, the working directory would be the old one, removed under the process.
  if (exists && same_inode(dir, fs::current_path(ec))) return directory_swap::unavailable;
  std::vector<std::string> carried;
  std::optional<mode_t> mode;
  if (struct stat st{}; exists && ::stat(dir.c_str(), &st) == 0) mode = st.st_mode & 07777;
  if (exists) {
    auto entries = foreign_entries(dir, owned);
    if (!entries) return directory_swap::unavailable;
    carried = std::move(*entries);
  }
  const auto stage = make_stage(dir, mode);
  if (!stage) return directory_swap::unavailable;
  try {
    fill(*stage);
    for (const auto& name : carried)
      if (injected_write_fault("link", *stage / name) ||
          ::linkat(AT_FDCWD, (dir / name).c_str(), AT_FDCWD, (*stage / name).c_str(), 0) != 0) {
        if (!swap_unavailable(errno)) fail("cannot link into the new directory", dir / name);
        fs::remove_all(*stage, ec);
        return directory_swap::unavailable;
      }
    if (!sync_directory(*stage)) fail("cannot flush directory", *stage);
    const unsigned how = exists ? RENAME_EXCHANGE : RENAME_NOREPLACE;
    if (injected_write_fault("exchange", dir) ||
        ::renameat2(AT_FDCWD, stage->c_str(), AT_FDCWD, dir.c_str(), how) != 0) {
      if (!swap_unavailable(errno)) fail("cannot swap in the new contents of", dir);
      fs::remove_all(*stage, ec);
      return directory_swap::unavailable;
    }
  } catch (...) {
    fs::remove_all(*stage, ec);
    throw;
  }
  if (exists) remove_old(*stage, owned, carried);  // first: the instant a kill leaves it behind is short
  sync_directory(parent);  // the swap is made; a parent that cannot be flushed (no read permission) changes nothing
  return exists ? directory_swap::exchanged : directory_swap::created;
}

}  // namespace pollscale::datasets
