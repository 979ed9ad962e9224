#include "app/sim_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <span>
#include <stdexcept>
#include <tuple>

#include "app/cli.hpp"
#include "app/table_writer.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/memory_budget.hpp"
#include "datasets/vocabulary.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

// The inputs block's section for the server's configuration.
constexpr const char* server_section = "server";  // vocabulary: a JSON section, not the scenario

// Runs `f`, turning the simulator's std::invalid_argument into a usage error (exit 2).
template <typename F>
auto as_usage(const std::string& flag, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw usage_error(flag.empty() ? std::string(e.what()) : "--" + flag + ": " + e.what());
  }
}

// The flag of a field, "--rate", for messages; the key where a field has none.
template <typename Record>
std::string flag_text(std::span<const sim::record_field<Record>> fields, const std::string& key) {
  const sim::record_field<Record>* f = sim::field_by_key(fields, key);
  return f && !f->flag.empty() ? "--" + std::string(f->flag) : key;
}

// Sets each field of `r` whose flag is in `vm` (only those given explicitly when
// `given_only`), with errors naming the flag.
template <typename Record>
void apply_flags(Record& r, std::span<const sim::record_field<Record>> fields, const po::variables_map& vm,
                 bool given_only) {
  for (const sim::record_field<Record>& f : fields) {
    const std::string flag(f.flag);
    if (flag.empty() || !vm.count(flag) || (given_only && vm[flag].defaulted())) continue;
    try {
      sim::set_from_text(r, f, vm[flag].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw usage_error("--" + flag + ": " + e.what());
    }
  }
}

// The record's own check, its errors naming the flag of the field they are about.
template <typename Record>
void validate(const Record& r, std::span<const sim::record_field<Record>> fields) {
  try {
    r.validate();
  } catch (const sim::field_error& e) {
    throw usage_error(flag_text(fields, e.key) + ": " + e.detail);
  }
}

// The flags as options: --NAME VALUE_NAME (=default)  help.
template <typename Record>
void add_flags(po::options_description& o, std::span<const sim::record_field<Record>> fields) {
  for (const sim::record_field<Record>& f : fields) {
    if (f.flag.empty()) continue;
    auto* value = arg<std::string>(std::string(f.value_name).c_str());
    if (!f.flag_default.empty()) value->default_value(std::string(f.flag_default));
    o.add_options()(std::string(f.flag).c_str(), value, std::string(f.help).c_str());
  }
}

// The flags' defaults and values, then the workload file over them, then every flag given
// explicitly over the file.
sim::workload workload_of(const po::variables_map& vm) {
  sim::workload w;
  apply_flags(w, sim::workload_fields(), vm, false);
  if (vm.count("workload")) {
    w = sim::read_workload(vm["workload"].as<std::string>(), w);
    apply_flags(w, sim::workload_fields(), vm, true);
  }
  validate(w, sim::workload_fields());
  return w;
}

// The mechanism's usual configuration, then the flags (interest and wake only when given).
// Threads sharing one level-triggered epoll instance wake a second waiter for every event
// handed out (calibrate's accept_herd: 2.0-2.2 wake-ups per connection), so that is their
// default wake; edge-triggered and one-shot items leave the ready list when reported.
sim::server_config server_of(const po::variables_map& vm, const std::string& mechanism) {
  sim::server_config c = as_usage("mechanism", [&] { return sim::default_server_config(mechanism); });
  apply_flags(c, sim::server_fields(), vm, false);
  const std::string variant = vm.count("variant") ? vm["variant"].as<std::string>() : "";
  if (!vm.count("wake") && c.sharing == sim::interest_sharing::shared &&
      datasets::parse<datasets::mechanism>(mechanism) == datasets::mechanism::epoll &&
      (variant.empty() || variant == datasets::name(datasets::variant::lt)))
    c.wake = sim::wake_policy::level;
  validate(c, sim::server_fields());
  return c;
}

std::pair<sim::run_options, sim::stopping_rule> run_of(const po::variables_map& vm) {
  sim::run_options o;
  o.duration_s = vm["duration"].as<double>();
  if (!std::isfinite(o.duration_s) || o.duration_s <= 0) throw usage_error("--duration: must be finite and > 0 s");
  o.warmup_s = vm.count("warmup") ? vm["warmup"].as<double>() : o.duration_s / 10;
  if (!std::isfinite(o.warmup_s) || o.warmup_s < 0) throw usage_error("--warmup: must be finite and >= 0 s");
  o.seed = parse_seed(vm["seed"].as<std::string>());
  const double budget = vm["event-budget"].as<double>();
  if (!(budget >= 1e3 && budget <= 1e15)) throw usage_error("--event-budget: must be in 1e3..1e15");
  o.max_events = static_cast<std::uint64_t>(budget);
  o.stop_request = &calibrate::sys::stop_requested;  // Ctrl-C: keep the replications done
  o.scheduler = as_usage("scheduler", [&] { return sim::parse_scheduler_kind(vm["scheduler"].as<std::string>()); });
  sim::stopping_rule rule;
  rule.relative_half_width = vm["rel-halfwidth"].as<double>();
  if (!std::isfinite(rule.relative_half_width) || rule.relative_half_width <= 0)
    throw usage_error("--rel-halfwidth: must be finite and > 0");
  const long long lo = vm["min-replications"].as<long long>(), hi = vm["max-replications"].as<long long>();
  if (lo < 2) throw usage_error("--min-replications: must be >= 2");
  if (hi < lo || hi > 100000) throw usage_error("--max-replications: must be in min-replications..100000");
  rule.min_replications = static_cast<std::size_t>(lo);
  rule.max_replications = static_cast<std::size_t>(hi);
  return {o, rule};
}

}  // namespace

