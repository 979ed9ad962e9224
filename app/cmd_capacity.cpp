// pollscale capacity: the largest load - idle connections, active clients or request rate
// - at which a simulated server still meets its targets (p99 latency, mean latency, CPU
// utilisation), found by bisection. A target counts as met only when the upper end of
// its 95% interval meets it, so the answer errs on the safe side. Every evaluation uses
// the same seed (common random numbers), which keeps the search monotone in practice.

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/sim_costs.hpp"
#include "app/sim_options.hpp"
#include "app/table_writer.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description capacity_options() {
  po::options_description o("capacity options");
  // clang-format off: one option per line reads as a table
  o.add_options()("help,h", "show this help")("mechanism", po::value<std::string>()->required(),
                                              "select, pselect, poll, ppoll, epoll, rtsig, io_uring")(
      "vary", po::value<std::string>()->required(), "idle, active or rate (poisson/on_off arrivals)")(
      "lo", po::value<double>(), "smallest value searched (default: idle 0, active 1, rate 1)")(
      "hi", po::value<double>()->required(), "largest value searched")(
      "max-p99", po::value<double>(), "target: p99 latency at most this, s")("max-mean-latency", po::value<double>(),
                                                                             "target: mean latency at most this, s")(
      "max-cpu", po::value<double>(), "target: mean CPU utilisation at most this (0..1)")(
      "tolerance", po::value<double>()->default_value(0.02), "stop when the bracket is within this fraction")(
      "format", po::value<std::string>()->default_value("table"), "table, csv or json");
  // clang-format on
  o.add(sim_server_options_description());
  o.add(sim_cost_options_description());
  return o;
}

struct targets {
  std::optional<double> p99, mean, cpu;
  bool met(const sim::experiment_result& r) const {
    return (!p99 || r.latency_p99_s.ci95_hi <= *p99) && (!mean || r.latency_mean_s.ci95_hi <= *mean) &&
           (!cpu || r.cpu_utilisation.ci95_hi <= *cpu);
  }
};

std::optional<double> positive(const po::variables_map& vm, const char* flag) {
  if (!vm.count(flag)) return std::nullopt;
  const double v = vm[flag].as<double>();
  if (!std::isfinite(v) || v <= 0) throw usage_error(std::string("--") + flag + ": must be finite and > 0");
  return v;
}

std::string quantity_text(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : format_number(v, 6);
}

struct evaluation {
  double value;
  sim::experiment_result result;
  bool met;
};

}  // namespace

int cmd_capacity(const args_t& args) {
  const auto opts = capacity_options();
  po::variables_map vm;
  if (!parse_command_line(args, opts, {}, vm,
                          "usage: pollscale capacity --mechanism M --vary idle|active|rate --hi X\n"
                          "       (--max-p99 S | --max-mean-latency S | --max-cpu U) [simulate's options]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const std::string mechanism = vm["mechanism"].as<std::string>(), vary = vm["vary"].as<std::string>();
  if (vary != "idle" && vary != "active" && vary != "rate")
    throw usage_error("--vary: '" + vary + "' is not one of idle, active, rate");
  const targets goal{positive(vm, "max-p99"), positive(vm, "max-mean-latency"), positive(vm, "max-cpu")};
  if (!goal.p99 && !goal.mean && !goal.cpu)
    throw usage_error("give a target: --max-p99, --max-mean-latency or --max-cpu");
  const bool integer = vary != "rate";
  double lo = vm.count("lo") ? vm["lo"].as<double>() : (vary == "idle" ? 0 : 1), hi = vm["hi"].as<double>();
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) throw usage_error("--lo/--hi: need finite lo <= hi");
  const double tolerance = vm["tolerance"].as<double>();
  if (!(tolerance > 0 && tolerance < 1)) throw usage_error("--tolerance: must be in (0, 1)");
  const sim_setup base = sim_setup_from(vm, mechanism);
  sim_setup probe = base;
  set_quantity(probe, vary, lo, "lo");
  set_quantity(probe, vary, hi, "hi");
  auto prov = std::make_shared<cost_provenance>();
  const sim::cost_model costs = sim_costs_from(vm, mechanism, prov);
  std::vector<evaluation> evals;
  auto evaluate = [&](double v) {
    sim_setup s = base;
    set_quantity(s, vary, v, "vary");
    const sim::experiment_result r = run_experiment(s, costs);
    evals.push_back({v, r, goal.met(r)});
    std::cerr << "capacity: " << vary << " = " << quantity_text(v) << ": " << (evals.back().met ? "meets" : "misses")
              << " the target (p99 " << format_number(r.latency_p99_s.mean, 4) << " s, cpu "
              << format_number(r.cpu_utilisation.mean, 3) << ")\n";
    return evals.back().met;
  };
  std::optional<double> answer;
  bool at_hi = false;
  if (evaluate(lo)) {
    if (evaluate(hi)) {
      answer = hi;
      at_hi = true;
    } else {
      // Invariant: lo meets the targets, hi does not.
      while (hi - lo > std::max(integer ? 1.0 : 0.0, tolerance * lo)) {
        const double mid = integer ? std::floor((lo + hi) / 2) : (lo + hi) / 2;
        (evaluate(mid) ? lo : hi) = mid;
      }
      answer = lo;
    }
  }
  if (format == output_format::json) {
    nlohmann::json j = inputs_json(base, *prov);
    j["vary"] = vary;
    j["targets"] = {{"max_p99_s", goal.p99 ? nlohmann::json(*goal.p99) : nlohmann::json()},
                    {"max_mean_latency_s", goal.mean ? nlohmann::json(*goal.mean) : nlohmann::json()},
                    {"max_cpu_utilisation", goal.cpu ? nlohmann::json(*goal.cpu) : nlohmann::json()}};
    j["capacity"] = answer ? nlohmann::json(*answer) : nlohmann::json();
    j["capacity_is_search_limit"] = at_hi;
    j["evaluations"] = nlohmann::json::array();
    for (const evaluation& e : evals) {
      nlohmann::json one = sim::to_json(e.result, false);
      one[vary] = e.value;
      one["meets_targets"] = e.met;
      j["evaluations"].push_back(one);
    }
    std::cout << j.dump(2) << "\n";
    return exit_ok;
  }
  text_table t{{vary, "meets", "latency_p99_s", "ci95_hi", "latency_mean_s", "cpu_utilisation", "throughput"},
               {},
               {true, false, true, true, true, true, true}};
  for (const evaluation& e : evals)
    t.rows.push_back({quantity_text(e.value), e.met ? "yes" : "no", format_number(e.result.latency_p99_s.mean, 4),
                      format_number(e.result.latency_p99_s.ci95_hi, 4), format_number(e.result.latency_mean_s.mean, 4),
                      format_number(e.result.cpu_utilisation.mean, 3), format_number(e.result.throughput.mean, 5)});
  if (format == output_format::csv) {
    write_csv(std::cout, t);
  } else {
    write_table(std::cout, t);
    std::cout << "\ncapacity: " << (answer ? quantity_text(*answer) : std::string("none (the smallest value misses)"))
              << (at_hi ? " (the search limit --hi; the true capacity may be larger)" : "") << "\n";
  }
  return exit_ok;
}

}  // namespace pollscale::app
