// How `validate` and `scale` write the accuracy of held-out predictions: one JSON shape,
// so that a reader (the study, a notebook) takes either command's summary the same way.
#pragma once

#include <nlohmann/json.hpp>

#include "model/validation.hpp"

namespace pollscale::app {

/// {"n", "mape", "median_rel_err", "max_rel_err", "coverage", "n_with_interval",
///  "median_rel_halfwidth", "median_interval_score"}: fractions (0.05 = 5%); null where a
/// figure is undefined (no rows predicted, no interval); "inf" for a half-width or score
/// made infinite by an interval open above (a rate).
nlohmann::json accuracy_json(const model::accuracy& a);

}  // namespace pollscale::app
