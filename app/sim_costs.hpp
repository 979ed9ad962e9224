// Where a simulation's costs come from: a fitted model.json (studies/model_costs.hpp, the
// only place a model's predictions become the simulator's costs), a costs file, or flags,
// in increasing order of precedence, each cost on its own. Shared by simulate (and
// whatif/capacity).
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/server_experiment.hpp"

#include "sim/costs.hpp"
#include "studies/model_costs.hpp"

namespace pollscale::app {

/// --model, --costs, --fd-kind, --variant and the per-cost flags.
boost::program_options::options_description sim_cost_options_description();

/// Where each cost came from (studies/model_costs.hpp).
using studies::cost_provenance;

/// Builds the cost model of `mechanism` from the parsed flags. Throws usage_error naming
/// the flag or the missing cost (e.g. "no handler cost: give --handler-ns, --costs or a
/// model with a handler or ipc tcp cell"); model load errors propagate as datasets::input_error.
/// `bound` picks which value of each model answer is used (flags and costs files are exact).
sim::cost_model sim_costs_from(const boost::program_options::variables_map& vm, const std::string& mechanism,
                               const std::shared_ptr<cost_provenance>& provenance,
                               studies::cost_bound bound = studies::cost_bound::predicted);

/// The same with `models` (already read, perhaps changed or swapped) in place of --model's
/// file; null: no model.
sim::cost_model sim_costs_from(const boost::program_options::variables_map& vm, const std::string& mechanism,
                               std::shared_ptr<const model::model_set> models,
                               const std::shared_ptr<cost_provenance>& provenance, studies::cost_bound bound);

/// Wait-cost flags (--wait-*) give every mechanism the same wait cost: a usage_error when
/// `mechanisms` > 1, since comparing mechanisms then needs --costs or --model.
void refuse_shared_wait_flags(const boost::program_options::variables_map& vm, std::size_t mechanisms);

/// A simulation's costs: the predictions (with the flags and costs file over them), and,
/// when a model gives costs and --model-uncertainty is draw (the default), each
/// replication's own draw from the model's 95% intervals (studies::cost_bound::drawn), so
/// that the answer's interval carries the model's uncertainty.
struct sim_costs {
  sim::cost_model predicted;
  sim::cost_draw draw;  ///< empty: every replication runs on `predicted`
};

/// The model is read once; errors as sim_costs_from().
sim_costs sim_costs_for(const boost::program_options::variables_map& vm, const std::string& mechanism,
                        const std::shared_ptr<cost_provenance>& provenance);

/// The same with `models` (already read, perhaps changed: studies/model_change.hpp) in place
/// of --model's file; null: no model.
sim_costs sim_costs_for(const boost::program_options::variables_map& vm, const std::string& mechanism,
                        const std::shared_ptr<cost_provenance>& provenance,
                        std::shared_ptr<const model::model_set> models);

/// --model's file, read; null without --model.
std::shared_ptr<const model::model_set> model_from(const boost::program_options::variables_map& vm);

/// Replications a run with drawn costs takes (unless --min-replications asks for more): its
/// interval is the spread of one replication's answer, whose 2.5% and 97.5% points a t
/// prediction interval over 20 draws estimates to within about a fifth of its width.
inline constexpr std::size_t draw_replications = 20;

}  // namespace pollscale::app
