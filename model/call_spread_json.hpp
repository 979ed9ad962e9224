// model.json's "call_spread" block: the shapes of single calls around their mean that fit
// found in the dataset (datasets/call_spread.hpp), kept beside the cost models so that a
// simulation driven by them varies each call as the machine did (sim/call_variation.hpp).
//
//   "call_spread": {"probabilities": [0, 0.01, ..., 1],
//                   "wait_calls": [{"point": "...", "mean_ns": 1234.5, "ratios": [12 numbers],
//                                   "samples": 3000, "visits": 3}, ...],
//                   "handlers": [...], "wakeups_same_cpu": [...], "wakeups_cross_cpu": [...]}
// or null (historical tables, datasets calibrated before the scenario existed, older files).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "datasets/call_spread.hpp"

namespace pollscale::model {

/// The block's name in model.json (and in a simulation's `costs`): the scenario it comes from.
std::string call_spread_field();

nlohmann::json call_spread_json(const std::optional<datasets::call_spread>& spread);

/// The block of a model.json document `j`: nullopt when absent or null. Throws
/// std::invalid_argument naming the field for anything else malformed — probabilities other
/// than this build's, a ratio list of another length, a shape shape_problem refuses.
std::optional<datasets::call_spread> read_call_spread(const nlohmann::json& j);

}  // namespace pollscale::model