po::options_description sim_server_options_description() {
  po::options_description o("server, workload and run options");
  // The workload's and the server's flags, from their fields' tables (sim/workload.hpp,
  // sim/event_loop_server.hpp).
  add_flags(o, sim::workload_fields());
  add_flags(o, sim::server_fields());
  // One option per line: the table reads like the --help it prints.
  // clang-format off
  o.add_options()
      ("duration", arg<double>("SECONDS")->default_value(10), "simulated seconds measured per replication")
      ("warmup", arg<double>("SECONDS"), "simulated seconds discarded first (default: duration / 10)")
      ("seed", arg<std::string>("N")->default_value("1"), "seed of the run (replication i uses a derived one)")
      ("event-budget", arg<double>("N")->default_value(5e8, "5e8"), "events one replication may fire before the run is refused (about 6 min at 1.4 M events/s)")
      ("workload", arg<std::string>("FILE"), "workload file (JSON, see docs/sim.md); flags given override it")
      ("scheduler", arg<std::string>("KIND")->default_value("heap"), "event queue: heap or calendar")
      ("rel-halfwidth", arg<double>("FRACTION")->default_value(0.03, "0.03"), "stop when the throughput's 95% half-width <= this x mean")
      ("min-replications", arg<long long>("N")->default_value(5), "replications at least (>= 2)")
      ("max-replications", arg<long long>("N")->default_value(30), "replications at most");
  // clang-format on
  return o;
}

