#include "app/sim_costs.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "app/cli.hpp"
#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"
#include "studies/model_costs.hpp"

namespace po = boost::program_options;

namespace pollscale::app {

po::options_description sim_cost_options_description() {
  po::options_description o("cost options (flags override --costs, which overrides --model)");
  // One option per line: the table reads like the --help it prints.
  // clang-format off
  o.add_options()
      ("model", arg<std::string>("MODEL"), "model.json from pollscale fit: wait, handler and wake-up costs (positional)")
      ("costs", arg<std::string>("FILE"), "costs file (JSON, nanoseconds; see docs/sim.md)")
      ("model-uncertainty", arg<std::string>("MODE")->default_value("draw"), "draw: each replication runs on its own draw of the model's costs from their 95% intervals, and the intervals reported are where one run's answer lies; fixed: every replication on the predictions")
      ("placement", arg<std::string>("MODE")->default_value("draw"), "where the model's host keeps its two CPUs, when the model knows it moved them (model.json placement; docs/sim.md): draw: each drawn replication meets the near or far placement as often as the fitted run did; usual: the one it spent most time in; near, far: that one for every replication. What crosses the CPUs (the cross-CPU wake-up, a handler whose peer is on the other CPU, the load generator) is priced in it")
      ("call-spread", arg<std::string>("MODE")->default_value("measured"), "measured: each wait call, handler and wake-up costs its mean times a draw from the spread single ones showed on the model's machine (model.json call_spread, when it has one); none: every one costs its mean")
      ("fd-kind", arg<std::string>("KIND")->default_value(""), "model cells to use: pipe, socketpair, tcp, ...")
      ("variant", arg<std::string>("NAME")->default_value(""), "model cells to use: lt, et, oneshot, ...")
      ("platform", arg<std::string>("TEXT"), "a historical model: the machine whose cells to use, as `pollscale cells` lists it")
      ("kernel", arg<std::string>("TEXT"), "a historical model: the kernel whose cells to use, as `pollscale cells` lists it")
      ("wait-per-call-ns", arg<double>("NS"), "wait call: fixed cost, ns")
      ("wait-per-fd-ns", arg<double>("NS"), "wait call: per registered fd scanned, ns")
      ("wait-per-ready-ns", arg<double>("NS"), "wait call: per ready event returned, ns")
      ("wait-per-fd-blocking-ns", arg<double>("NS"), "wait call: per fd registered when it may sleep, ns")
      ("rearm-ns", arg<double>("NS"), "re-arming one fd after its event (oneshot), ns")
      ("handler-ns", arg<double>("NS"), "handling one event: read the request, write the reply, ns")
      ("wakeup-same-ns", arg<double>("NS"), "wake-up latency, waker and sleeper on the same CPU, ns")
      ("wakeup-cross-ns", arg<double>("NS"), "wake-up latency across CPUs, ns")
      ("shared-set-hold-ns", arg<double>("NS"), "threads sharing one set (--interest shared): the part of each pass over it that one thread at a time runs, ns (default: the model's serial stage for the mechanism, fitted on its shared_epoll series; else 0)");
  // clang-format on
  return o;
}

namespace {

std::optional<double> ns_flag(const po::variables_map& vm, const char* flag) {
  if (!vm.count(flag)) return std::nullopt;
  const double v = vm[flag].as<double>();
  if (!std::isfinite(v) || v < 0) throw usage_error(std::string("--") + flag + ": must be finite and >= 0 ns");
  return v * 1e-9;
}

// The costs file's entries: the mechanism's wait cost (and poll's, for rtsig's overflow)
// when present, and the shared costs. Returns whether it gave the wait cost.
bool apply_cost_table(const std::string& path, const std::string& mechanism, sim::cost_model& c,
                      cost_provenance& prov) {
  const sim::cost_table t = sim::read_cost_table(path);  // a bad file: datasets::input_error, exit 2
  c.handler_s = t.handler_s;
  c.wakeup_same_cpu_s = t.wakeup_same_cpu_s;
  c.wakeup_cross_cpu_s = t.wakeup_cross_cpu_s;
  for (const char* k : {studies::component::handler, "wakeup_same_cpu", "wakeup_cross_cpu"})
    prov.sources[k] = "costs file";
  if (const auto poll = t.wait.find(datasets::text(datasets::mechanism::poll));
      mechanism == datasets::mechanism::rtsig && poll != t.wait.end())
    c.overflow_poll_s = [p = poll->second](const sim::wait_query& q) { return p.rescan_s(q); };
  const auto it = t.wait.find(mechanism);
  if (it == t.wait.end()) return false;
  const sim::linear_wait_cost w = it->second;
  c.wait_call_s = [w](const sim::wait_query& q) { return w.call_s(q); };
  c.rescan_s = [w](const sim::wait_query& q) { return w.rescan_s(q); };
  c.rearm_s = [r = t.rearm_s.at(mechanism)](std::int64_t) { return r; };
  prov.sources["wait_call"] = "costs file";
  return true;
}

using model_ptr = std::shared_ptr<const model::model_set>;

// A flag of two values (--model-uncertainty draw|fixed, --call-spread measured|none):
// whether it says `yes`; `absent` when it is not in the map (a caller without the option).
bool flag_says(const po::variables_map& vm, const char* flag, const char* yes, const char* no, bool absent) {
  if (!vm.count(flag)) return absent;
  const std::string mode = vm[flag].as<std::string>();
  if (mode != yes && mode != no)
    throw usage_error(std::string("--") + flag + ": '" + mode + "' is neither " + yes + " nor " + no);
  return mode == yes;
}

bool calls_varied(const po::variables_map& vm) { return flag_says(vm, "call-spread", "measured", "none", true); }

studies::placement_choice placement_of(const po::variables_map& vm) {
  if (!vm.count("placement")) return studies::placement_choice::draw;
  try {
    return studies::parse_placement_choice(vm["placement"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--placement: ") + e.what());
  }
}

// The costs from the model (when there is one), then the costs file, then the flags.
sim::cost_model build_costs(const po::variables_map& vm, const std::string& mechanism, const model_ptr& models,
                            const std::shared_ptr<cost_provenance>& prov, studies::cost_bound bound,
                            std::uint64_t draw_seed) {
  sim::cost_model c;
  bool have_wait = false, have_handler = false;
  if (models) {
    const auto placement = placement_of(vm);
    if (const auto why = studies::placement_unavailable(*models, placement); !why.empty())
      throw usage_error("--" + why);  // a usage error, not the invalid_argument costs_from_model would throw
    c = studies::costs_from_model(models,
                                  {mechanism, vm["fd-kind"].as<std::string>(), vm["variant"].as<std::string>(), bound,
                                   draw_seed, calls_varied(vm), placement},
                                  prov);
    have_wait = true;
    have_handler = prov->sources.contains(studies::component::handler);
  }
  if (vm.count("costs")) {
    have_wait = apply_cost_table(vm["costs"].as<std::string>(), mechanism, c, *prov) || have_wait;
    have_handler = true;
  }
  const char* wait_flags[] = {"wait-per-call-ns", "wait-per-fd-ns", "wait-per-ready-ns", "wait-per-fd-blocking-ns"};
  if (std::any_of(std::begin(wait_flags), std::end(wait_flags), [&](const char* f) { return vm.count(f) > 0; })) {
    const sim::linear_wait_cost w{
        ns_flag(vm, "wait-per-call-ns").value_or(0), ns_flag(vm, "wait-per-fd-ns").value_or(0),
        ns_flag(vm, "wait-per-ready-ns").value_or(0), ns_flag(vm, "wait-per-fd-blocking-ns").value_or(0)};
    c.wait_call_s = [w](const sim::wait_query& q) { return w.call_s(q); };
    c.rescan_s = [w](const sim::wait_query& q) { return w.rescan_s(q); };
    if (mechanism == datasets::mechanism::rtsig && !c.overflow_poll_s) c.overflow_poll_s = c.rescan_s;
    prov->sources["wait_call"] = "flags";
    have_wait = true;
  }
  if (const auto v = ns_flag(vm, "rearm-ns")) {
    c.rearm_s = [r = *v](std::int64_t) { return r; };
    prov->sources["rearm"] = "flag";
  }
  if (const auto v = ns_flag(vm, "handler-ns")) {
    c.handler_s = *v;
    prov->sources[studies::component::handler] = "flag";
    have_handler = true;
  }
  if (const auto v = ns_flag(vm, "wakeup-same-ns")) {
    c.wakeup_same_cpu_s = *v;
    prov->sources["wakeup_same_cpu"] = "flag";
  }
  if (const auto v = ns_flag(vm, "wakeup-cross-ns")) {
    c.wakeup_cross_cpu_s = *v;
    prov->sources["wakeup_cross_cpu"] = "flag";
  }
  if (const auto v = ns_flag(vm, "shared-set-hold-ns")) {
    c.shared_set_hold_s = *v;
    prov->sources[studies::component::shared_set_hold] = "flag";
  }
  if (!have_wait)
    throw usage_error("no wait-call cost for '" + mechanism +
                      "': give --model, --costs with that mechanism, or --wait-* flags");
  if (!have_handler)
    throw usage_error(
        "no handler cost: give --handler-ns, --costs, or a model with a handler or ipc tcp threads=1 cell");
  if (mechanism == datasets::mechanism::rtsig && !c.overflow_poll_s)
    throw usage_error("rtsig needs the cost of its overflow poll: a 'poll' entry in --costs or a model with poll");
  return c;
}

bool draws_wanted(const po::variables_map& vm) { return flag_says(vm, "model-uncertainty", "draw", "fixed", false); }

}  // namespace

sim::cost_model sim_costs_from(const po::variables_map& vm, const std::string& mechanism,
                               const std::shared_ptr<cost_provenance>& prov, studies::cost_bound bound) {
  return sim_costs_from(vm, mechanism, model_from(vm), prov, bound);
}

sim::cost_model sim_costs_from(const po::variables_map& vm, const std::string& mechanism,
                               std::shared_ptr<const model::model_set> models,
                               const std::shared_ptr<cost_provenance>& provenance, studies::cost_bound bound) {
  return build_costs(vm, mechanism, std::move(models), provenance, bound, 0);
}

std::shared_ptr<const model::model_set> model_from(const po::variables_map& vm) {
  const auto text = [&](const char* flag) { return vm.count(flag) ? vm[flag].as<std::string>() : std::string(); };
  if (!vm.count("model")) {
    if (vm.count("platform") || vm.count("kernel"))
      throw usage_error("--platform/--kernel: choose a model's cells: give --model");
    return nullptr;
  }
  try {
    return std::make_shared<const model::model_set>(
        model::of_machine(model::load_model(vm["model"].as<std::string>()), text("platform"), text("kernel")));
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--") + e.what());
  }
}

sim_costs sim_costs_for(const po::variables_map& vm, const std::string& mechanism,
                        const std::shared_ptr<cost_provenance>& prov) {
  return sim_costs_for(vm, mechanism, prov, model_from(vm));
}

sim_costs sim_costs_for(const po::variables_map& vm, const std::string& mechanism,
                        const std::shared_ptr<cost_provenance>& prov, std::shared_ptr<const model::model_set> models) {
  const bool draws = draws_wanted(vm);
  sim_costs out{build_costs(vm, mechanism, models, prov, studies::cost_bound::predicted, 0), {}};
  if (models && draws) {
    prov->drawn = true;
    out.draw = [vm, mechanism, models, prov](std::uint64_t seed) {
      return build_costs(vm, mechanism, models, prov, studies::cost_bound::drawn, seed);
    };
  }
  return out;
}

void refuse_shared_wait_flags(const po::variables_map& vm, std::size_t mechanisms) {
  if (mechanisms < 2) return;
  for (const char* f : {"wait-per-call-ns", "wait-per-fd-ns", "wait-per-ready-ns", "wait-per-fd-blocking-ns"})
    if (vm.count(f))
      throw usage_error(std::string("--") + f +
                        " gives every mechanism the same wait cost: compare mechanisms with --costs or --model");
}

}  // namespace pollscale::app
