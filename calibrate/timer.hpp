// The clock every probe times with, and what it costs to read it. CLOCK_MONOTONIC is read
// through the vDSO (no system call with the tsc clocksource), so one read costs tens of ns;
// a call shorter than ~50x the timer's cost is therefore timed in batches by the runner.
#pragma once

#include <time.h>
#include <cstdint>

namespace pollscale::calibrate {

/// Monotonic time in nanoseconds.
inline std::uint64_t clock_ns() noexcept {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct timer_facts {
  double overhead_ns = 0;    ///< median cost of one clock_ns() read (blocks of 64 back-to-back reads)
  double resolution_ns = 0;  ///< clock_getres(CLOCK_MONOTONIC): the clock's own granularity
  double min_step_ns = 0;    ///< smallest non-zero step between consecutive reads (>= the read cost)
};

/// Measures the clock: `pairs` back-to-back reads (default 200000, about 5 ms).
timer_facts measure_timer(int pairs = 200000);

/// Times `f()` once: nanoseconds from just before to just after.
template <class F>
std::uint64_t time_ns(F&& f) {
  const std::uint64_t t0 = clock_ns();
  f();
  return clock_ns() - t0;
}

}  // namespace pollscale::calibrate