sim_setup sim_setup_from(const po::variables_map& vm, const std::string& mechanism) {
  sim_setup s;
  s.config = server_of(vm, mechanism);
  s.load = workload_of(vm);
  std::tie(s.options, s.rule) = run_of(vm);
  s.threads_given = !vm["threads"].defaulted();
  return s;
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

std::vector<std::string> quantity_names(bool server_too) {
  std::vector<std::string> names;
  for (const sim::workload_field& f : sim::workload_fields())
    if (f.quantity()) names.emplace_back(f.flag);
  if (server_too)
    for (const sim::server_field& f : sim::server_fields())
      if (f.quantity()) names.emplace_back(f.flag);
  return names;
}

namespace {

// A quantity's value as the JSON its field's set takes (an integer's within +-2^62, checked
// by the caller, so the cast is defined).
nlohmann::json quantity_value(sim::field_form form, double value) {
  if (form == sim::field_form::number) return value;
  return static_cast<std::int64_t>(value);
}

}  // namespace

void set_quantity(sim_setup& s, const std::string& name, double value, const std::string& flag) {
  const std::vector<std::string> names = quantity_names(true);
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw usage_error("--" + flag + ": '" + name + "' is not one of " + comma_list(names));
  const sim::workload_field* load_field = sim::workload_field_by_flag(name);
  const sim::server_field* server_field = sim::server_field_by_flag(name);
  const sim::field_form form = load_field ? load_field->form : server_field->form;
  const bool integer = form == sim::field_form::integer;
  if (!std::isfinite(value) || (integer && value != std::floor(value)))
    throw usage_error("--" + flag + ": " + name + " needs " + (integer ? "an integer" : "a finite number") + ", got " +
                      format_number(value, 6));
  if (integer && std::abs(value) > 0x1p62)
    throw usage_error("--" + flag + ": " + name + " = " + format_number(value, 6) + ": out of range");
  if (form == sim::field_form::number && s.load.arrivals == sim::arrival_kind::closed)
    throw usage_error("--" + flag + ": " + name + " applies to " + flag_text(sim::workload_fields(), "arrivals") +
                      " poisson or on_off");
  try {
    if (load_field) load_field->set(s.load, quantity_value(form, value));
    if (server_field) server_field->set(s.config, quantity_value(form, value));
    // More CPUs for one thread would only idle: a server given C CPUs runs C threads.
    if (server_field == sim::server_field_by_key("cpus") && !s.threads_given) s.config.threads = s.config.cpus;
    s.config.validate();
    s.load.validate();
  } catch (const std::invalid_argument& e) {
    throw usage_error("--" + flag + ": " + name + " = " + format_number(value, 6) + ": " + e.what());
  }
}

std::vector<std::string> kind_names() {
  return {std::string(sim::server_field_by_key("workers")->flag),
          std::string(sim::server_field_by_key("active_pos")->flag)};
}

void set_kind(sim_setup& s, const std::string& name, const std::string& value, const std::string& flag) {
  const std::vector<std::string> names = kind_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw usage_error("--" + flag + ": '" + name + "' is not one of " + comma_list(names));
  try {
    sim::server_field_by_flag(name)->set(s.config, nlohmann::json(value));
    s.config.validate();
  } catch (const std::invalid_argument& e) {
    throw usage_error("--" + flag + ": " + name + " = " + value + ": " + e.what());
  }
}

namespace {

// Runs `experiment` (the replications), refused before allocating more than half this
// machine's memory, and with the event budget's message naming its flag.
sim::experiment_result guarded(const sim_setup& s, const std::function<sim::experiment_result()>& experiment) {
  // Refused before allocating, with the arithmetic, rather than failing in the middle.
  const std::uint64_t allowed = datasets::memory_allowance();  // half the machine's memory
  if (const std::uint64_t need = s.load.state_bytes(); need > allowed)
    throw usage_error("--idle " + std::to_string(s.load.idle) + " --active " + std::to_string(s.load.active) +
                      ": the simulated connections would take about " + datasets::gib_text(need) + " (" +
                      std::to_string(sim::workload::state_bytes_per_idle) + " B per idle, " +
                      std::to_string(sim::workload::state_bytes_per_active) +
                      " B per active one), more than half of this machine's " + datasets::gib_text(allowed * 2));
  try {
    return as_usage("", experiment);
  } catch (const sim::event_budget_exceeded& e) {
    throw usage_error("--event-budget " + format_number(static_cast<double>(s.options.max_events), 3) +
                      ": one replication fired that many events by simulated t = " + format_number(e.simulated_s, 4) +
                      " s of " + format_number(s.options.warmup_s + s.options.duration_s, 4) +
                      " s; shorten --duration or --warmup, lower the load, or raise --event-budget");
  }
}

}  // namespace

sim::experiment_result run_experiment(const sim_setup& s, const sim::cost_model& costs) {
  return guarded(s, [&] { return sim::run_server_experiment(s.config, s.load, costs, s.options, s.rule); });
}

sim::experiment_result run_experiment(const sim_setup& s, const sim_costs& costs) {
  if (!costs.draw) return run_experiment(s, costs.predicted);
  sim::stopping_rule rule = s.rule;
  // At least draw_replications draws unless --max-replications forbids it (then the run
  // says it is not converged).
  rule.spread_replications = std::max(rule.min_replications, draw_replications);
  rule.min_replications = std::min(rule.spread_replications, rule.max_replications);
  return guarded(s, [&] { return sim::run_server_experiment(s.config, s.load, costs.draw, s.options, rule); });
}

nlohmann::json undrawn_json(const cost_provenance& prov) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [cell, why] : prov.undrawn) j[cell] = why;
  return j;
}

