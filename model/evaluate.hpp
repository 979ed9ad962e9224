// Evaluating one fitted cell at one point: the value, its 95% prediction interval and
// how far the point lies outside the measured domain. Shared by predict() and validate.
#pragma once

#include <string>

#include "model/basis.hpp"
#include "model/model_set.hpp"

namespace pollscale::model {

struct point_prediction {
  double value = 0;  ///< in the cell's unit (rates converted back from the reciprocal)
  double lo = not_available;
  double hi = not_available;
  bool has_interval = false;
  bool extrapolated = false;
  double extrapolation_factor = 1;  ///< n / largest measured n (1 when the data had no n)
  /// Why there is no interval ("" when there is one): too few points for the form, or a
  /// point further past the data than the data spans (interval_support below).
  std::string no_interval;
};

/// The furthest a 95% interval is given past the measured n: as far beyond the largest
/// measured n as the measurements themselves span (n_max / n_min), in ratio. A form fitted
/// on one decade has shown nothing about the second decade past it; its interval there would
/// only restate the form's own assumptions. Returns +inf when the model has no n term.
double interval_support(const cell_model& m);

/// The model's response (time per operation, or its reciprocal for rates) at `x`.
double response_at(const cell_model& m, const point& x);

/// Prediction at `x`. Analytic interval: t_{0.975,df} · sqrt(x'Σx + (sigma_rel·ŷ)²) around
/// ŷ, clamped at 0 for times; with bootstrap replicates, their 2.5% and 97.5% quantiles.
/// No interval (has_interval false, no_interval saying why) for a fit without residual
/// degrees of freedom or an n beyond interval_support().
/// A non-positive response (possible only far outside the domain) gives value NaN.
point_prediction evaluate(const cell_model& m, const point& x);

/// Whether the model uses n (any term depends on n_fds).
bool uses_n(const cell_model& m);

}  // namespace pollscale::model
