// The public face of model/: load a fitted model.json and ask it what one operation
// costs at a point nobody measured. sim/ and app/ use only this header; how the models
// were chosen and fitted stays inside model/.
//
//   const auto models = pollscale::model::load_model("model.json");
//   datasets::key q;  q.scenario = "find_active"; q.mechanism = "poll";
//   q.fd_kind = "pipe"; q.metric = "time_per_call"; q.n_fds = 100000; q.n_active = 1;
//   const auto p = pollscale::model::predict(models, q);   // p.value, p.lo, p.hi in p.unit
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "datasets/schema.hpp"
#include "model/model_set.hpp"

namespace pollscale::model {

/// What a model says about one query point.
struct prediction {
  double value = 0;  ///< the predicted median of one operation, in `unit` (> 0)
  /// 95% prediction interval for a new measurement's median at this point, in `unit`.
  /// Both are NaN when `has_interval` is false; `no_interval` then says why (a fit with no
  /// residual degrees of freedom, or a point further past the data than the data spans).
  double lo = 0;
  double hi = 0;
  bool has_interval = false;
  std::string no_interval;
  std::string unit;  ///< the unit of the data the model was fitted on (e.g. "ns", "1/s")
  /// True when n_fds or n_active (or max_fd, for select) lies outside the measured range,
  /// even if the chosen form does not use it: flatness there is untested.
  bool extrapolated = false;
  /// Query n_fds divided by the largest measured n_fds (1 when the data had no n_fds).
  double extrapolation_factor = 1;
  std::string formula;  ///< the chosen form, e.g. "fixed + per_fd·n + working_set·n·Δlat(n·B)"
  std::string model;    ///< which fitted cell answered, as datasets::describe() writes it
};

/// Reads and checks a model.json written by save_model / `pollscale fit`. Throws
/// datasets::input_error ("path: what") when the file is missing, not JSON, of another
/// schema version, or has a model whose terms, coefficients or covariance are malformed.
model_set load_model(const std::filesystem::path& path);

/// Which fitted cell answers a query: one, none or several — a value, not an exception,
/// because callers ask for cells that may not exist (the simulator's cost adapter tries
/// the handler, then ipc; a study asks every fd kind).
struct cell_lookup {
  const cell_model* model = nullptr;            ///< the one cell that matches, or null
  std::vector<const cell_model*> ambiguous;     ///< several match: all of them
  std::vector<const cell_model*> nearest;       ///< none matches: those differing in fewest columns (at most 5)
  std::vector<std::string> nearest_difference;  ///< for each of nearest: "fd_kind pipe", "mechanism poll, variant lt"
  /// One line when `model` is null: "no model matches Q; nearest: A (fd_kind pipe), ..."
  /// or "3 models match Q; choose by fd_kind (eventfd, pipe)".
  std::string why(const datasets::key& query) const;
};

/// A text column of a query set to this matches only cells where that column is empty: the
/// plain blocking-read wake-up has no mechanism, poll has no variant. Messages that list
/// a column's values write an empty one this way too, so what they print can be typed back.
inline constexpr std::string_view empty_column = "none";

/// The cell that answers `query`. Key columns left empty in `query` (variant, pinning,
/// threads, ...) match any model; filled ones must match exactly (empty_column: be empty).
/// One exception: a timeout-0 call (time_per_call) asked without threads, where cells of
/// one and of two threads match, is the single-threaded process's (threads=1); a query
/// with threads 2 asks for the call in a process of two threads.
cell_lookup find_cell(const model_set& models, const datasets::key& query);

/// Predicts the metric at `query` (the cell find_cell() gives). Regressors come from
/// `query.n_fds`, `n_active` (default 1), `active_pos` (default: random positions) and
/// `max_fd` (default: n_fds + 2). Throws std::invalid_argument with a one-line message
/// when no model matches (naming the nearest cells), when several match (naming the
/// columns that would tell them apart), or when a regressor the model needs is missing
/// or negative.
prediction predict(const model_set& models, const datasets::key& query);

/// The same without exceptions: nullopt, with the reason in `why` when given, where
/// predict() would throw.
std::optional<prediction> try_predict(const model_set& models, const datasets::key& query, std::string* why = nullptr);

/// A historical model set holds one cell per machine for each key: the cells of the machine
/// named by `platform` and `kernel` (exact text, as `pollscale cells` prints it; an empty one
/// selects nothing). Throws std::invalid_argument naming the text when no cell is of it.
model_set of_machine(model_set models, const std::string& platform, const std::string& kernel);

/// The cells of `models` that `query` matches (the candidates predict() chooses among).
std::vector<const cell_model*> matching_models(const model_set& models, const datasets::key& query);

/// `p.value` (and lo, hi) converted to seconds for a time unit, or to 1/s for a rate
/// (datasets::to_si_factor). Throws std::invalid_argument for other units.
prediction to_si(const prediction& p);

}  // namespace pollscale::model
