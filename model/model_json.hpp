// model.json: the on-disk form of a model_set (docs/model.md §7). Every number
// is plain JSON; NaN (an interval that does not exist) is written as null.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "model/model_set.hpp"

namespace pollscale::model {

nlohmann::json to_json(const model_set& models);

/// The one-in-flight chain (one_in_flight.hpp) as model.json and `scale`'s JSON both write it:
/// {"switches": [{"n", "switches"}], "switch_s", "cross_s" (null where unmeasured)}.
nlohmann::json to_json(const chain_fit& chain);

/// Parses a model set; throws datasets::input_error("<where>: what") naming the model
/// index and field that is missing or malformed. `where` prefixes every message.
model_set model_set_from_json(const nlohmann::json& j, const std::string& where);

/// Writes `models` to `path` atomically (a reader never sees half a file).
void save_model(const std::filesystem::path& path, const model_set& models);

}  // namespace pollscale::model
