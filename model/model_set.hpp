// A fitted model set: what model.json holds (docs/model.md §7). One cell_model per
// cell, a cell being every key column except the regressors (n_fds, n_active, active_pos,
// max_fd), plus the platform and kernel of historical rows.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "datasets/call_spread.hpp"
#include "datasets/placement_states.hpp"
#include "datasets/schema.hpp"
#include "datasets/simultaneous_drift.hpp"
#include "model/basis.hpp"
#include "model/between_runs.hpp"
#include "model/cpu_scaling.hpp"
#include "model/simulator_discrepancy.hpp"
#include "model/stage_hold.hpp"

namespace pollscale::model {

inline constexpr int model_schema_version = 1;
/// model.json's `kind`; files written before every output carried one say "pollscale model set".
inline constexpr const char* model_kind = "model";
inline constexpr double not_available = std::numeric_limits<double>::quiet_NaN();

/// One term of a formula: a basis times a fitted coefficient.
struct term {
  basis b;
  std::string name;     ///< basis_name(b)
  std::string meaning;  ///< basis_meaning(b)
  std::string unit;     ///< unit of the coefficient, e.g. "ns/fd"
  double coefficient = 0;
  double ci95_lo = not_available;  ///< 95% interval (Student t); NaN when df = 0
  double ci95_hi = not_available;
  bool at_bound = false;    ///< held at 0 by the non-negativity constraint
  bool from_prior = false;  ///< the data cannot identify it: a prior sets it (working set)
};

struct fit_statistics {
  std::size_t n_points = 0;               ///< measured points (medians) the fit used
  std::size_t df = 0;                     ///< residual degrees of freedom: points - free coefficients
  double mape_in_sample = not_available;  ///< mean |ŷ-y|/y over the fitted points (fraction)
  double mape_loo = not_available;        ///< the same, each point predicted without itself
  /// Standard deviation of the relative residuals (y-ŷ)/ŷ, in-sample, df-corrected.
  double residual_spread = not_available;
  /// Relative spread of one new point around the model, used for prediction intervals:
  /// the larger of residual_spread and the LOO root-mean-square relative error.
  double sigma_rel = not_available;
  std::string method;  ///< e.g. "nnls+huber, weights 1/ŷ²"
};

/// The measured range of each regressor (training points only).
struct domain {
  double n_min = 0, n_max = 0;
  double k_min = 0, k_max = 0;
  double words_min = 0, words_max = 0;
};

/// A candidate form that model selection considered.
struct rival {
  std::string form;
  std::size_t n_terms = 0;
  double mape_loo = not_available;  ///< NaN when the form could not be scored
  std::string note;                 ///< why it was not scored or not chosen
};

struct cell_model {
  datasets::key cell;    ///< key columns; n_fds, n_active, active_pos, max_fd empty
  std::string platform;  ///< historical rows: the machine; "" for a calibration dataset
  std::string kernel;    ///< historical rows: the kernel or OS release
  std::string formula;   ///< e.g. "T(n,k) = fixed + per_fd·n + per_ready·k"
  /// Rates (1/s, 1/ms) are modelled through their reciprocal, the time per operation, so
  /// terms add up; coefficients are then in the reciprocal unit ("s", "ms").
  bool reciprocal = false;
  std::vector<term> terms;
  Eigen::MatrixXd covariance;  ///< of the coefficients, in the terms' order
  double t95 = not_available;  ///< Student t 0.975 quantile for stats.df
  fit_statistics stats;
  domain dom;
  std::string chosen_by;  ///< "leave-one-out + parsimony", "forced", ...
  std::vector<rival> rivals;
  /// Optional bootstrap (rows = replicates of the coefficients); empty when the analytic
  /// interval is used. Each replicate is paired with a resampled relative residual.
  Eigen::MatrixXd bootstrap;
  std::vector<double> bootstrap_residuals;
};

struct model_set {
  nlohmann::json context;            ///< the context block of the data the models were fitted on
  std::string source;                ///< the dataset directory or historical file fitted
  std::string statistic = "median";  ///< what the models predict: "median", "fastest" or "adjusted" (observations.hpp)
  std::vector<cell_model> cells;
  /// Cells left out of the fit, each "cell: reason" (only with fit_options::skip_unfittable).
  std::vector<std::string> skipped;
  /// The share of a point's movement between visits that the machine shared at that moment,
  /// from the fitted dataset's visits (datasets/simultaneous_drift.hpp): a drawn cost model
  /// moves its cells together by this much (studies/model_costs.hpp). None: historical
  /// tables, runs without visit times, model files written before it existed.
  std::optional<datasets::simultaneous_drift> drift;
  /// How single calls spread around their mean on the fitted machine (datasets/call_spread.hpp):
  /// a simulation driven by these models varies each call by it (sim/call_variation.hpp).
  /// None: historical tables, datasets without call_spread rows, older model files.
  std::optional<datasets::call_spread> call_spread;
  /// The serial stages the fitted dataset's CPU-scaling series show (stage_hold.hpp): how
  /// long one shared structure is held per operation, one thread at a time. A simulation of
  /// threads sharing one epoll instance charges its hold (studies/model_costs.hpp). Empty:
  /// no series wider than one CPU, historical tables, older model files.
  std::vector<stage_hold> serial_stages;
  /// The laws of the fitted dataset's CPU-scaling series, per experiment (cpu_scaling.hpp):
  /// `predict --cpus` answers from them. The serial_stages above are their serial stages in
  /// seconds. Empty: no scaling series, historical cost tables, older model files.
  std::vector<cpu_scaling_laws> cpu_scaling;
  /// How far simulations driven by these models landed from the fitted machine's live
  /// server, beyond their own spread (simulator_discrepancy.hpp; `pollscale fit` checks it
  /// with studies/simulator_check.hpp): a drawn simulation scales each replication's model
  /// costs together by it. None: no live-server rows, historical tables, older files, or
  /// fit --simulator-check off.
  std::optional<simulator_discrepancy> simulator_check;
  /// Where the fitted run's host kept its first two CPUs, and how much dearer the far
  /// placement made a cross-CPU wake-up (datasets/placement_states.hpp): a drawn simulation
  /// draws the placement of each replication and prices its cross-CPU costs in it
  /// (studies/model_costs.hpp). None: the placement did not move during the run (or was not
  /// read), historical tables, older model files.
  std::optional<datasets::placement_states> placement;
  /// How far the live server of another run of a host lands from a simulation fitted on one
  /// run, from the corpus of machines (between_runs.hpp; `pollscale fit --between-runs`): a
  /// drawn simulation moves each replication's machine, its model costs and the load
  /// generator, together by it. None: fit --between-runs none, no corpus file, historical
  /// tables, older model files.
  std::optional<between_runs_spread> between_runs;
  /// What each CPU beyond the narrowest series delivers on the corpus's machines
  /// (capacity_efficiency.hpp; `pollscale fit --capacity-efficiency`): every entry of
  /// cpu_scaling carries it (cpu_scaling_laws::efficiency), so that `predict --cpus` prices
  /// wider machines' capacity bound as `scale --from-cpus` does, and a simulated server on
  /// more CPUs than the fitted run had prices its CPUs by it (studies::width_pricing). None: fit
  /// --capacity-efficiency none, no corpus file, historical tables, older model files.
  std::optional<capacity_efficiency> efficiency;
};

}  // namespace pollscale::model
