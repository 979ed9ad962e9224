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

#include <vector>

#include "datasets/call_spread.hpp"
#include "sim/core/random.hpp"

namespace pollscale::sim {

class call_variation {
 public:
  /// Throws std::invalid_argument naming the first unusable shape (shape_problem).
  explicit call_variation(datasets::call_spread spread);

  /// One wait call, rescan or overflow poll of mean cost `mean_s` (seconds, >= 0), varied;
  /// `mean_s` itself when the spread has no wait-call shape.
  double wait_call_s(double mean_s, rng& g) const { return draw(spread_.wait_calls, wait_means_, mean_s, g); }
  /// One handler of mean cost `mean_s`, varied; `mean_s` when there is no handler shape.
  double handler_s(double mean_s, rng& g) const { return draw(spread_.handlers, handler_means_, mean_s, g); }
  /// One wake-up latency of mean `mean_s`, waker and sleeper on one CPU or on two, varied;
  /// `mean_s` when there is no such shape.
  double wakeup_s(bool same_cpu, double mean_s, rng& g) const {
    return same_cpu ? draw(spread_.wakeups_same_cpu, same_means_, mean_s, g)
                    : draw(spread_.wakeups_cross_cpu, cross_means_, mean_s, g);
  }

  /// Which shapes: a wait call's, a handler's, or a wake-up's.
  enum class operation { wait_call, handler, wakeup_same_cpu, wakeup_cross_cpu };

  /// The multiplier's quantile at u for an operation of mean `mean_s`, after the division by
  /// the shape's mean (tests and docs); 1 without a shape.
  double multiplier_at(operation op, double mean_s, double u) const;

  /// The multiplier's variance for an operation of mean `mean_s` — its squared coefficient
  /// of variation, what a closed-form estimate adds to a busy window's spread
  /// (sim/server_estimate.hpp); 0 without a shape.
  double multiplier_variance(operation op, double mean_s) const;

  const datasets::call_spread& spread() const { return spread_; }

 private:
  // mean_ratio() of each shape, in the list's order.
  static std::vector<double> means_of(const std::vector<datasets::spread_shape>& shapes);
  const std::vector<datasets::spread_shape>& shapes_of(operation op) const;
  const std::vector<double>& means_of(operation op) const;
  static double draw(const std::vector<datasets::spread_shape>& shapes, const std::vector<double>& means, double mean_s,
                     rng& g);
  static double multiplier(const std::vector<datasets::spread_shape>& shapes, const std::vector<double>& means,
                           double mean_s, double u);

  datasets::call_spread spread_;
  std::vector<double> wait_means_, handler_means_, same_means_, cross_means_;
};

}  // namespace pollscale::sim
