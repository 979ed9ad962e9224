// Where a simulation's costs come from: a fitted model.json (studies/model_costs.hpp, the
// only place a model's predictions become the simulator's costs), a costs file, or flags,
// in increasing order of precedence, each cost on its own. Shared by simulate (and
// whatif/capacity).
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

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

}  // namespace pollscale::app
