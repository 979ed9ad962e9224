// A request to stop a long simulation (Ctrl-C, SIGTERM). The app's signal handler sets an
// atomic flag; the engine looks at it every stop_check_events events (a relaxed load: well
// under a nanosecond per event) and, once set, abandons the replication it is in by
// throwing `stopped`. A replication cut short covers part of its simulated span and is
// discarded; the replications already completed are kept (output_analysis.hpp: replicate).
#pragma once

#include <cstdint>
#include <stdexcept>

namespace pollscale::sim {

/// How many events pass between two looks at the stop flag: at ~10 M events/s, about 0.4 ms.
inline constexpr std::uint64_t stop_check_events = 4096;

/// Thrown out of a replication when a stop was requested before its end.
class stopped : public std::runtime_error {
 public:
  stopped() : std::runtime_error("simulation stopped on request") {}
};

}  // namespace pollscale::sim