nlohmann::json inputs_json(const sim_setup& s, const cost_provenance& prov) {
  const sim::server_config& c = s.config;
  const sim::workload& w = s.load;
  const sim::run_options& o = s.options;
  const sim::stopping_rule& rule = s.rule;
  return {{"mechanism", c.mechanism},
          {server_section, sim::fields_json(sim::server_fields(), c)},
          {"workload", sim::to_json(w)},
          {"run",
           {{"duration_s", o.duration_s},
            {"warmup_s", o.warmup_s},
            {"seed", o.seed},
            {"scheduler", std::string(sim::to_string(o.scheduler))},
            {"rel_halfwidth", rule.relative_half_width},
            {"min_replications", rule.min_replications},
            {"max_replications", rule.max_replications}}},
          {"costs", costs_json(prov)}};
}

namespace {

// The shapes each call was varied by, each with its 99th percentile as a multiple of the
// mean (after the division by the shape's mean); null when every call cost its mean.
nlohmann::json call_spread_json(const cost_provenance& prov) {
  if (!prov.variation) return nullptr;
  using op = sim::call_variation::operation;
  const auto list = [&](const std::vector<datasets::spread_shape>& shapes, op what) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : shapes)
      out.push_back({{"point", s.point},
                     {"mean_ns", s.mean_ns},
                     {"p99_over_mean", prov.variation->multiplier_at(what, s.mean_ns * 1e-9, 0.99)}});
    return out;
  };
  const auto& spread = prov.variation->spread();
  return {{"wait_calls", list(spread.wait_calls, op::wait_call)},
          {"handlers", list(spread.handlers, op::handler)},
          {"wakeups_same_cpu", list(spread.wakeups_same_cpu, op::wakeup_same_cpu)},
          {"wakeups_cross_cpu", list(spread.wakeups_cross_cpu, op::wakeup_cross_cpu)}};
}

// The simulator's discrepancy a drawn run carried (model.json simulator_check); null when
// none did.
nlohmann::json simulator_discrepancy_json(const cost_provenance& prov) {
  if (!prov.simulator_discrepancy) return nullptr;
  const auto& d = *prov.simulator_discrepancy;
  return {{"log_sd", d.log_sd}, {"rows", d.rows}, {"median_abs_error", d.median_abs_error}};
}

// The between-runs spread a drawn run carried (model.json between_runs); null when none did.
nlohmann::json between_runs_json(const cost_provenance& prov) {
  if (!prov.between_runs) return nullptr;
  const auto& b = *prov.between_runs;
  return {{"log_sd", b.log_sd}, {"rows", b.rows}, {"hosts", b.hosts}};
}

// How a server wider than the fitted run's machine prices each CPU (model.json
// capacity_efficiency and the run's CPUs); null when the model carries none.
nlohmann::json capacity_efficiency_json(const cost_provenance& prov) {
  if (!prov.capacity_efficiency) return nullptr;
  const auto& e = *prov.capacity_efficiency;
  return {{"log_mean", e.log_mean}, {"log_sd", e.log_sd}, {"hosts", e.hosts}, {"measured_cpus", prov.measured_cpus}};
}

