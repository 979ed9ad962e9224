#include "sim/server_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "datasets/vocabulary.hpp"

namespace pollscale::sim {

namespace {

// The mean's confidence interval, or with drawn costs the interval one replication's
// answer falls in (prediction_interval).
// Drawn costs move an answer by factors (a cost 1.5x dearer, a throughput 1.5x lower), so
// its interval is taken on the logarithms when every value is positive: never below 0, and
// as skewed as the answers are. Its centre, the geometric mean, is then the answer: the
// arithmetic mean of a throughput (1/cost) over draws is pulled up by the draws where every
// cost is cheap together, and would sit off the centre of its own interval.
// `strata`: each replication's machine state when its costs were drawn in one of a few
// (cost_model::cross_cpu_factor, the placement of the CPUs); empty or all one: none.
estimate estimate_of(const std::vector<double>& values, bool drawn, const std::vector<int>& strata = {}) {
  if (drawn && values.size() >= 2 && std::all_of(values.begin(), values.end(), [](double v) { return v > 0; })) {
    std::vector<double> logs(values.size());
    std::transform(values.begin(), values.end(), logs.begin(), [](double v) { return std::log(v); });
    const interval l =
        strata.size() == logs.size() ? stratified_prediction_interval(logs, strata) : prediction_interval(logs);
    return {std::exp(l.mean), std::exp(l.lo), std::exp(l.hi)};
  }
  const interval i = drawn ? prediction_interval(values) : t_interval(values);
  // Some draws at zero (no reply in a run): the quantities reported are never negative.
  if (drawn && values.size() >= 2 && std::all_of(values.begin(), values.end(), [](double v) { return v >= 0; }))
    return {i.mean, std::max(0.0, i.lo), i.hi};
  // One replication (max_replications = 1) has no interval: report the value alone.
  if (values.size() < 2) return {i.mean, i.mean, i.mean};
  return {i.mean, i.lo, i.hi};
}

// The stream of a replication's seed its cost draw comes from (its events use the seed itself).
constexpr std::uint64_t cost_draw_stream = 0xc057d7a3;

double mean_of(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Per-metric values of every replication so far.
struct series {
  std::vector<double> latency_mean, p50, p90, p99, p999, cpu, calls, epc;
  /// Each replication's machine state (estimate_of's strata), numbered in order of first
  /// appearance of its cross_cpu_factor.
  std::vector<int> stratum;
  std::vector<double> factors;
  std::vector<std::vector<double>> per_cpu;
  std::vector<double> wakeups, futile, overflows, keepalives, set_busy, set_wait;
  std::array<double, cpu_use_count> share_sum{};  // cpu_s / (cpus x span), summed over replications
  std::vector<double> slice_sum;                  // throughput per time slice, summed over replications
};

// Welch's check of the warm-up: MSER-5 on the across-replication average of the slices.
double transient_fraction(const series& s, std::size_t replications) {
  if (s.slice_sum.empty() || replications == 0) return 0;
  std::vector<double> mean = s.slice_sum;
  for (double& v : mean) v /= static_cast<double>(replications);
  return static_cast<double>(mser5_truncation(mean)) / static_cast<double>(mean.size());
}

// Replications until the rule holds; replication i runs on draw(seed of i's draw stream),
// and `drawn` says whether those differ (the intervals are then prediction intervals).
experiment_result run_replications(const server_config& config, const workload& load, const cost_draw& draw, bool drawn,
                                   const run_options& options, const stopping_rule& rule) {
  series s;
  s.per_cpu.resize(static_cast<std::size_t>(config.cpus));
  std::uint64_t events = 0;
  std::size_t bytes = 0;
  const wall_stopwatch clock;
  const auto one = [&](std::size_t i) {
    run_options o = options;
    o.seed = derive_seed(options.seed, i);
    const cost_model costs = draw(derive_seed(o.seed, cost_draw_stream));
    const auto known = std::find(s.factors.begin(), s.factors.end(), costs.cross_cpu_factor);
    s.stratum.push_back(static_cast<int>(known - s.factors.begin()));
    if (known == s.factors.end()) s.factors.push_back(costs.cross_cpu_factor);
    const server_result r = simulate_server(config, load, costs, o);
    s.slice_sum.resize(r.slice_throughput.size(), 0.0);
    for (std::size_t k = 0; k < r.slice_throughput.size(); ++k) s.slice_sum[k] += r.slice_throughput[k];
    s.latency_mean.push_back(r.mean_latency_s);
    s.p50.push_back(r.latency.quantile(0.5));
    s.p90.push_back(r.latency.quantile(0.9));
    s.p99.push_back(r.latency.quantile(0.99));
    s.p999.push_back(r.latency.quantile(0.999));
    double cpu_sum = 0;
    for (std::size_t c = 0; c < r.cpu_utilisation.size(); ++c) {
      s.per_cpu[c].push_back(r.cpu_utilisation[c]);
      cpu_sum += r.cpu_utilisation[c];
    }
    s.cpu.push_back(cpu_sum / static_cast<double>(r.cpu_utilisation.size()));
    const double capacity_s = static_cast<double>(r.cpu_utilisation.size()) * r.measured_s;
    for (std::size_t u = 0; u < cpu_use_count; ++u) s.share_sum[u] += r.cpu_s[u] / capacity_s;
    s.calls.push_back(r.calls_per_s);
    s.epc.push_back(r.events_per_call);
    s.wakeups.push_back(static_cast<double>(r.wakeups) / r.measured_s);
    s.futile.push_back(static_cast<double>(r.futile_wakeups) / r.measured_s);
    s.overflows.push_back(static_cast<double>(r.overflows) / r.measured_s);
    s.keepalives.push_back(static_cast<double>(r.keepalives) / r.measured_s);
    s.set_busy.push_back(r.shared_set_busy);
    s.set_wait.push_back(r.shared_set_wait_s);
    events += r.events;
    bytes = std::max(bytes, r.model_bytes);
    return r.throughput;
  };
  const replication_run run = replicate(rule, one);
  experiment_result x;
  x.replications = run.values.size();
  x.costs_drawn = drawn;
  x.converged = run.converged;
  x.interrupted = run.stopped;
  x.throughput = estimate_of(run.values, drawn, s.stratum);
  x.latency_mean_s = estimate_of(s.latency_mean, drawn, s.stratum);
  x.latency_p50_s = estimate_of(s.p50, drawn, s.stratum);
  x.latency_p90_s = estimate_of(s.p90, drawn, s.stratum);
  x.latency_p99_s = estimate_of(s.p99, drawn, s.stratum);
  x.latency_p999_s = estimate_of(s.p999, drawn, s.stratum);
  // A busy fraction's interval (on logarithms when drawn) stops at 1.
  const auto busy = [drawn, &s](const std::vector<double>& v) {
    estimate e = estimate_of(v, drawn, s.stratum);
    e.ci95_hi = std::min(e.ci95_hi, 1.0);
    return e;
  };
  x.cpu_utilisation = busy(s.cpu);
  for (const auto& v : s.per_cpu) x.cpu_utilisation_per_cpu.push_back(busy(v));
  for (std::size_t u = 0; u < cpu_use_count; ++u)
    x.cpu_share[u] = x.replications ? s.share_sum[u] / static_cast<double>(x.replications) : 0;
  x.calls_per_s = estimate_of(s.calls, drawn, s.stratum);
  x.events_per_call = estimate_of(s.epc, drawn, s.stratum);
  x.wakeups_per_s = mean_of(s.wakeups);
  x.futile_wakeups_per_s = mean_of(s.futile);
  x.overflows_per_s = mean_of(s.overflows);
  x.keepalives_per_s = mean_of(s.keepalives);
  x.shared_set_busy = mean_of(s.set_busy);
  x.shared_set_wait_s = mean_of(s.set_wait);
  x.mser5_transient_fraction = transient_fraction(s, x.replications);
  const double simulated = static_cast<double>(x.replications) * (options.warmup_s + options.duration_s);
  x.engine = make_engine_stats(events, simulated, clock.elapsed_s());
  x.model_bytes = bytes;
  return x;
}

}  // namespace

experiment_result run_server_experiment(const server_config& config, const workload& load, const cost_model& costs,
                                        const run_options& options, const stopping_rule& rule) {
  return run_replications(
      config, load, [&costs](std::uint64_t) { return costs; }, false, options, rule);
}

experiment_result run_server_experiment(const server_config& config, const workload& load, const cost_draw& draw,
                                        const run_options& options, const stopping_rule& rule) {
  return run_replications(config, load, draw, true, options, rule);
}

namespace {

nlohmann::json to_json(const estimate& e) { return {{"mean", e.mean}, {"ci95_lo", e.ci95_lo}, {"ci95_hi", e.ci95_hi}}; }

}  // namespace

nlohmann::json to_json(const experiment_result& r, bool with_timing) {
  nlohmann::json j;
  j["replications"] = r.replications;
  j["intervals"] = r.costs_drawn ? "replication" : "mean";
  j["converged"] = r.converged;
  if (r.interrupted) j["interrupted"] = true;
  j[datasets::text(datasets::metric::throughput)] = to_json(r.throughput);
  j["latency_s"] = {{"p50", to_json(r.latency_p50_s)},
                    {"p90", to_json(r.latency_p90_s)},
                    {"p99", to_json(r.latency_p99_s)},
                    {"p999", to_json(r.latency_p999_s)},
                    {"mean", to_json(r.latency_mean_s)}};
  nlohmann::json cpu = to_json(r.cpu_utilisation);
  cpu["per_cpu"] = nlohmann::json::array();
  for (const estimate& e : r.cpu_utilisation_per_cpu) cpu["per_cpu"].push_back(to_json(e));
  for (const cpu_use u : cpu_uses())
    cpu["by_use"][std::string(to_string(u))] = r.cpu_share[static_cast<std::size_t>(u)];
  j["cpu_utilisation"] = cpu;
  j["calls_per_s"] = to_json(r.calls_per_s);
  j["events_per_call"] = to_json(r.events_per_call);
  j["wakeups_per_s"] = r.wakeups_per_s;
  j["futile_wakeups_per_s"] = r.futile_wakeups_per_s;
  j["overflows_per_s"] = r.overflows_per_s;
  j["keepalives_per_s"] = r.keepalives_per_s;
  j["shared_set"] = {{"busy", r.shared_set_busy}, {"wait_s", r.shared_set_wait_s}};
  j["mser5_transient_fraction"] = r.mser5_transient_fraction;
  nlohmann::json engine = {
      {"events", r.engine.events}, {"simulated_s", r.engine.simulated_s}, {"model_bytes", r.model_bytes}};
  if (with_timing) {
    engine["wall_s"] = r.engine.wall_s;
    engine["events_per_s"] = r.engine.events_per_s;
    engine["sim_s_per_wall_s"] = r.engine.sim_s_per_wall_s;
    engine["peak_rss_bytes"] = r.engine.peak_rss_bytes;
  }
  j["engine"] = engine;
  return j;
}

}  // namespace pollscale::sim
