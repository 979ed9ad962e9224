// Fitting one cell: every candidate form is fitted (non-negative, relative weights, Huber),
// scored by leave-one-out cross-validation, and the simplest form whose LOO error is
// within the parsimony margin of the best wins. The winner gets coefficient intervals,
// fit statistics and, on request, a seeded bootstrap.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "datasets/csv_table.hpp"
#include "model/forms.hpp"
#include "model/linear_fit.hpp"
#include "model/model_set.hpp"
#include "model/observations.hpp"
#include "model/working_set.hpp"

namespace pollscale::model {

struct fit_options {
  family fam = family::mechanistic;  ///< extra_p forces the generic family everywhere
  /// Which summary of a calibration point to read (load_observations); fit_models itself
  /// takes the observations as loaded.
  point_statistic statistic = point_statistic::median;
  robust_options robust{};
  /// Parsimony: a form with fewer terms wins when its LOO MAPE is at most
  /// best * (1 + relative) + absolute (fractions).
  double parsimony_relative = 0.10;
  double parsimony_absolute = 0.002;
  /// A curvature term (n log n, n^1.5, n^2, any n^i·log^j n but n itself) must earn its
  /// place: it is considered only with at least this many distinct n, and only when its
  /// LOO MAPE is below the best straight form's by this fraction. Three sizes two decades
  /// apart fit any smooth curve; which one extrapolates is then a guess, and a straight
  /// line is the kernel's own shape for a scan.
  /// Off by default (0, 0: a curved form competes when its LOO MAPE is no worse than the
  /// best straight form's): on the historical record the rule made the largest-n
  /// predictions worse (docs/model.md, "Parsimony on small tables").
  std::size_t curvature_min_distinct_n = 0;
  double curvature_margin = 0;
  /// Floor of the relative spread of a new point (sigma_rel). calibrate's stopping rule
  /// only guarantees each median within ±2% (95%), and points measured minutes apart on a
  /// shared machine drift by as much: a smaller spread in the residuals is luck, and
  /// intervals built on it would be too narrow for the next measurement.
  double min_sigma_rel = 0.02;
  /// The height of a streaming scan's step past L2: false (the default), the streaming time
  /// (144 B at 15 GB/s); true, the cold_scan probe's figure where the dataset has one. The
  /// probe's figure was the default until a second host read it low and extrapolated worse
  /// with it (docs/model.md §9, "The ninth host"): a step that helps one host and hurts
  /// another is not the default, and stays an option so that each new host can judge it.
  bool measured_step = false;
  /// Bootstrap replicates for prediction intervals (0: analytic intervals).
  std::size_t bootstrap_replicates = 0;
  std::uint64_t seed = 1;  ///< seeds the bootstrap; same seed, same model
  /// Leave out (and list in model_set::skipped) cells with too few points for their
  /// form, instead of failing the whole fit.
  bool skip_unfittable = false;
  /// Cross-validation scores each form by leave-one-out up to this many points in a cell
  /// (m refits); beyond, by cv_folds folds interleaved in n (cv_folds refits), so that a
  /// cell of 10^5 points costs ten refits, not 10^5 — leave-one-out is O(m^2) and took 29 s
  /// for 10^5 rows. Every calibration and table so far has at most 25 points a cell.
  std::size_t loo_max_points = 200;
  std::size_t cv_folds = 10;
  /// Called after each cell with (cells done, cells in all): progress for long fits.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// What the dataset says about the machine, shared by all its cells.
struct fit_environment {
  std::optional<latency_curve> curve;       ///< scans' (knees at the probe's cliffs); nullopt for historical data
  std::optional<latency_curve> ring_curve;  ///< the token ring's (knees at the listed cache sizes)
  std::optional<latency_curve> non_streaming_curve;  ///< scans that cannot stream (scan_streams): the probe's own curve
  std::optional<double> signal_queue_limit;          ///< RLIMIT_SIGPENDING soft limit
  /// Per fd kind: what one descriptor paid past L2 in the cold_scan probe (cold_exposures_of).
  std::map<std::string, cold_exposure, std::less<>> cold_exposures;
};

/// Too few points for the form a cell needs (e.g. poll measured at one n only).
class too_few_points : public datasets::input_error {
 public:
  using datasets::input_error::input_error;
};

/// Fits the cell `id` to `rows` (all belonging to it). Throws datasets::input_error
/// naming a row for a value the model cannot use (zero, or a zero rate), and when `rows`
/// is empty; too_few_points when the points cannot support the cell's core terms.
cell_model fit_cell(const cell_id& id, const std::vector<const observation*>& rows, const fit_environment& env,
                    const fit_options& options);

}  // namespace pollscale::model
