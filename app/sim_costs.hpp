// Where a simulation's costs come from: a fitted model.json (through model/prediction.hpp,
// the only place app/ joins model/ to sim/), a costs file, or flags, in increasing order
// of precedence, each cost on its own. Shared by simulate (and whatif/capacity).
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/costs.hpp"

namespace pollscale::app {

/// --model, --costs, --fd-kind, --variant and the per-cost flags.
boost::program_options::options_description sim_cost_options_description();

/// What the model was asked and how far it had to extrapolate; filled as the simulation
/// asks questions (the cost model's callables update it), so read it after the run.
struct cost_provenance {
  nlohmann::json sources = nlohmann::json::object();  ///< per cost: "flag", "costs file", "model"
  double max_extrapolation = 1;                       ///< largest n / largest measured n among model answers
  std::size_t model_questions = 0;
};

/// Builds the cost model of `mechanism` from the parsed flags. Throws usage_error naming
/// the flag or the missing cost (e.g. "no handler cost: give --handler-ns, --costs or a
/// model with a handler or ipc tcp cell"); model load errors propagate as datasets::input_error.
sim::cost_model sim_costs_from(const boost::program_options::variables_map& vm, const std::string& mechanism,
                               const std::shared_ptr<cost_provenance>& provenance);

}  // namespace pollscale::app
