// The token ring of LSE's pipetest: n pipes in a ring, t tokens in flight, T threads each
// waiting on its own contiguous segment of the ring. One pass: a thread's wait call
// reports the segment's ready pipes, and for each it reads the token and writes it to the
// next pipe (handler_s), which makes that pipe ready - waking its owner if that is another,
// sleeping thread (same-CPU or cross-CPU wake-up). With one thread and one token a pass
// costs exactly wait_call_s(n, 1, blocking) + handler_s, the quantity pipetest measures.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/costs.hpp"
#include "sim/event_loop_server.hpp"

namespace pollscale::sim {

struct token_ring_config {
  std::int64_t pipes = 2;   ///< n >= 2
  std::int64_t tokens = 1;  ///< 1..n, spread evenly around the ring at the start
  int threads = 1;          ///< 1..n, thread i owns pipes [i n/T, (i+1) n/T)
  int cpus = 1;             ///< thread i runs on CPU i mod cpus

  /// Throws std::invalid_argument naming the field when a value is out of range.
  void validate() const;
};

struct token_ring_result {
  std::uint64_t passes = 0;  ///< token passes in the measured span
  double passes_per_s = 0;
  std::uint64_t calls = 0;
  double events_per_call = 0;
  std::uint64_t wakeups = 0;
  std::vector<double> cpu_utilisation;
  std::uint64_t events = 0;  ///< engine events fired
};

/// Simulates one replication (run_options: duration, warm-up, seed, scheduler). Throws
/// std::invalid_argument for a bad configuration or a bad cost (naming the query).
token_ring_result simulate_token_ring(const token_ring_config& config, const cost_model& costs,
                                      const run_options& options);

}  // namespace pollscale::sim
