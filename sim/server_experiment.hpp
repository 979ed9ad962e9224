// A simulation experiment: independent replications of the event-loop server, each with
// its own seed derived from the run's seed, until the 95% interval of the throughput is
// within the stopping rule's relative half-width (JMT's rule: 3% by default). Each
// replication drops the fixed warm-up; the figures reported are means over replications
// with Student t intervals. The warm-up is then checked Welch-style: MSER-5 on the
// replications' average throughput per time slice says how much of the measured span
// still looked like a transient (a fraction well above 0 means: raise the warm-up).
// Truncating each replication by its own MSER-5 point instead would select favourable
// stretches of stationary output and bias the estimates.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "sim/core/engine_stats.hpp"
#include "sim/core/output_analysis.hpp"
#include "sim/event_loop_server.hpp"

namespace pollscale::sim {

/// A mean over replications with its 95% interval.
struct estimate {
  double mean = 0;
  double ci95_lo = 0;
  double ci95_hi = 0;
};

struct experiment_result {
  std::size_t replications = 0;
  /// Each replication ran on its own draw of the costs (cost_draw): the estimates' intervals
  /// are then prediction intervals for one replication — where the answer may lie given the
  /// costs' uncertainty and the simulation's noise — not the mean's confidence interval.
  bool costs_drawn = false;
  bool converged = false;    ///< the stopping rule was met before max_replications
  bool interrupted = false;  ///< a stop request ended the run: the figures are the completed replications
  estimate throughput;       ///< replies per second
  estimate latency_mean_s;
  estimate latency_p50_s, latency_p90_s, latency_p99_s, latency_p999_s;
  estimate cpu_utilisation;  ///< mean busy fraction over CPUs
  std::vector<estimate> cpu_utilisation_per_cpu;
  /// The mean utilisation split by what it was spent on (cpu_use order): the means over
  /// replications of cpu_s / (cpus x measured span). Sums to about cpu_utilisation.mean
  /// (bursts queued at the span's end are counted when they start).
  std::array<double, cpu_use_count> cpu_share{};
  estimate calls_per_s;
  estimate events_per_call;
  double wakeups_per_s = 0;  ///< means over replications
  double futile_wakeups_per_s = 0;
  double overflows_per_s = 0;
  double keepalives_per_s = 0;
  /// The shared set's serial part (server_result::shared_set_busy, shared_set_wait_s):
  /// means over replications; 0 without one.
  double shared_set_busy = 0;
  double shared_set_wait_s = 0;
  /// Share of the measured span that MSER-5 finds transient in the replications' average
  /// throughput per slice (0: the fixed warm-up was long enough).
  double mser5_transient_fraction = 0;
  engine_stats engine;          ///< totals over every replication
  std::size_t model_bytes = 0;  ///< the largest replication's model state + event queue
};

/// Runs replications i = 0, 1, ... with seed derive_seed(options.seed, i). Throws
/// std::invalid_argument for bad input (see simulate_server and replicate), and `stopped`
/// when a stop request came before the first replication was complete.
experiment_result run_server_experiment(const server_config& config, const workload& load, const cost_model& costs,
                                        const run_options& options, const stopping_rule& rule);

/// Replication i's costs, drawn with `seed` (derived from the run's seed and i): how a cost
/// model's uncertainty enters the answer (studies/model_costs.hpp draws from a fitted
/// model's intervals). Must be deterministic in its seed.
using cost_draw = std::function<cost_model(std::uint64_t seed)>;

/// The same with each replication on its own cost draw; the result's intervals are
/// prediction intervals (costs_drawn). Set the rule's spread_replications: a spread does
/// not shrink with more replications the way a mean's half-width does.
experiment_result run_server_experiment(const server_config& config, const workload& load, const cost_draw& draw,
                                        const run_options& options, const stopping_rule& rule);

/// The result as JSON (docs/architecture.md, "Data between the stages"): throughput, latency_s {p50, p90,
/// p99, p999, mean}, cpu_utilisation {mean, ci95_lo, ci95_hi, per_cpu, by_use {wait_calls, rescans,
/// overflow_polls, rearms, handlers}}, calls_per_s,
/// events_per_call, each estimate as {mean, ci95_lo, ci95_hi}; replications, converged;
/// counters; and the engine block; "intervals": "mean" (the mean over replications' confidence
/// interval) or "replication" (costs drawn: where one replication's answer lies); "interrupted": true when a stop
/// request cut the run short. `with_timing` adds the host-dependent engine figures (events_per_s, sim_s_per_wall_s,
/// peak_rss_bytes), which differ from run to run.
nlohmann::json to_json(const experiment_result& r, bool with_timing);

}  // namespace pollscale::sim
