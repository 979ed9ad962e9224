// How fast the engine ran: what `simulate` reports in its "engine" block (docs/architecture.md,
// "Result names"). These figures measure the host, not the simulated system.
#pragma once

#include <chrono>
#include <cstdint>

namespace pollscale::sim {

struct engine_stats {
  std::uint64_t events = 0;          ///< events fired
  double simulated_s = 0;            ///< simulated time covered, s
  double wall_s = 0;                 ///< host time spent, s
  double events_per_s = 0;           ///< events / wall_s (0 when wall_s is 0)
  double sim_s_per_wall_s = 0;       ///< simulated_s / wall_s (0 when wall_s is 0)
  std::uint64_t peak_rss_bytes = 0;  ///< the process's peak resident set (getrusage), bytes
};

/// Peak resident set size of this process so far, bytes (getrusage ru_maxrss).
std::uint64_t peak_rss_bytes();

/// Fills the derived rates and the peak RSS from the raw counts.
engine_stats make_engine_stats(std::uint64_t events, double simulated_s, double wall_s);

/// Wall-clock stopwatch (steady clock) started at construction.
class wall_stopwatch {
 public:
  wall_stopwatch() : start_(std::chrono::steady_clock::now()) {}
  /// Seconds since construction.
  double elapsed_s() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pollscale::sim
