#include "studies/simulator_check.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <stdexcept>
#include <thread>
#include <utility>

#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"
#include "model/linear_fit.hpp"
#include "studies/model_costs.hpp"

namespace pollscale::studies {
namespace {

using datasets::metric;
using datasets::scenario;

// The probe's generator on CPU 1 keeps one request outstanding per client: per reply it
// reads the reply and sends the next request — the handler's cost as the simulator takes it
// for an epoll server over tcp (the handler cell, peer on the other CPU first, else AIM9's
// ipc) — and after a pause it is woken across CPUs first: that server's cross-CPU wake-up
// (half the epoll wakeup round trip between two CPUs). Both at the model's predictions.
struct generator_costs {
  double per_message_s = 0;
  double wakeup_s = 0;
};

std::optional<generator_costs> generator_from(const std::shared_ptr<const model::model_set>& models, std::string* why) {
  const model_cost_query query{datasets::text(datasets::mechanism::epoll), datasets::text(datasets::fd_kind::tcp),
                               datasets::text(datasets::variant::lt), cost_bound::predicted};
  try {
    const sim::cost_model c = costs_from_model(models, query, std::make_shared<cost_provenance>());
    if (c.handler_s > 0 && c.wakeup_cross_cpu_s > 0) return generator_costs{c.handler_s, c.wakeup_cross_cpu_s};
    if (why)
      *why = !(c.handler_s > 0) ? "the model has no handler or ipc tcp cell for the load generator"
                                : "the model has no cross-CPU epoll wakeup cell for the load generator";
  } catch (const std::invalid_argument& e) {
    if (why) *why = std::string("the model gives no costs for the load generator (") + e.what() + ")";
  }
  return std::nullopt;
}

bool checked_row_of(const model::observation& o, const simulator_check_options& options) {
  const datasets::key& k = o.k;
  const bool variant_ok = k.variant.empty() || k.variant == datasets::text(datasets::variant::lt);
  return k.scenario == datasets::name(scenario::server) && k.metric == datasets::name(metric::throughput) &&
         k.pinning == datasets::pinning::pair(0, 1).text() && variant_ok && k.n_fds && k.n_active && *k.n_active >= 1 &&
         *k.n_fds >= 0 &&
         std::find(options.mechanisms.begin(), options.mechanisms.end(), k.mechanism) != options.mechanisms.end();
}

// One row simulated: the probe's server on 2 CPUs with each replication on its own draw.
sim::experiment_result simulate_row(const model::observation& o, const std::shared_ptr<const model::model_set>& models,
                                    const generator_costs& g, const simulator_check_options& options) {
  sim::server_config config = sim::default_server_config(o.k.mechanism);
  config.cpus = 2;
  config.threads = 1;
  config.irq_cpu = 1;
  config.active_pos = sim::ready_position::last;
  sim::workload load;
  load.idle = *o.k.n_fds;
  load.active = *o.k.n_active;
  load.generator =
      sim::load_generator{sim::distribution::constant(g.per_message_s), sim::distribution::constant(g.wakeup_s)};
  sim::run_options run;
  run.duration_s = options.duration_s;
  run.warmup_s = options.duration_s / 10;
  run.seed = options.seed;
  sim::stopping_rule rule;
  rule.min_replications = rule.spread_replications = 20;
  rule.max_replications = 30;
  model_cost_query query{o.k.mechanism, datasets::text(datasets::fd_kind::tcp), o.k.variant, cost_bound::drawn};
  const sim::cost_draw draw = [models, query](std::uint64_t seed) {
    model_cost_query q = query;
    q.draw_seed = seed;
    return costs_from_model(models, q, std::make_shared<cost_provenance>());
  };
  return sim::run_server_experiment(config, load, draw, run, rule);
}

// A drawn run's 95% interval of one replication as an sd of log(replies/s): half its log
// width over the t prediction quantile of that many draws.
double log_spread(const sim::estimate& e, std::size_t draws) {
  if (draws < 2 || !(e.mean > 0) || !(e.ci95_hi > e.mean)) return 0;
  const double t = model::t975(static_cast<double>(draws) - 1) * std::sqrt(1 + 1.0 / static_cast<double>(draws));
  const double width = e.ci95_lo > 0 ? std::log(e.ci95_hi / e.ci95_lo) / 2 : std::log(e.ci95_hi / e.mean);
  return width / t;
}

// One row's run, or why it could not be simulated (no cost for its mechanism).
struct row_run {
  sim::experiment_result result;
  std::string skipped;
};

// The rows simulated on every CPU at once (each row's run is seeded on its own, so the
// results do not depend on how the rows are shared out); a stop request rethrows here.
std::vector<row_run> simulate_rows(const std::vector<const model::observation*>& rows,
                                   const std::shared_ptr<const model::model_set>& models, const generator_costs& g,
                                   const simulator_check_options& options) {
  std::vector<row_run> out(rows.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < rows.size(); i = next++) try {
        out[i].result = simulate_row(*rows[i], models, g, options);
      } catch (const std::invalid_argument& e) {
        out[i].skipped = rows[i]->k.mechanism + ": " + e.what();
      }
  };
  const std::size_t workers = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, rows.size());
  std::vector<std::future<void>> running;
  for (std::size_t w = 1; w < workers; ++w) running.push_back(std::async(std::launch::async, worker));
  worker();
  for (auto& f : running) f.get();  // a worker's sim::stopped comes out here
  return out;
}

