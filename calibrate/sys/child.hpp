// Running another program to completion and capturing what it prints: the independent
// reference tools (calibrate/reference.hpp) run this way inside a calibration.
//
// The child is forked and exec'd with its stdout on a pipe, its stdin and stderr on
// /dev/null, the default signal mask and dispositions, every other descriptor closed
// (close_range), in a process group of its own, and PR_SET_PDEATHSIG = SIGKILL, so that
// it dies with the thread that started it. It inherits the caller's CPU affinity. The
// parent's side goes through sys::call like every other system call; the child's side
// between fork and exec makes raw, async-signal-safe calls only (it may neither allocate
// nor throw in a multithreaded process).
//
// Hygiene: run_capture() returns only after the child is reaped. On a timeout, on
// sys::interrupted (stop requested while waiting) and on any other exception it kills
// the child's whole process group with SIGKILL and reaps the child before returning or
// rethrowing; after a normal exit it kills whatever is left in that group (a helper the
// child forked and did not wait for), so that nothing is left running behind it.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pollscale::calibrate::sys {

struct capture_result {
  enum class outcome {
    exited,        ///< exit_code holds its exit status
    signaled,      ///< killed by `signal` (not by us)
    timed_out,     ///< still running at the deadline: killed and reaped
    spawn_failed,  ///< exec failed (spawn_errno), nothing ran
  };
  outcome how = outcome::spawn_failed;
  int exit_code = -1;
  int signal = 0;
  int spawn_errno = 0;
  std::string out;         ///< its stdout, at most max_output bytes (the rest is read and dropped)
  bool truncated = false;  ///< stdout exceeded max_output
  std::chrono::nanoseconds elapsed{0};

  /// Exited with status 0.
  bool ok() const noexcept { return how == outcome::exited && exit_code == 0; }
  /// One line: "exited with status 1", "killed by signal 9 (Killed)", "timed out after
  /// 10000 ms", "could not be started: No such file or directory".
  std::string describe() const;
};

struct capture_options {
  std::chrono::milliseconds timeout{10000};
  std::size_t max_output = 1 << 20;
};

/// Runs argv[0] (a path; no PATH search: see find_program) with arguments argv[1..],
/// captures its stdout and waits for it to exit, at most `timeout`. Throws
/// std::invalid_argument on an empty argv, sys::interrupted if stop is requested while
/// waiting (the child killed and reaped first), std::system_error if a call in the
/// parent fails (pipe2, fork, ...). A program that cannot be executed is not an
/// exception: outcome::spawn_failed.
capture_result run_capture(const std::vector<std::string>& argv, const capture_options& options = {});

/// The first executable regular file named `name` in the directories of $PATH (an empty
/// entry meaning the current directory), or empty if there is none. A name with a '/'
/// is returned as is if it is executable.
std::filesystem::path find_program(std::string_view name);

}  // namespace pollscale::calibrate::sys