// The placements a drawn run's replications met (model.json placement); null when none did.
nlohmann::json placement_json(const cost_provenance& prov) {
  if (!prov.placement) return nullptr;
  const auto& p = *prov.placement;
  return {{"near_share", p.near_share},
          {"far_over_near", p.far_over_near},
          {"usual", p.far_usual() ? "far" : "near"},
          {"asked", studies::name(prov.placement_asked)},
          {"draws", prov.placement_draws},
          {"far_draws", prov.placement_far_draws}};
}

}  // namespace

nlohmann::json costs_json(const cost_provenance& prov) {
  return {{"sources", prov.sources},
          {"model_max_extrapolation", prov.max_extrapolation},
          {"model_uncertainty", prov.drawn ? "draw" : "fixed"},
          {"draw_correlation", json_number(prov.draw_correlation)},  // set only by a drawn cost model
          {"simulator_discrepancy", simulator_discrepancy_json(prov)},
          {"placement", placement_json(prov)},
          {"between_runs", between_runs_json(prov)},
          {"capacity_efficiency", capacity_efficiency_json(prov)},
          {datasets::text(datasets::scenario::call_spread), call_spread_json(prov)},
          {"undrawn", undrawn_json(prov)}};
}

text_table result_table(const sim::experiment_result& r, bool csv) {
  text_table t{{"metric", "mean", "ci95_lo", "ci95_hi", "unit"}, {}, {false, true, true, true, false}};
  auto row = [&](const std::string& name, const sim::estimate& e, const char* unit) {
    t.rows.push_back(
        {name, number_cell(e.mean, 5, csv), number_cell(e.ci95_lo, 5, csv), number_cell(e.ci95_hi, 5, csv), unit});
  };
  auto plain = [&](const std::string& name, double v, const char* unit) {
    t.rows.push_back({name, number_cell(v, 5, csv), "", "", unit});
  };
  row(datasets::text(datasets::metric::throughput), r.throughput, "1/s");
  row("latency_p50", r.latency_p50_s, "s");
  row("latency_p90", r.latency_p90_s, "s");
  row(datasets::text(datasets::metric::latency_p99), r.latency_p99_s, "s");
  row("latency_p999", r.latency_p999_s, "s");
  row("latency_mean", r.latency_mean_s, "s");
  row("cpu_utilisation", r.cpu_utilisation, "");
  for (std::size_t c = 0; c < r.cpu_utilisation_per_cpu.size(); ++c)
    row("cpu" + std::to_string(c) + "_utilisation", r.cpu_utilisation_per_cpu[c], "");
  // The utilisation split by use: which cost the CPUs were busy with.
  for (const sim::cpu_use u : sim::cpu_uses())
    plain("cpu_" + std::string(sim::to_string(u)), r.cpu_share[static_cast<std::size_t>(u)], "");
  row("calls_per_s", r.calls_per_s, "1/s");
  row("events_per_call", r.events_per_call, "");
  plain("wakeups_per_s", r.wakeups_per_s, "1/s");
  plain("futile_wakeups_per_s", r.futile_wakeups_per_s, "1/s");
  plain("overflows_per_s", r.overflows_per_s, "1/s");
  plain("keepalives_per_s", r.keepalives_per_s, "1/s");
  plain("shared_set_busy", r.shared_set_busy, "");
  plain("shared_set_wait", r.shared_set_wait_s, "s");
  plain("replications", static_cast<double>(r.replications), "");
  t.rows.push_back({"converged", r.converged ? "yes" : "no", "", "", ""});
  return t;
}

