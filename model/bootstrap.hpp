// Bootstrap prediction intervals, seeded: each replicate redraws every point's median
// from its raw samples (or, for published figures without samples, perturbs the fitted
// value by a resampled relative residual), refits the chosen form against prior means
// drawn from the priors, and is paired with a resampled leave-one-out residual for the
// scatter of a new measurement.
#pragma once

#include <vector>

#include "model/cell_fit.hpp"
#include "model/cell_points.hpp"

namespace pollscale::model {

/// Fills m.bootstrap (options.bootstrap_replicates rows of coefficients of `f`) and
/// m.bootstrap_residuals. `loo` are the chosen form's signed LOO relative errors (may be
/// empty: in-sample residuals are used then). Deterministic for a given options.seed.
void add_bootstrap(cell_model& m, const form& f, const cell_points& pts, const std::vector<double>& loo,
                   const fit_options& options);

}  // namespace pollscale::model
