// Where epoll's wait becomes cheaper than poll's, by the fitted model: at any n, not only at
// the n the calibration measured (app/report/verdict.hpp answers from the measured points).
// Each n of a log grid asks both cells (find_active over pipes, 1 ready in the middle,
// timeout 0) for the predicted median and its 95% prediction interval. The crossover is the
// n from which epoll's median stays below poll's; its interval is the stretch where the two
// predictions' intervals overlap around it: poll clearly cheaper up to its lower end, epoll
// clearly cheaper at its upper end. Past the measured n that stretch is the model's
// extrapolation, and widens as the intervals do.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "datasets/vocabulary.hpp"
#include "model/model_set.hpp"

namespace pollscale::app::study {

/// The one find_active cell over pipes with timeout 0 of mechanism `m` (variant `v`, none
/// when absent), on one CPU, fitted on this machine: the wait call every mechanism does
/// alike. Null when there is none or more than one.
const model::cell_model* pipe_wait_cell(const model::model_set& models, datasets::mechanism m,
                                        std::optional<datasets::variant> v);

/// The query of `cell` at n descriptors with 1 ready in the middle: the wait call the
/// verdict, the fitted curves and the predictions past the limit ask the model about.
datasets::key one_ready_at(const datasets::key& cell, std::int64_t n);

/// Whole numbers from 1 to `n_max`, about `per_decade` to a decade (fewer where rounding
/// makes neighbours equal), ascending and distinct: the n at which a curve is asked.
std::vector<double> log_grid(double n_max, int per_decade);

struct model_crossover {
  double n = 0;  ///< from this grid n on, epoll's predicted median stays below poll's
  /// The largest grid n below `n` at which poll's interval lies wholly below epoll's; absent
  /// when the intervals already overlap at the grid's first n.
  std::optional<double> poll_clear_up_to;
  /// The smallest grid n from `n` on at which epoll's interval lies wholly below poll's;
  /// absent when that never happens on the grid.
  std::optional<double> epoll_clear_from;
  double measured_n_max = 0;  ///< the smaller of the two cells' largest measured n
  std::string poll_cell, epoll_cell;
};

/// The grid: about 40 n per decade from 1 to `n_max` (whole numbers). None when either cell
/// is missing or ambiguous, or epoll's median is not below poll's at `n_max`.
std::optional<model_crossover> predicted_crossover(const model::model_set& models, double n_max = 1e6);

/// The verdict's line (Markdown, one list item) for predicted_crossover(models, n_max); a line
/// saying so when there is none but both cells exist; "" when the model has no such cells.
std::string crossover_verdict(const model::model_set& models, double n_max = 1e6);

}  // namespace pollscale::app::study
