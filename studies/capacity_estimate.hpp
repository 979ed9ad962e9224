// Capacity in closed form: the largest load at which the server's estimate
// (sim/server_estimate.hpp) meets the targets, found by bisection in microseconds a step
// instead of simulated seconds. With a model's cost draws, the same search on each draw
// gives the capacity's own 95% interval: where the answer lies as far as the model's
// uncertainty goes. `capacity` prints it first and beside the simulated search, which
// confirms it (or, with --analytic, stands in for it).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "sim/costs.hpp"
#include "sim/server_estimate.hpp"
#include "sim/server_experiment.hpp"
#include "studies/binding_resource.hpp"
#include "studies/capacity_search.hpp"

namespace pollscale::studies {

/// The server and workload at one value of the searched quantity.
using capacity_setup = std::function<std::pair<sim::server_config, sim::workload>(double value)>;

struct capacity_estimate {
  /// Why there is no estimate (the configuration is not covered); empty otherwise.
  std::string not_covered;
  std::optional<double> capacity;  ///< on the predicted costs; empty when lo misses
  bool at_hi = false;              ///< hi meets the targets: the search limit
  /// The capacity's 2.5% and 97.5% points over the cost draws (a draw whose lo misses
  /// counts as lo; one at hi as hi); empty without draws.
  std::optional<double> ci95_lo, ci95_hi;
  std::size_t draws = 0;
  /// Past the capacity (the bracket's missing end): what ran out there.
  std::optional<resource> ran_out;
  std::optional<double> missed_at;
  sim::server_estimate figures;  ///< the estimate at the capacity, or at lo when even lo misses
  sim::server_estimate past;     ///< the estimate at missed_at
};

/// Cost draws the interval takes (each a full search; about a millisecond each).
inline constexpr std::size_t capacity_estimate_draws = 100;

/// Searches `range` on `predicted` and, when `draw` is set, on capacity_estimate_draws of
/// its draws (seeds derived from `seed`). Throws std::invalid_argument as estimate_server.
capacity_estimate estimate_capacity(const capacity_setup& setup, const sim::cost_model& predicted,
                                    const sim::cost_draw& draw, std::uint64_t seed, const capacity_search_range& range,
                                    const capacity_targets& targets);

/// The estimate's figures where a simulation's are expected (means only, no interval):
/// what binding_resource() reads.
sim::experiment_result as_result(const sim::server_estimate& e);

}  // namespace pollscale::studies