void warn_undrawn(const std::string& label, const cost_provenance& prov) {
  if (prov.drawn && !prov.undrawn.empty())
    std::cerr << label << "warning: " << prov.undrawn.size()
              << " model cell(s) had no interval and stayed at their prediction in every draw, so the intervals "
                 "shown leave their uncertainty out; the first: "
              << prov.undrawn.begin()->first << " (" << prov.undrawn.begin()->second << ")\n";
}

namespace {

// Threads on one shared set: how busy its serial part was, or that no serial part was
// charged, so that nothing but the CPUs limits them (said, not silently assumed).
void report_shared_set(const std::string& label, const sim::server_config& c, const sim::experiment_result& r,
                       const cost_provenance& prov) {
  if (c.sharing != sim::interest_sharing::shared || c.threads < 2 || c.style != sim::notification::readiness) return;
  const char* hold = studies::component::shared_set_hold;
  if (!prov.sources.contains(hold)) {
    std::cerr << label << "note: " << c.threads
              << " threads share one set, but nothing says how long each pass holds it (a model fitted on shared_epoll "
                 "series of two CPUs or more, or --shared-set-hold-ns): they never wait for each other in the kernel\n";
    return;
  }
  if (prov.sources[hold] == "flag" && r.shared_set_busy == 0) {  // --shared-set-hold-ns 0: nothing was held
    std::cerr << label << "the shared set's serial part is 0 (--shared-set-hold-ns): the " << c.threads
              << " threads sharing it never waited for each other in the kernel\n";
    return;
  }
  std::cerr << label << "the shared set's serial part (" << prov.sources[hold].get<std::string>() << ") was held "
            << format_number(100 * r.shared_set_busy, 3) << "% of the time; a pass waited "
            << format_number(1e6 * r.shared_set_wait_s, 3) << " us for it on average\n";
}

// How a drawn run carried the simulator's discrepancy, for the replications line.
std::string simulator_discrepancy_text(const cost_provenance& prov) {
  if (!prov.simulator_discrepancy) return "";
  const auto& d = *prov.simulator_discrepancy;
  return ", and all scaled together by the simulator's discrepancy on the fitted machine (log sd " +
         format_number(d.log_sd, 3) + ", from " + std::to_string(d.rows) + " live-server rows)";
}

// How a drawn run carried the corpus's between-runs spread, for the replications line.
std::string between_runs_text(const cost_provenance& prov) {
  if (!prov.between_runs) return "";
  const auto& b = *prov.between_runs;
  return ", and each replication's machine (its costs and the load generator's) moved by the spread between runs "
         "of the corpus's hosts (log sd " +
         format_number(b.log_sd, 3) + ", " + std::to_string(b.rows) + " live-server rows of " +
         std::to_string(b.hosts) + " hosts)";
}

// Which placement of the model's host's two CPUs the run's cross-CPU costs were priced in.
void report_placement(const std::string& label, const cost_provenance& prov) {
  if (!prov.placement || prov.placement_draws == 0) return;
  const auto& p = *prov.placement;
  const std::string far_time = format_number(100 * (1 - p.near_share), 3) + "% of its time";
  const std::string costs =
      "what crosses the CPUs (the cross-CPU wake-up, a handler whose peer is on the other CPU, "
      "the load generator) costs " +
      format_number(p.far_over_near, 3) + "x in the far placement what it costs in the near one";
  if (prov.placement_asked == studies::placement_choice::draw)
    std::cerr << label << "each replication met the near or far placement of the model's host's two CPUs as often as "
              << "the fitted run did (far " << far_time << "): " << prov.placement_far_draws << " of "
              << prov.placement_draws << " far; " << costs << " (--placement usual: none)\n";
  else
    std::cerr << label << "every replication in the " << studies::name(prov.placement_asked)
              << " placement of the model's host's two CPUs (the fitted run: far " << far_time << "); " << costs
              << "\n";
}

// Where the server is wider than the fitted run's machine: how its CPUs were priced.
void report_width(const std::string& label, int cpus, bool drawn, const cost_provenance& prov) {
  if (!prov.capacity_efficiency || cpus <= prov.measured_cpus) return;
  const auto& e = *prov.capacity_efficiency;
  const double d = std::log2(static_cast<double>(cpus) / prov.measured_cpus);
  std::cerr << label << cpus << " CPUs, " << format_number(d, 3) << " doublings past the fitted run's "
            << prov.measured_cpus << ": every CPU burst and wake-up takes "
            << format_number(std::exp(-e.log_mean * d), 4)
            << "x its cost, as the corpus's hosts deliver each doubling (x" << format_number(std::exp(e.log_mean), 3)
            << ", log sd " << format_number(e.log_sd, 3) << ", " << e.hosts << " hosts"
            << (drawn ? "; drawn per replication" : "") << "; docs/sim.md)\n";
}

}  // namespace

