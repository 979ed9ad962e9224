// A keeper process that holds descriptors for us. The descriptor limit (RLIMIT_NOFILE,
// hard 20000 here) counts per process, so a probe that registers n pipes' read ends can
// reach n ≈ 19700 only if the n write ends live elsewhere: they are passed to the keeper
// over a unix socket (SCM_RIGHTS) and stay open there, so the read ends neither see EOF
// nor count against our limit. Closing the keeper's socket ends it and closes them all.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>

#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate {

class fd_parking {
 public:
  /// Forks the keeper. It closes every inherited descriptor but its socket, ignores SIGINT
  /// (the parent decides when to stop) and dies with the parent.
  fd_parking();
  ~fd_parking();
  fd_parking(const fd_parking&) = delete;
  fd_parking& operator=(const fd_parking&) = delete;

  /// Hands `fds` to the keeper (any number; sent 250 per message) and waits until it
  /// confirms it holds them all. The caller still owns its copies and may close them.
  /// Throws std::runtime_error if the keeper could not take them (its limit).
  void park(std::span<const int> fds);

  std::size_t parked() const { return parked_; }

 private:
  void send_batch(std::span<const int> fds);

  sys::unique_fd socket_;
  pid_t pid_ = -1;
  std::size_t parked_ = 0;
};

}  // namespace pollscale::calibrate
