// A FIFO service station with c identical servers: the textbook queues (M/M/1, M/M/c,
// M/G/1, M/D/1 with open Poisson arrivals; the machine-repairman model with a finite
// population thinking between requests). It validates the engine and the output analysis
// against sim/analytic.hpp and is the model of the M/M/1 speed benchmark.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/accumulators.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/histogram.hpp"
#include "sim/core/random.hpp"
#include "sim/core/ring_fifo.hpp"

namespace pollscale::sim {

struct station_config {
  int servers = 1;  ///< c >= 1
  distribution service = distribution::exponential(1.0);
  /// Open arrivals: the interarrival time distribution (Poisson arrivals: exponential).
  std::optional<distribution> interarrival;
  /// Closed (finite source) arrivals when `interarrival` is empty: this many customers,
  /// each thinking for `think` between the end of one service and its next request.
  int customers = 0;
  distribution think = distribution::exponential(1.0);
  double warmup_s = 0;       ///< statistics restart at this simulated time
  double run_s = 1;          ///< simulated time measured after the warm-up
  bool keep_series = false;  ///< keep every response time (for batch means), in departure order
};

struct station_result {
  std::uint64_t completed = 0;  ///< services finished after the warm-up
  double throughput = 0;        ///< completions per second, 1/s
  double mean_response_s = 0;   ///< mean time from arrival to departure, s
  double mean_wait_s = 0;       ///< mean time from arrival to the start of service, s
  double mean_in_system = 0;    ///< time average of customers present
  double utilisation = 0;       ///< time average of busy servers / c
  latency_histogram response;   ///< response times of the customers counted
  std::vector<double> series;   ///< response times in departure order when keep_series
  std::uint64_t events = 0;     ///< engine events fired
};

/// Runs one replication on a fresh engine of the given scheduler, with generator `g`.
/// Throws std::invalid_argument for servers < 1, a closed model without customers, or
/// a non-positive or non-finite run length or a negative warm-up.
station_result simulate_station(const station_config& config, rng& g,
                                scheduler_kind scheduler = scheduler_kind::binary_heap);

}  // namespace pollscale::sim
