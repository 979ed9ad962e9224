// The validation protocol of `pollscale validate`: fit on the rows a --train expression
// selects, predict every other row, and measure the errors and the interval coverage,
// per group (by default platform x scenario x mechanism x variant x fd kind x metric)
// and overall. Models are always fitted per cell; groups only aggregate the errors.
#pragma once

#include <string>
#include <vector>

#include "model/cell_fit.hpp"
#include "model/model_set.hpp"
#include "model/observations.hpp"

namespace pollscale::model {

/// platform, scenario, mechanism, variant, fd_kind, metric.
std::vector<std::string> default_group_by();

struct validation_options {
  std::string train = "n_fds<=1000";
  std::vector<std::string> group_by = default_group_by();
  fit_options fit;
};

struct validation_row {
  const observation* o = nullptr;
  std::vector<std::string> group;  ///< values of the group-by columns
  double measured = 0;
  double predicted = 0;
  double lo = 0, hi = 0;  ///< NaN without an interval
  bool has_interval = false;
  std::string no_interval;  ///< why there is none ("" when there is one)
  double rel_err = 0;       ///< (predicted - measured) / measured
  bool extrapolated = false;
  double extrapolation = 1;  ///< n / largest training n of the row's cell
};

/// Accuracy of a set of held-out predictions; errors are fractions (0.05 = 5%).
struct accuracy {
  std::size_t n = 0;          ///< rows predicted
  double mape = 0;            ///< mean |rel_err|
  double median_rel_err = 0;  ///< median |rel_err|
  double max_rel_err = 0;     ///< largest |rel_err|
  double coverage = 0;        ///< share of rows with an interval whose interval holds the measurement
  std::size_t n_with_interval = 0;
  /// How sharp the intervals are: the median over rows with an interval of the half-width
  /// relative to the prediction, (hi - lo) / (2 · predicted). A rate's interval open above
  /// counts as infinitely wide.
  double median_rel_halfwidth = 0;
  /// The median of the Gneiting-Raftery interval score of the central 95% interval,
  /// relative to the measurement: [(hi - lo) + (2/0.05)·(lo - y)⁺ + (2/0.05)·(y - hi)⁺] / y.
  /// It rewards narrow intervals and charges 40x the distance by which one misses, so
  /// neither wide-and-safe nor sharp-and-wrong scores well; lower is better.
  double median_interval_score = 0;
};

/// The relative interval score of one 95% interval (see accuracy::median_interval_score).
double relative_interval_score(double lo, double hi, double measured);

struct group_result {
  std::vector<std::string> group;
  std::size_t n_train = 0;
  accuracy acc;
};

struct validation_result {
  std::vector<std::string> group_by;
  std::vector<validation_row> rows;
  std::vector<group_result> groups;
  accuracy overall;
  std::size_t n_train = 0;
  std::vector<std::string> skipped;  ///< held-out rows or cells that could not be predicted, with why
  model_set models;                  ///< what was fitted on the training rows
};

/// Runs the protocol. Throws std::invalid_argument for a bad --train expression or an
/// unknown group-by column, datasets::input_error when the training set is empty, when
/// nothing is held out, or when a cell has too few training points for its form (unless
/// options.fit.skip_unfittable).
validation_result validate(const observation_set& data, const validation_options& options);

/// Accuracy of `rows` (all of them).
accuracy accuracy_of(const std::vector<const validation_row*>& rows);

}  // namespace pollscale::model
