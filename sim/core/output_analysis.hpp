// From simulated observations to estimates with 95% intervals (Law, "Simulation Modeling
// and Analysis", ch. 9): independent replications, batch means within one long run,
// warm-up removal by MSER-5, and the stopping rule "half-width <= 3% of the mean" that JMT
// uses. Intervals are Student t intervals of a mean: `half_width` is t * stderr_mean.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace pollscale::sim {

/// A confidence interval for a mean.
struct interval {
  double mean = 0;
  double half_width = 0;  ///< t_{n-1, (1+level)/2} * stderr_mean; +inf when n < 2
  double lo = 0;          ///< mean - half_width
  double hi = 0;          ///< mean + half_width
  std::size_t n = 0;      ///< independent values it rests on (replications or batches)
  /// half_width / |mean|; +inf when the mean is 0 or n < 2.
  double relative_half_width() const;
  bool contains(double v) const { return lo <= v && v <= hi; }
};

/// Student t interval of the mean of independent, identically distributed `values`
/// (replication means). Precondition: values finite, level in (0, 1).
interval t_interval(std::span<const double> values, double level = 0.95);

/// Student t prediction interval for one more value drawn like `values`: the mean ±
/// t_{n-1, (1+level)/2} · s · √(1 + 1/n), s the values' standard deviation. When each
/// replication runs on its own draw of uncertain inputs (costs drawn from a model's
/// intervals), this, not the mean's interval, says where an answer may lie.
/// `half_width` is then the prediction's half-width; +inf when n < 2.
interval prediction_interval(std::span<const double> values, double level = 0.95);

/// The same when the values come from a mixture of known strata (`strata[i]` the stratum of
/// values[i]: a replication whose drawn inputs put it in one of a few discrete states of the
/// machine, such as where the host keeps two CPUs; studies/model_costs.hpp): each stratum a
/// Student t around its own mean with the strata's pooled standard deviation (n − strata
/// degrees of freedom, scale s·√(1 + 1/n_g)), weighted by its share of the values; lo and hi
/// are that mixture's (1 ∓ level)/2 quantiles, and mean the mean of the stratum most values
/// belong to (the state a run most likely meets; on a tie the one that appears first): the
/// mixture's mean would sit between the states, where no run lies. A symmetric interval
/// around a mean would reach past both states when they lie apart. One stratum, or no
/// degree of freedom left, gives prediction_interval(values). Precondition: as
/// prediction_interval, strata.size() == values.size().
interval stratified_prediction_interval(std::span<const double> values, std::span<const int> strata,
                                        double level = 0.95);

/// Batch means: splits `series` (one run's correlated observations, in time order, warm-up
/// already removed) into `batches` contiguous batches of equal size (the remainder at the
/// start is dropped) and returns the t interval of the batch means. The interval is too
/// narrow when the batches are short against the series' correlation time (heavy load):
/// check batch_means_of()'s lag-1 autocorrelation. Precondition: series.size() >= batches >= 2.
interval batch_means(std::span<const double> series, std::size_t batches = 20, double level = 0.95);

/// The batch means themselves (same batching as batch_means()).
std::vector<double> batch_means_of(std::span<const double> series, std::size_t batches);

/// Lag-1 autocorrelation of `values` (in order): near 0 when batch means are long enough
/// to be treated as independent; 0 for fewer than 3 values or no variation.
double lag1_autocorrelation(std::span<const double> values);

/// MSER-5 warm-up truncation (White 1997): the number of leading observations to drop,
/// a multiple of 5 chosen to minimise the squared standard error of the remaining mean,
/// never more than half the series.
std::size_t mser5_truncation(std::span<const double> series);

/// When to stop adding replications.
struct stopping_rule {
  double relative_half_width = 0.03;  ///< stop once half-width <= this * |mean|
  std::size_t min_replications = 5;
  std::size_t max_replications = 200;
  double level = 0.95;
  /// When > 0, the replications are draws of uncertain inputs whose spread is the answer
  /// (prediction_interval): the run also stops, converged, once this many are in, since the
  /// spread, unlike the mean's half-width, does not shrink with more replications.
  std::size_t spread_replications = 0;
};

/// Result of replicate(): the primary metric per replication and whether the rule was met.
struct replication_run {
  std::vector<double> values;
  interval estimate;
  bool converged = false;  ///< false when max_replications ran out first
  bool stopped = false;    ///< a stop request (stop.hpp) ended the run: values are the completed replications
};

/// Runs `one(i)` for i = 0, 1, ... (each an independent replication returning its value of
/// the primary metric) until the rule holds or max_replications is reached. When `one`
/// throws `stopped`, the run ends with the replications completed before it (stopped =
/// true; the estimate when there are two or more); with none completed, `stopped` propagates.
/// Throws std::invalid_argument for a rule with min < 2, max < min or a bad fraction.
replication_run replicate(const stopping_rule& rule, const std::function<double(std::size_t)>& one);

}  // namespace pollscale::sim
