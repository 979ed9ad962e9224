// One writer per dataset directory. Two calibrations started into the same --out at once
// would both find it empty and then overwrite each other's files; the second one is
// refused at the start instead. The lock is flock(2) on a file in the directory: the
// kernel drops it when its holder exits, however it exits, so a killed run never leaves a
// directory locked, and the file names the holder's pid for the message.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>

#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate::sys {

class file_lock {
 public:
  /// Takes the lock on `path` (created if absent; its content becomes our pid), or returns
  /// nullopt when another process holds it (`holder`, when given, gets its pid, 0 if
  /// unknown). Throws std::system_error when the file cannot be opened or locked at all.
  static std::optional<file_lock> try_acquire(const std::filesystem::path& path, pid_t* holder = nullptr);

  file_lock(file_lock&&) noexcept = default;
  file_lock& operator=(file_lock&&) noexcept = default;
  /// Removes the file, then drops the lock.
  ~file_lock();

 private:
  file_lock(unique_fd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  unique_fd fd_;
  std::filesystem::path path_;
};

}  // namespace pollscale::calibrate::sys
