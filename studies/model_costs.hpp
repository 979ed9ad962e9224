// The simulator's costs from a fitted model: the one place a model's predictions become
// the cost functions sim/ runs on (sim/ never includes model/). Each cost is asked of the
// cells the calibration measures it in:
//   - the wait call: find_active time_per_call (timeout 0) over n fds with k ready, plus,
//     when the call may sleep, the wait-queue registration per fd scanned before the first
//     ready one (blocking time_per_op with the ready fd last minus first; else a blocking
//     round trip minus two timeout-0 passes); for rtsig, poll's call as its overflow scan;
//   - the handler: the handler cell (the peer on another CPU, else the same thread), else
//     one tcp message through AIM9's ipc;
//   - wake-ups: half the wakeup round trip, waker and sleeper on one CPU and on two.
// A cost the model has no cell for stays unset; the caller decides whether a file or a
// flag gives it or the question cannot be answered.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model_set.hpp"
#include "sim/costs.hpp"

namespace pollscale::studies {

/// What the model was asked and how far it had to extrapolate; filled as the simulation
/// asks questions (the cost model's callables update it), so read it after the run.
struct cost_provenance {
  nlohmann::json sources = nlohmann::json::object();  ///< per cost: "flag", "costs file", "model: ..."
  double max_extrapolation = 1;                       ///< largest n / largest measured n among model answers
  std::size_t model_questions = 0;
};

/// The cost components as cost_provenance names them.
namespace component {
inline constexpr const char* handler = "handler";  // vocabulary: a cost component, not the scenario
}  // namespace component

/// Which value of each model answer the simulator runs on: the prediction, or one end of its
/// 95% prediction interval — `dear` the end that makes the operation cost more (a time's
/// upper end, a rate's lower), `cheap` the other. An answer without an interval stays at
/// its prediction. Running a question at both ends brackets its answer by the model's
/// uncertainty (every cost at the same end together: an envelope, wider than the answer's
/// own interval would be).
enum class cost_bound { predicted, dear, cheap };

/// Which cells: the mechanism simulated, and the fd kind and variant to prefer ("" = any).
struct model_cost_query {
  std::string mechanism;
  std::string fd_kind;
  std::string variant;
  cost_bound bound = cost_bound::predicted;
};

/// The costs `models` give for the query (above). Sets prov->sources for each cost found;
/// the questions the simulation asks later are counted in prov as they happen. Throws
/// std::invalid_argument when the model has no timeout-0 wait call for the mechanism and
/// fd kind asked (model::predict's message names the nearest cells).
sim::cost_model costs_from_model(std::shared_ptr<const model::model_set> models, const model_cost_query& query,
                                 const std::shared_ptr<cost_provenance>& prov);

}  // namespace pollscale::studies
