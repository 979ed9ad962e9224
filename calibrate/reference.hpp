// Independent references measured inside a calibration run.
//
// pollscale's figures are checked against tools that share no code with it: a plain
// poll(..., 0) loop (scripts/crosscheck_poll.cpp, built as pollscale-crosscheck-poll beside
// the pollscale executable) and `perf bench sched pipe`. Run minutes apart, such a
// comparison proves nothing on a shared VM: the machine's speed drifts for seconds at a
// time (a neighbour's load, frequency changes, the host's scheduling), often by more than
// the 10% the comparison is meant to resolve. So the reference is measured at the same
// moment as pollscale's own point, on the same pinned CPU, and what is compared is the
// ratio pollscale / reference: drift that hits both alike cancels in it, and a ratio that
// moves while both figures move together is a property of the machine, not of pollscale.
//
// The references run as child processes (sys::run_capture): they inherit the caller's CPU
// affinity (the caller pins itself first), are killed and reaped on a timeout or when stop
// is requested, and leave nothing behind. A reference that cannot run (tool missing,
// non-zero exit, unparsable output) is not an error of the calibration: the functions
// return nullopt and say why in one line.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pollscale::calibrate {

struct reference_reading {
  double ns_per_op = 0;  ///< the tool's figure, in nanoseconds per operation
  std::string tool;      ///< a short description of what was run
};

/// The poll-loop tool's file name (a CMake target of the same name builds it).
inline constexpr std::string_view poll_loop_name = "pollscale-crosscheck-poll";

/// Path of pollscale-crosscheck-poll beside the running executable (the directory of
/// /proc/self/exe); empty if it is absent or not executable.
std::filesystem::path poll_loop_path();
/// The same in `dir`.
std::filesystem::path poll_loop_path(const std::filesystem::path& dir);

/// Runs `exe N REPS`: the plain poll() loop over N pipes, timeout 0, the middle one ready
/// (plus the scan of revents up to it), timed in REPS short batches. Returns the median ns
/// per call from its one output line ("n=N median_ns=M ..."). Returns nullopt and sets
/// *why (if why is not null; one line, naming exe) if it cannot run, exits non-zero,
/// runs past `timeout` or prints something else. Throws sys::interrupted if stop is
/// requested while it runs (the child killed and reaped first).
std::optional<reference_reading> run_poll_loop(const std::filesystem::path& exe, std::int64_t n, int reps,
                                               std::string* why,
                                               std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// Runs `perf bench sched pipe -T -l LOOPS` (two threads of one process passing a token
/// through two pipes with blocking reads; one op = one round trip) when `perf` is on PATH.
/// Returns ns per round trip (its "usecs/op" line x 1000). nullopt and *why when perf is
/// missing, exits non-zero, runs past `timeout` or prints no usecs/op; sys::interrupted
/// as above.
std::optional<reference_reading> run_perf_pipe(int loops, std::string* why,
                                               std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// The parsers behind the two (exposed for tests). parse_poll_loop: the median_ns of the
/// line for `n` ("n=N median_ns=M ..."); parse_perf_pipe: the usecs/op figure, in
/// microseconds. nullopt and *why unless the figure is there, finite and positive.
std::optional<double> parse_poll_loop(std::string_view out, std::int64_t n, std::string* why);
std::optional<double> parse_perf_pipe(std::string_view out, std::string* why);

}  // namespace pollscale::calibrate
