// Capacity by simulation: the largest value of one workload quantity (idle connections,
// active clients, request rate) at which the simulated server still meets its targets,
// found by bisection, and which mechanism to use when several were searched. A target
// counts as met only when the upper end of its 95% interval meets it, so the answer errs on
// the safe side; with a model's cost draws each replication runs on its own draw, so that
// interval is where one run's answer lies. The caller runs every evaluation with the same
// seed (common random numbers, the same cost draws too), which keeps the search monotone in
// practice. The closed-form search beside it is capacity_estimate.hpp.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/server_estimate.hpp"
#include "sim/server_experiment.hpp"
#include "studies/binding_resource.hpp"

namespace pollscale::studies {

/// The targets: p99 and mean latency (s) and mean CPU utilisation (0..1), each optional.
struct capacity_targets {
  std::optional<double> p99_s, mean_s, cpu;
  /// The estimate at or below every target; a saturated server meets none.
  bool met(const sim::server_estimate& e) const { return missed(e).empty(); }
  /// The targets the estimate misses, by the same names (a saturated server: every one given).
  std::vector<std::string> missed(const sim::server_estimate& e) const;
  /// The upper end of each simulated quantity's 95% interval within its target.
  bool met(const sim::experiment_result& r) const { return missed(r).empty(); }
  /// The targets `r` misses, by their JSON names (max_p99_s, max_mean_latency_s,
  /// max_cpu_utilisation): at the first value past the capacity, the ones that bind.
  std::vector<std::string> missed(const sim::experiment_result& r) const;
};

struct capacity_search_range {
  double lo = 0, hi = 0;    ///< searched values, lo <= hi
  bool integer = true;      ///< the quantity is a count
  double tolerance = 0.02;  ///< stop when the bracket is within this fraction
};

struct capacity_evaluation {
  double value = 0;
  sim::experiment_result result;
  bool met = false;
};

struct capacity_search {
  std::optional<double> capacity;  ///< empty when even lo misses, or when interrupted
  bool at_hi = false;              ///< hi itself met the targets: the search limit, not the capacity
  std::vector<capacity_evaluation> evaluations;
  /// A stop request ended the search: the bracket known so far (a value that meets the
  /// targets, one that misses them; either may be unknown). An evaluation cut short is
  /// left out: its few replications cannot say whether the targets are met.
  bool interrupted = false;
  std::optional<double> meets, misses;

  /// The smallest value tried that misses the targets (what ran out just past the
  /// capacity); null when none missed.
  const capacity_evaluation* first_miss() const;
};

/// The simulated experiment at one value of the searched quantity. It may throw
/// sim::stopped (a stop request before any replication completed) or return an
/// interrupted result; either ends the search as interrupted.
using capacity_experiment = std::function<sim::experiment_result(double value)>;

/// Called after each evaluation (the app's progress line).
using capacity_progress = std::function<void(const capacity_evaluation&)>;

/// Bisection over `range`: lo first (none if it misses), then hi (the search limit if it
/// meets), then halves until the bracket is within the tolerance (or one, for counts).
capacity_search search_capacity(const capacity_experiment& experiment, const capacity_search_range& range,
                                const capacity_targets& targets, const capacity_progress& progress = {});

/// The resource that ran out at a missing evaluation: the CPU time's largest use, the
/// signal queue or latency (binding_resource.hpp); a missed CPU target names the CPU.
resource resource_at(const capacity_targets& targets, const capacity_evaluation& e);

/// One searched mechanism's answer, for recommend().
struct capacity_choice {
  std::string mechanism;
  std::optional<double> capacity;
  bool at_hi = false;
};

/// Which mechanism to use: the largest capacity, and by how much it leads the next (its
/// margin; a capacity at the search limit is a lower bound, and so is the margin then).
struct capacity_recommendation {
  std::optional<std::size_t> best, next;  ///< indices into the choices; best empty: none meets the targets
  double margin = 0;                      ///< best / next capacity; 0 without a runner-up
  bool within_tolerance = false;          ///< the two differ by less than the search resolves
};

capacity_recommendation recommend(std::span<const capacity_choice> choices, double tolerance);

}  // namespace pollscale::studies
