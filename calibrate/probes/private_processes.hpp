#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <optional>

#include "calibrate/probe.hpp"
#include "calibrate/probes/own_pipe.hpp"

namespace pollscale::calibrate::probes {

/// T one-thread processes, each calling its own waiter over its own readable pipe
/// (private_processes.cpp holds the essay). The calling process only starts them, lets
/// them run and times them; it makes no call of the point's own.
class private_processes_driver {
 public:
  /// The most processes one point may start (a --n beyond it is left out of the plan).
  static constexpr std::int64_t max_processes = 256;

  /// Builds T = key.n_fds set-ups as private_sets does (a pipe left readable and a waiter
  /// of key's mechanism over it), proves each with one untimed call, then forks one process
  /// per set-up, pinned as key.pinning says, which calls once more untimed; returns once
  /// every one is ready. probe_skipped: a CPU outside the mask, too few descriptors, too
  /// many processes, a mechanism refused here; probe_failure: a process that could not set
  /// itself up (named, with the step and errno); std::invalid_argument: a malformed key.
  /// Every process forked is reaped before the constructor throws.
  private_processes_driver(const datasets::key& key, const selection& sel);
  /// Stops every process and reaps it (SIGKILL for one that has not gone within a second).
  ~private_processes_driver();
  private_processes_driver(const private_processes_driver&) = delete;
  private_processes_driver& operator=(const private_processes_driver&) = delete;

  /// Lets the processes make `calls` more wait calls between them and returns once all are
  /// done: the nanoseconds from raising the budget to the last call's end. A wrong answer,
  /// or a process that failed or died, is a probe_failure; a stop request (Ctrl-C) while
  /// waiting is sys::interrupted.
  std::uint64_t calls(std::size_t calls);

  std::size_t processes() const { return pids_.size(); }
  /// Calls each process has made so far (exact between calls() calls).
  std::vector<std::uint64_t> calls_per_process() const;
  /// Calls made in all.
  std::uint64_t total() const;
  /// The highest watched descriptor (in the processes' own tables).
  int max_watched_fd() const { return max_fd_; }
  /// The processes' ids, in worker order (for tests: each is a live child until the
  /// driver goes).
  const std::vector<pid_t>& pids() const { return pids_; }

  struct shared_state;  // the page the processes share (private_processes.cpp)

  /// One worker's set-up, built by the calibration before the fork; after it, the
  /// worker's process uses its own copy.
  struct worker {
    std::optional<own_pipe> set;
    int cpu = -1;
  };

 private:
  void wait_until_ready();
  void throw_if_a_process_failed(const char* when);
  void stop_and_reap() noexcept;

  shared_state* shared_ = nullptr;  // MAP_SHARED, created before the first fork
  std::size_t shared_bytes_ = 0;
  std::vector<worker> workers_;
  std::vector<pid_t> pids_;
  int max_fd_ = -1;
};

}  // namespace pollscale::calibrate::probes
