// Each call a simulated server charges, varied as the machine varies single calls.
//
// The cost model gives an operation's mean (sim/costs.hpp). A server whose every wait call
// and handler costs exactly its mean queues less than a real one: its latency percentiles
// come only from the workload's randomness and the threads' contention. With a call spread
// (datasets/call_spread.hpp: measured by calibrate's call_spread scenario, kept in model.json)
// each wait call, rescan, overflow poll, handler and wake-up costs its mean times a multiplier drawn
// from the measured shape for an operation of that length. The multiplier's mean is 1 —
// the shape's quantile function divided by its own mean — so throughput and CPU shares
// keep their centre and the tail gets the spread.
//
// Not varied: re-arms, the workload's own draws (application work, think and network times have their own
// distributions). The draws come from a stream of their own (server_model), so a run with
// and without variation sees the same arrivals: their difference is the spread's effect.
#pragma once

#include <array>
#include <vector>

#include "datasets/call_spread.hpp"
#include "sim/core/random.hpp"

namespace pollscale::sim {

class call_variation {
 public:
  /// Which shapes: a wait call's, a handler's, or a wake-up's.
  enum class operation { wait_call, handler, wakeup_same_cpu, wakeup_cross_cpu };

  /// Throws std::invalid_argument naming the first unusable shape (shape_problem).
  explicit call_variation(datasets::call_spread spread);

  /// One operation of mean cost `mean_s` (seconds, >= 0), varied: a wait call, rescan or
  /// overflow poll (operation::wait_call), a handler, or a wake-up latency by its placement;
  /// `mean_s` itself when the spread has no shape for the operation.
  double draw(operation op, double mean_s, rng& g) const;
  double wait_call_s(double mean_s, rng& g) const { return draw(operation::wait_call, mean_s, g); }
  double handler_s(double mean_s, rng& g) const { return draw(operation::handler, mean_s, g); }
  double wakeup_s(bool same_cpu, double mean_s, rng& g) const {
    return draw(same_cpu ? operation::wakeup_same_cpu : operation::wakeup_cross_cpu, mean_s, g);
  }

  /// The multiplier's quantile at u for an operation of mean `mean_s`, after the division by
  /// the shape's mean (tests and docs); 1 without a shape.
  double multiplier_at(operation op, double mean_s, double u) const;

  /// The multiplier's variance for an operation of mean `mean_s` — its squared coefficient
  /// of variation, what a closed-form estimate adds to a busy window's spread
  /// (sim/server_estimate.hpp); 0 without a shape.
  double multiplier_variance(operation op, double mean_s) const;

  const datasets::call_spread& spread() const { return spread_; }

 private:
  static constexpr std::size_t operation_count = 4;
  const std::vector<datasets::spread_shape>& shapes_of(operation op) const;

  datasets::call_spread spread_;
  /// mean_ratio() of each shape, by operation, in its list's order.
  std::array<std::vector<double>, operation_count> means_;
};

}  // namespace pollscale::sim
