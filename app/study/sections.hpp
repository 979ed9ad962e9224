// The report sections a study adds after the measurements: the fitted models, how well
// they predicted held-out points (this machine and the historical record), predictions
// beyond the measured range, and the simulated server against the live one.
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/report/report.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app::study {

/// The models of model.json in a compact table (cell, formula, points, LOO MAPE, n range).
report::extra_section model_section(const nlohmann::json& model_json);

/// One validation run's summary (overall and per group) and, when `figure_name` is given,
/// a figure of this machine's find_active calls: `measured` (every n, when given) against
/// the held-out predictions with their intervals.
report::extra_section validation_section(const std::string& title, const std::string& protocol,
                                         const nlohmann::json& validation_json, const std::string& figure_name,
                                         const datasets::dataset* measured = nullptr);

/// Predictions beyond the measured range: rows of {query, value, lo, hi, unit, extrapolation}.
report::extra_section predictions_section(const nlohmann::json& predictions);

/// Simulated server throughput against idle connections per mechanism (whatif JSON), with
/// the live server's measured rows (a = `active` clients) drawn beside it.
report::extra_section simulation_section(const nlohmann::json& whatif_json, const datasets::dataset& measured,
                                         std::int64_t active);

}  // namespace pollscale::app::study