void skip(std::vector<std::string>& skipped, const std::string& note) {
  if (std::find(skipped.begin(), skipped.end(), note) == skipped.end()) skipped.push_back(note);
}

}  // namespace

simulator_check_options default_simulator_check_options() {
  simulator_check_options o;
  o.mechanisms = {datasets::text(datasets::mechanism::poll), datasets::text(datasets::mechanism::epoll)};
  return o;
}

std::optional<simulator_check> check_simulator(const model::observation_set& data,
                                               std::shared_ptr<const model::model_set> models,
                                               const simulator_check_options& options, std::string* why) {
  std::vector<const model::observation*> rows;
  for (const auto& o : data.rows)
    if (checked_row_of(o, options) && std::isfinite(o.value) && o.value > 0) rows.push_back(&o);
  if (rows.empty()) {
    if (why)
      *why = "no live-server throughput rows at pinning 0+1 for " + std::to_string(options.mechanisms.size()) +
             " mechanism(s)";
    return std::nullopt;
  }
  auto own = std::make_shared<model::model_set>(*models);
  own->simulator_check.reset();  // the check is of the model's costs alone
  const std::shared_ptr<const model::model_set> checked = own;
  const auto g = generator_from(checked, why);
  if (!g) return std::nullopt;
  simulator_check out;
  out.generator_per_message_s = g->per_message_s;
  out.generator_wakeup_s = g->wakeup_s;
  std::vector<model::checked_row> fitted;
  std::vector<std::string> mechanisms;
  const std::vector<row_run> runs = simulate_rows(rows, checked, *g, options);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const model::observation* o = rows[i];
    if (!runs[i].skipped.empty()) {
      skip(out.skipped, runs[i].skipped);
      continue;
    }
    const sim::experiment_result& r = runs[i].result;
    if (!(r.throughput.mean > 0)) {
      skip(out.skipped, o->where + ": the simulated server gave no replies");
      continue;
    }
    const double measured = o->value * datasets::to_si_factor(o->k.unit);
    out.rows.push_back({o->k.mechanism, *o->k.n_fds, *o->k.n_active, measured, r.throughput, o->where});
    fitted.push_back({measured, r.throughput.mean, log_spread(r.throughput, r.replications)});
    mechanisms.push_back(o->k.mechanism);
  }
  if (fitted.empty()) {
    if (why) *why = "no server row could be simulated (" + out.skipped.front() + ")";
    return std::nullopt;
  }
  out.discrepancy = model::estimate_discrepancy(fitted, std::move(mechanisms));
  return out;
}

}  // namespace pollscale::studies
