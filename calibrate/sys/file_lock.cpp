#include "calibrate/sys/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate::sys {
namespace {

pid_t pid_in(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  try {
    return static_cast<pid_t>(std::stol(std::string(buf, static_cast<std::size_t>(n))));
  } catch (...) {
    return 0;
  }
}

}  // namespace

std::optional<file_lock> file_lock::try_acquire(const std::filesystem::path& path, pid_t* holder) {
  unique_fd fd(call("open " + path.string(), [&] { return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644); }));
  if (call("flock", [&] { return ::flock(fd.get(), LOCK_EX | LOCK_NB); }, {EWOULDBLOCK}) != 0) {
    if (holder) *holder = pid_in(fd.get());
    return std::nullopt;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  call("ftruncate", [&] { return ::ftruncate(fd.get(), 0); });
  call("pwrite", [&] { return ::pwrite(fd.get(), pid.data(), pid.size(), 0); });
  return file_lock(std::move(fd), path);
}

file_lock::~file_lock() {
  if (!fd_) return;  // moved from
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);  // while still held: no other writer sees it vanish mid-run
}

}  // namespace pollscale::calibrate::sys
