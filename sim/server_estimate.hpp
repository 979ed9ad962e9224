// The event-loop server in closed form: what sim/event_loop_server.hpp simulates, estimated
// by mean-value analysis in microseconds instead of simulated in seconds. `capacity` answers
// from it first (--analytic) and beside every simulated answer; the simulation confirms it.
//
// One thread's loop is a chain of cycles. A cycle starts with a wait call. The call claims
// what arrived since the last claim - during the previous batch's handling and the call
// itself - a Poisson count of mean mu = lambda (x s + W): x events a cycle, s the cost of
// handling one, W the call's mean cost (over the ready count it starts with, which decides
// how many fds a blocking poll registers on). With probability P0 = exp(-mu) it claims none
// and the thread sleeps until the next arrival, is woken (omega), rescans (Rs) and handles
// the m = 1 + lambda (omega + Rs) events that arrived meanwhile. So
//     x = mu + P0 m,    cycle time Tc = W + x s + P0 (1/lambda + omega + Rs) = x / lambda,
// a fixed point in x that exists while lambda (s + dW/dk) < 1. The CPU is busy for
// W + x s + P0 Rs of each cycle. A request finds the thread asleep with the probability
// that time is asleep (Poisson arrivals see time averages) and then waits omega + Rs and its
// place among the m; otherwise it waits for the end of the window it arrived in and its place
// in the next batch: about the busy cycle, less half a call's cost for arrivals spread in
// time (all of it for a closed loop whose clients answer at once, which arrive during the
// handling and wait the whole cycle). The batch of the next cycle grows with this one
// (a branching chain of rate rho = lambda (s + dW/dk)), so batch sizes vary with variance
// mu / (1 - rho^2): the p99 comes from that spread, a normal approximation mixed with the
// sleepers' responses. Closed clients (think Z, network D each way) are the same thread at
// the rate lambda = A / (Z + 2D + R) that its own response time R allows, found by
// bisection. With a call spread (cost_model::variation) each handler and call varies around
// its mean: the means stay, and the p99's spread takes their variances (a busy window of b
// handlers and one call adds b·Var(handler) + Var(call)) — a normal approximation, which a
// heavy tail makes optimistic (docs/sim.md measures it against the simulation).
//
// Covered: closed or Poisson arrivals, readiness mechanisms, one thread per CPU with its own
// interest set (or one thread), any active position, keep-alives as extra events. Not
// covered (an estimate says why not): on/off bursts, a load generator, threads sharing a
// set or a CPU, max-events limits, rtsig's signal queue. Accuracy against the simulator is
// measured, not assumed (tests/sim/server_estimate_test.cpp, docs/sim.md).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "sim/costs.hpp"
#include "sim/event_loop_server.hpp"
#include "sim/workload.hpp"

namespace pollscale::sim {

struct server_estimate {
  double throughput = 0;       ///< replies per second to active clients
  double latency_mean_s = 0;   ///< mean request-to-reply time, network included
  double latency_p99_s = 0;    ///< its 99th percentile (approximate, see above)
  double cpu_utilisation = 0;  ///< mean busy fraction over the CPUs
  double calls_per_s = 0;      ///< wait calls entered, all threads
  double events_per_call = 0;  ///< events handled per call
  /// The utilisation split by use (sim::cpu_use order), as the simulation reports it.
  std::array<double, cpu_use_count> cpu_share{};
  /// Open arrivals faster than the threads can serve (lambda (s + dW/dk) >= 1): no steady
  /// state; the other figures are then those at the limit and the latencies infinite.
  bool saturated = false;
};

/// An estimate, or why there is none for this configuration.
struct estimate_result {
  std::optional<server_estimate> estimate;
  std::string not_covered;  ///< empty when estimate is set
};

/// The estimate of one configuration. Throws std::invalid_argument for a bad configuration
/// or workload, or a cost model answer that is negative or not finite (naming the query).
estimate_result estimate_server(const server_config& config, const workload& load, const cost_model& costs);

}  // namespace pollscale::sim
