// The simulator's costs from a fitted model: the one place a model's predictions become
// the cost functions sim/ runs on (sim/ never includes model/). Each cost is asked of the
// cells the calibration measures it in:
//   - the wait call: find_active time_per_call (timeout 0) over n fds with k ready, plus,
//     when the call may sleep, the wait-queue registration per fd scanned before the first
//     ready one (blocking time_per_op with the ready fd last minus first; else a blocking
//     round trip minus two timeout-0 passes); for rtsig, poll's call as its overflow scan;
//   - the handler: the handler cell (the peer on another CPU, else the same thread), else
//     one tcp message through AIM9's ipc;
//   - wake-ups: half the wakeup round trip, waker and sleeper on one CPU and on two;
//   - how single calls spread around those means: the model's call spread (call_spread rows),
//     which the simulator draws each wait call and handler from;
//   - the hold of one epoll instance that every thread waits on: the serial stage its
//     shared_epoll series showed (model.json serial_stages, model/stage_hold.hpp).
// A cost the model has no cell for stays unset; the caller decides whether a file or a
// flag gives it or the question cannot be answered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/model_set.hpp"
#include "sim/call_variation.hpp"
#include "sim/costs.hpp"

namespace pollscale::studies {

/// Which placement of the fitted host's two CPUs the cross-CPU costs are priced in, when the
/// model knows its placements (model_set::placement): `draw` one per drawn cost model (with
/// the shares the fitted run met; the predictions and interval ends stay in the usual one),
/// `usual` the one the fitted run spent most of its time in (the costs as measured), `near`
/// or `far` that one for every cost model.
enum class placement_choice { draw, usual, near, far };

/// "draw", "usual", "near", "far".
std::string_view name(placement_choice p);

/// Why `models` cannot price its costs in placement `p` ("placement far: the model knows one
/// placement ..."), or "" when it can: near and far need a model with placements.
std::string placement_unavailable(const model::model_set& models, placement_choice p);
/// The choice named `text`; throws std::invalid_argument naming it otherwise.
placement_choice parse_placement_choice(std::string_view text);

/// What the model was asked and how far it had to extrapolate; filled as the simulation
/// asks questions (the cost model's callables update it), so read it after the run.
struct cost_provenance {
  nlohmann::json sources = nlohmann::json::object();  ///< per cost: "flag", "costs file", "model: ..."
  double max_extrapolation = 1;                       ///< largest n / largest measured n among model answers
  std::size_t model_questions = 0;
  /// Cells of a drawn cost model (cost_bound::drawn) whose answers had no interval and so
  /// stayed at their prediction in every draw — uncertainty the answer's interval does not
  /// carry — each with why it had none.
  std::map<std::string, std::string> undrawn;
  /// Each replication runs on its own draw of the model's costs (set by whoever draws them).
  bool drawn = false;
  /// The correlation between any two cells' draws (cell_draw_z's `shared`); none when the
  /// model has no drift estimate and the cells are drawn independently.
  std::optional<double> draw_correlation;
  /// The simulator's discrepancy on the fitted machine (model_set::simulator_check): a drawn
  /// cost model scales each replication's model costs together by exp(log_sd·z). None: not
  /// drawn, or the model has no check.
  std::optional<model::simulator_discrepancy> simulator_discrepancy;
  /// The corpus's between-runs spread (model_set::between_runs): a drawn cost model moves each
  /// replication's machine — its model costs and the load generator's — by exp(log_sd·z).
  /// None: not drawn, or the model carries none.
  std::optional<model::between_runs_spread> between_runs;
  /// The corpus's capacity efficiency (model_set::efficiency) and the CPUs of the fitted run's
  /// machine: a server on more CPUs than that runs every CPU burst slower by it
  /// (sim::cpu_width_pricing), drawn per replication when the costs are. None: the model
  /// carries none, or its context says no CPU count.
  std::optional<model::capacity_efficiency> capacity_efficiency;
  int measured_cpus = 0;
  /// Where the fitted run's host kept its two CPUs (model_set::placement): each draw met one
  /// placement, and its cross-CPU costs (a wake-up across CPUs, a handler whose peer runs on
  /// the other CPU, the load generator's) were priced in it. None: not drawn, or the model
  /// has no placements.
  std::optional<datasets::placement_states> placement;
  placement_choice placement_asked = placement_choice::draw;  ///< how the placement was chosen
  std::size_t placement_draws = 0;                            ///< cost models priced in a placement
  std::size_t placement_far_draws = 0;                        ///< of those, the ones that met the far placement
  /// How each call was varied around its mean (model_set::call_spread); null: every call
  /// cost its mean (no spread in the model, or model_cost_query::vary_calls off).
  std::shared_ptr<const sim::call_variation> variation;
};

/// The cost components as cost_provenance names them.
namespace component {
inline constexpr const char* handler = "handler";  // vocabulary: a cost component, not the scenario
/// The serial part of each pass over a set every thread shares (sim::cost_model::shared_set_hold_s).
inline constexpr const char* shared_set_hold = "shared_set_hold";
}  // namespace component

/// Which value of each model answer the simulator runs on: the prediction, or one end of its
/// 95% prediction interval — `dear` the end that makes the operation cost more (a time's
/// upper end, a rate's lower), `cheap` the other. An answer without an interval stays at
/// its prediction. Running a question at both ends brackets its answer by the model's
/// uncertainty (every cost at the same end together: an envelope, wider than the answer's
/// own interval would be). `drawn`: each cell's answers at one random point of their
/// intervals (model_cost_query::draw_seed), a fresh point per draw — one replication's costs
/// when the simulator carries the model's uncertainty into its answer (sim::cost_draw).
enum class cost_bound { predicted, dear, cheap, drawn };

/// Which cells: the mechanism simulated, and the fd kind and variant to prefer ("" = any).
struct model_cost_query {
  std::string mechanism;
  std::string fd_kind;
  std::string variant;
  cost_bound bound = cost_bound::predicted;
  std::uint64_t draw_seed = 0;  ///< cost_bound::drawn: which draw (the same seed, the same costs)
  /// Vary each wait call and handler around its mean by the model's call spread, when it has
  /// one (sim/call_variation.hpp); off: every call costs its mean.
  bool vary_calls = true;
  /// The placement the cross-CPU costs are priced in (above). near or far of a model without
  /// placements: std::invalid_argument.
  placement_choice placement = placement_choice::draw;
};

/// One cell's draw: a standard normal variate determined by the draw's seed and the cell's
/// name, so every question one draw asks of a cell gets the same z (its whole curve moves, as
/// a refit on fresh measurements would move it). z = sqrt(shared)·m + sqrt(1 − shared)·e,
/// m the draw's one machine variate (the same for every cell) and e the cell's own: any two
/// cells' draws correlate by `shared`, the share of the points' movement the machine shared
/// while they were measured (model_set::drift; 0: independent cells). Precondition:
/// 0 <= shared <= 1.
double cell_draw_z(std::uint64_t draw_seed, const std::string& cell, double shared = 0);

/// The factor every model cost of one draw is scaled by for the simulator's discrepancy on
/// the fitted machine: exp(log_sd·z), z a standard normal of the draw's own (the same for
/// every cell, independent of the cells' draws); 1 when the model has no simulator_check.
/// A rate is divided by it (the operation it times is dearer by it).
double simulator_draw_factor(std::uint64_t draw_seed, const model::model_set& models);

/// The factor everything the machine of one draw runs is scaled by for the corpus's
/// between-runs spread (model::between_runs_spread): exp(log_sd·z), z a standard normal of the
/// draw's own (independent of the cells' draws, the simulator's discrepancy and the
/// placement); 1 when the model carries none. Its model costs carry it, and the load
/// generator's given costs (sim::cost_model::machine_factor). A rate is divided by it.
double machine_draw_factor(std::uint64_t draw_seed, const model::model_set& models);

/// How a server on more CPUs than the fitted run's machine prices each CPU (sim::cost_model's
/// width): the model's capacity efficiency, the fitted run's CPUs (its context's cpus_online),
/// and for a drawn cost model a standard normal of the draw's own (independent of the cells'
/// draws and the other factors; 0 when not drawn). Empty (measured_cpus 0) when the model
/// carries no efficiency or its context no CPU count.
sim::cpu_width_pricing width_pricing(std::uint64_t draw_seed, bool drawn, const model::model_set& models);

/// Whether one draw meets the far placement of the fitted run's host: with the probability
/// the run spent there (1 − near_share), from a variate of the draw's own (independent of
/// the cells' draws and the simulator's discrepancy). Precondition: 0 <= near_share <= 1.
bool placement_far_draw(std::uint64_t draw_seed, const datasets::placement_states& placement);

/// The factor a cross-CPU cost measured in the run's usual placement takes in the placement
/// a draw met: far_over_near into the far one from the near one, its inverse the other way,
/// 1 in the usual one.
double placement_factor(const datasets::placement_states& placement, bool far);

/// The answer `value` drawn at z from its 95% interval [lo, hi]: a two-piece log-normal whose
/// 2.5% and 97.5% points are lo and hi (costs vary by factors; an interval clamped at 0 takes
/// the upper side's spread on both sides). Precondition: 0 < value <= hi, finite.
double drawn_from_interval(double value, double lo, double hi, double z);

/// The costs `models` give for the query (above). Sets prov->sources for each cost found;
/// the questions the simulation asks later are counted in prov as they happen. Throws
/// std::invalid_argument when the model has no timeout-0 wait call for the mechanism and
/// fd kind asked (model::predict's message names the nearest cells).
sim::cost_model costs_from_model(std::shared_ptr<const model::model_set> models, const model_cost_query& query,
                                 const std::shared_ptr<cost_provenance>& prov);

}  // namespace pollscale::studies
