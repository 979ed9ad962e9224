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

/// Thrown out of a replication that fired more events than its budget allows (looked at
/// with the stop flag): bounded work for inputs that would run for hours (a span of 10^12
/// s, a rate of 10^9/s). Carries how far it got.
class event_budget_exceeded : public std::runtime_error {
 public:
  event_budget_exceeded(std::uint64_t fired, double clock_s)
      : std::runtime_error("event budget exceeded"), events(fired), simulated_s(clock_s) {}
  std::uint64_t events;  ///< events fired when it gave up
  double simulated_s;    ///< the simulated clock then, s
};

}  // namespace pollscale::sim