void report_diagnostics(const std::string& label, const sim::experiment_result& r, const sim_setup& setup,
                        const cost_provenance& prov) {
  const sim::stopping_rule& rule = setup.rule;
  const double hw = r.throughput.mean > 0 ? (r.throughput.ci95_hi - r.throughput.mean) / r.throughput.mean : 0;
  if (r.costs_drawn)
    std::cerr << label << r.replications << " replications, each on its own draw of the model's costs"
              << (prov.draw_correlation ? " (cells moving together by " + format_number(*prov.draw_correlation, 2) +
                                              ", as the machine moved them)"
                                        : std::string())
              << simulator_discrepancy_text(prov) << between_runs_text(prov) << ": throughput of one run within +-"
              << format_number(100 * hw, 3) << "% (95%)"
              << (r.converged
                      ? ""
                      : " - fewer than " + std::to_string(draw_replications) + " draws, raise --max-replications")
              << "\n";
  else
    std::cerr << label << r.replications << " replications, throughput 95% half-width " << format_number(100 * hw, 3)
              << "% (target " << format_number(100 * rule.relative_half_width, 3) << "%)"
              << (r.converged ? "" : " - NOT reached, raise --max-replications or --duration") << "\n";
  report_placement(label, prov);
  report_width(label, setup.config.cpus, r.costs_drawn, prov);
  if (prov.variation)
    std::cerr << label
              << "each wait call, handler and wake-up varied around its mean as single ones did on the model's machine "
              << "(call spread: " << prov.variation->spread().wait_calls.size() << " wait-call, "
              << prov.variation->spread().handlers.size() << " handler and "
              << prov.variation->spread().wakeups_same_cpu.size() + prov.variation->spread().wakeups_cross_cpu.size()
              << " wake-up shapes; --call-spread none: every one at its mean)\n";
  std::cerr << label << "engine " << r.engine.events << " events in " << format_number(r.engine.wall_s, 3) << " s ("
            << format_number(r.engine.events_per_s / 1e6, 3) << " M events/s, "
            << format_number(r.engine.sim_s_per_wall_s, 3) << " simulated s per wall s), peak RSS "
            << format_number(static_cast<double>(r.engine.peak_rss_bytes) / 1048576.0, 4) << " MiB\n";
  if (r.mser5_transient_fraction > 0.1)
    std::cerr << label << "warning: MSER-5 finds the first " << format_number(100 * r.mser5_transient_fraction, 2)
              << "% of the measured span still transient: raise --warmup\n";
  if (prov.max_extrapolation > 1)
    std::cerr << label << "warning: the model extrapolated up to " << format_number(prov.max_extrapolation, 3)
              << "x beyond its largest measured n\n";
  if (r.wakeups_per_s > 0 && (!prov.sources.contains("wakeup_same_cpu") || !prov.sources.contains("wakeup_cross_cpu")))
    std::cerr << label
              << "note: threads slept and were woken, but no wake-up cost was given (no wakeup cell in the model, "
                 "no --costs or --wakeup-same-ns/--wakeup-cross-ns): the missing ones cost 0\n";
  report_shared_set(label, setup.config, r, prov);
  warn_undrawn(label, prov);
}

}  // namespace pollscale::app
