// The figures and tables a report draws from a calibration dataset: find_active's cost
// against n per mechanism, the per-descriptor cost that exposes cache steps, blocking
// and wake-up placement, and one generic figure per other scenario and metric.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/report/plot.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app::report {

/// Groups summary rows that pass `keep` into series named by `label`, x = n_fds (rows
/// without n_fds are ignored), y = median with its interval, scaled by `y_scale(row)`.
std::vector<plot_series> series_by(const std::vector<datasets::summary_row>& rows,
                                   const std::function<bool(const datasets::key&)>& keep,
                                   const std::function<std::string(const datasets::key&)>& label,
                                   const std::function<double(const datasets::key&)>& y_scale = nullptr);

/// Every figure the dataset supports (figures with no series are left out).
std::vector<figure> calibration_figures(const datasets::dataset& d);

/// "mechanism/variant", or "mechanism" without a variant; "read" for an empty mechanism.
std::string flavour_label(const datasets::key& k);

}  // namespace pollscale::app::report
