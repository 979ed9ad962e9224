// Evaluating one fitted cell at one point: the value, its 95% prediction interval and
// how far the point lies outside the measured domain. Shared by predict() and validate.
#pragma once

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
};

/// The model's response (time per operation, or its reciprocal for rates) at `x`.
double response_at(const cell_model& m, const point& x);

/// Prediction at `x`. Analytic interval: t_{0.975,df} · sqrt(x'Σx + (sigma_rel·ŷ)²) around
/// ŷ, clamped at 0 for times; with bootstrap replicates, their 2.5% and 97.5% quantiles.
/// A non-positive response (possible only far outside the domain) gives value NaN.
point_prediction evaluate(const cell_model& m, const point& x);

/// Whether the model uses n (any term depends on n_fds).
bool uses_n(const cell_model& m);

}  // namespace pollscale::model
