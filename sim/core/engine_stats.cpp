#include "sim/core/engine_stats.hpp"

#include <sys/resource.h>

namespace pollscale::sim {

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  // Linux reports ru_maxrss in kilobytes.
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024U;
}

engine_stats make_engine_stats(std::uint64_t events, double simulated_s, double wall_s) {
  engine_stats s;
  s.events = events;
  s.simulated_s = simulated_s;
  s.wall_s = wall_s;
  if (wall_s > 0) {
    s.events_per_s = static_cast<double>(events) / wall_s;
    s.sim_s_per_wall_s = simulated_s / wall_s;
  }
  s.peak_rss_bytes = peak_rss_bytes();
  return s;
}

}  // namespace pollscale::sim
