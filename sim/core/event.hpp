// What the simulation core moves around: an event is a time, a sequence number that breaks
// ties in insertion order (so every run is reproducible), the process it is delivered to
// and a 64-bit tag the process interprets. 32 bytes, no allocation per event.
#pragma once

#include <cstdint>

namespace pollscale::sim {

class engine;

/// Simulated time in seconds since the start of the run.
using sim_time = double;

/// Receives the events scheduled for it. Domain models (servers, clients, token rings)
/// derive from it; the core knows nothing else about them.
class process {
 public:
  /// Called when an event scheduled for this process fires; `e.now()` is its time.
  virtual void on_event(engine& e, std::uint64_t tag) = 0;

 protected:
  process() = default;
  process(const process&) = default;
  process& operator=(const process&) = default;
  ~process() = default;
};

struct event {
  sim_time time = 0;      ///< when it fires, s
  std::uint64_t seq = 0;  ///< scheduling order; earlier-scheduled events fire first on ties
  process* target = nullptr;
  std::uint64_t tag = 0;  ///< the target's own meaning (a connection index, a kind, ...)
};

/// Strict total order of events: by time, then by scheduling order.
inline bool fires_before(const event& a, const event& b) {
  return a.time < b.time || (a.time == b.time && a.seq < b.seq);
}

}  // namespace pollscale::sim
