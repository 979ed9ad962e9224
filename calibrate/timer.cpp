#include "calibrate/timer.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "datasets/statistics.hpp"

namespace pollscale::calibrate {

timer_facts measure_timer(int pairs) {
  timer_facts f;
  timespec res{};
  ::clock_getres(CLOCK_MONOTONIC, &res);
  f.resolution_ns = static_cast<double>(res.tv_sec) * 1e9 + static_cast<double>(res.tv_nsec);
  // The cost of a read: average over blocks of 64 reads, the median over blocks.
  std::vector<double> per_read;
  std::uint64_t min_step = std::numeric_limits<std::uint64_t>::max();
  const int blocks = std::max(1, pairs / 64);
  per_read.reserve(static_cast<std::size_t>(blocks));
  for (int b = 0; b < blocks; ++b) {
    const std::uint64_t t0 = clock_ns();
    std::uint64_t prev = t0;
    for (int i = 0; i < 64; ++i) {
      const std::uint64_t t = clock_ns();
      if (t > prev) min_step = std::min(min_step, t - prev);
      prev = t;
    }
    per_read.push_back(static_cast<double>(prev - t0) / 64.0);
  }
  f.overhead_ns = datasets::median(per_read);
  f.min_step_ns =
      min_step == std::numeric_limits<std::uint64_t>::max() ? f.resolution_ns : static_cast<double>(min_step);
  return f;
}

}  // namespace pollscale::calibrate
