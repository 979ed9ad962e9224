// The JSON and text pieces of a fitted scalability law and its predictions, shared by
// `pollscale scale`'s outputs (per table, and --from-cpus for wider machines).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/scaling_law.hpp"
#include "model/validation.hpp"

namespace pollscale::app {

/// "0.0277 ± 0.0091" (the standard error, from the variance `var`), or the value alone when
/// there is none.
std::string with_se(double v, double var);

/// Whether the law fits coefficient c (0 γ, 1 σ, 2 κ) or fixes it at 0.
bool free_coefficient(const model::scaling_fit& f, int c);

/// The law, its coefficients with standard errors (null where the law fixes one at 0),
/// df, residual scatter, peak, leave-one-out error, measured range and rivals.
nlohmann::json fit_json(const model::scaling_fit& f);

/// {n, predicted, lo, hi, extrapolation[, no_interval]}.
nlohmann::json prediction_json(double n, const model::scaling_prediction& p);

/// A held-out row: prediction_json at its N, with measured, rel_err and limited_by.
nlohmann::json held_out_json(const model::validation_row& v, const char* limited_by);

}  // namespace pollscale::app
