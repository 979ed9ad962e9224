// What every JSON document pollscale writes starts with: `kind` names what the document is
// and `schema_version` its shape, so a program reading it can check both before trusting
// a field (docs/schema/ holds a JSON Schema per kind; tests check the outputs against them).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace pollscale::app {

/// Bumped when a field of any output is renamed, retyped or removed (added fields do not).
inline constexpr int output_schema_version = 1;

enum class output_kind {
  calibration_summary,    ///< calibrate --format json: the summary rows
  prediction,             ///< predict
  cpu_prediction,         ///< predict --cpus for a CPU-scaling scenario
  cells,                  ///< cells
  validation,             ///< validate on one dataset
  validation_corpus,      ///< validate on several: one row per dataset and the worst
  scaling,                ///< scale on one source
  scaling_corpus,         ///< scale on several
  scaling_wider,          ///< scale --from-cpus: wider machines than were measured
  comparison,             ///< compare
  simulation,             ///< simulate
  whatif,                 ///< whatif
  capacity,               ///< capacity
  capacity_by_mechanism,  ///< capacity --mechanisms: one capacity each and a recommendation
  predictions_beyond,     ///< the study's predictions.json
  study,                  ///< the study's manifest, study.json
};

/// "calibration_summary", "prediction", ... (the names docs/schema/ files carry).
std::string_view output_kind_name(output_kind k);

/// {"kind": name, "schema_version": output_schema_version}; the caller adds the rest.
nlohmann::json output_document(output_kind k);

/// `body` (an object) with kind and schema_version added.
nlohmann::json stamped(output_kind k, nlohmann::json body);

}  // namespace pollscale::app
