// pollscale simulate: an event-driven server under a workload, with costs from a fitted
// model, a costs file or flags; throughput, latency percentiles, CPU utilisation, wait
// calls per second and events per call, each with a 95% interval from independent
// replications (docs/sim.md): with a model, each replication runs on its own draw of the
// model's costs, and the interval is where one run's answer lies. --swap poll=devpoll runs the
// mechanism with another mechanism's cells of the same model in its place
// (studies/mechanism_swap.hpp). Same seed, same output, byte for byte: the host-dependent
// engine figures go to stderr, and into the JSON only with --engine-stats.

#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/sim_costs.hpp"
#include "app/sim_options.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "studies/mechanism_swap.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description simulate_options() {
  po::options_description o("simulate options");
  // One option per line: the table reads like the --help it prints.
  // clang-format off
  o.add_options()
      ("help,h", "show this help")
      ("mechanism", arg<std::string>("MECH")->required(), "select, pselect, poll, ppoll, epoll, rtsig, io_uring")
      ("swap", arg<std::string>("FROM=TO"), "run --mechanism FROM with mechanism TO's cells of the model in its place (MECH or MECH/VARIANT, e.g. poll=devpoll); the server still behaves as FROM; needs --model")
      ("engine-stats", "add events/s, simulated s per wall s and peak RSS to the JSON (varies run to run)")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  o.add(sim_server_options_description());
  o.add(sim_cost_options_description());
  return o;
}

// With a model and fixed costs (--model-uncertainty fixed), the same run with every model
// cost at the dear and at the cheap end of its 95% prediction interval: how far the model's
// own uncertainty moves the answer (the replications' intervals cannot show it: each cost is
// a constant). nullopt without a
// model, or when a stop request cut a bound's run short.
struct model_bounds {
  sim::experiment_result dear, cheap;
};

std::optional<model_bounds> bounds_by_model(const po::variables_map& vm, const std::string& mechanism,
                                            const std::shared_ptr<const model::model_set>& models,
                                            const sim_setup& setup) {
  if (!models) return std::nullopt;
  model_bounds b;
  for (auto [bound, out] :
       {std::pair{studies::cost_bound::dear, &b.dear}, std::pair{studies::cost_bound::cheap, &b.cheap}}) {
    *out = run_experiment(setup, sim_costs_from(vm, mechanism, models, std::make_shared<cost_provenance>(), bound));
    if (out->interrupted) return std::nullopt;
  }
  return b;
}

nlohmann::json bounds_json(const model_bounds& b) {
  auto pair = [](const sim::estimate& dear, const sim::estimate& cheap) {
    return nlohmann::json{{"dear", dear.mean}, {"cheap", cheap.mean}};
  };
  return {{"method", "every model cost at the same end of its 95% prediction interval"},
          {datasets::text(datasets::metric::throughput), pair(b.dear.throughput, b.cheap.throughput)},
          {"latency_p99_s", pair(b.dear.latency_p99_s, b.cheap.latency_p99_s)},
          {"latency_mean_s", pair(b.dear.latency_mean_s, b.cheap.latency_mean_s)},
          {"cpu_utilisation", pair(b.dear.cpu_utilisation, b.cheap.cpu_utilisation)}};
}

std::string bounds_text(const model_bounds& b) {
  auto range = [](double dear, double cheap) { return format_number(dear, 4) + " .. " + format_number(cheap, 4); };
  return "with every model cost at the dear .. cheap end of its 95% prediction interval: throughput " +
         range(b.dear.throughput.mean, b.cheap.throughput.mean) + " 1/s, p99 " +
         range(b.dear.latency_p99_s.mean, b.cheap.latency_p99_s.mean) + " s, mean latency " +
         range(b.dear.latency_mean_s.mean, b.cheap.latency_mean_s.mean) + " s";
}

// --model's file, with --swap's cells in place when given (the swap must replace the
// simulated mechanism).
std::shared_ptr<const model::model_set> models_of(const po::variables_map& vm, const std::string& mechanism) {
  auto models = model_from(vm);
  if (!vm.count("swap")) return models;
  if (!models) throw usage_error("--swap: swaps a model's cells: give --model");
  try {
    const auto swap = studies::parse_mechanism_swap(vm["swap"].as<std::string>());
    if (swap.from_mechanism != mechanism)
      throw std::invalid_argument("'" + swap.text + "' swaps out " + swap.from_mechanism + ", not the simulated " +
                                  mechanism + " (--mechanism)");
    return std::make_shared<const model::model_set>(studies::swap_cells(*models, swap));
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--swap: ") + e.what());
  }
}

}  // namespace

int cmd_simulate(const args_t& args) {
  const auto opts = simulate_options();
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm,
                          "usage: pollscale simulate [MODEL] --mechanism M [--costs costs.json] [cost flags]\n"
                          "       [--idle N] [--active N] [--cpus C] [--threads T] [--duration S] [--seed N]\n"
                          "       [--workload FILE] [--format table|csv|json]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const std::string mechanism = vm["mechanism"].as<std::string>();
  const sim_setup setup = sim_setup_from(vm, mechanism);
  auto prov = std::make_shared<cost_provenance>();
  const auto models = models_of(vm, mechanism);
  const sim_costs costs = sim_costs_for(vm, mechanism, prov, models);
  const sim::experiment_result r = run_experiment(setup, costs);  // sim::stopped: none done
  report_diagnostics("simulate: ", r, setup, *prov);
  // With drawn costs the intervals carry the model's uncertainty; fixed costs get the envelope.
  const auto bounds = r.interrupted || costs.draw ? std::nullopt : bounds_by_model(vm, mechanism, models, setup);
  if (r.interrupted)
    std::cerr << "simulate: interrupted: the figures are those of the " << r.replications
              << " replication(s) completed before the stop\n";
  if (format == output_format::json) {
    nlohmann::json j = inputs_json(setup, *prov);
    j.update(sim::to_json(r, vm.count("engine-stats") > 0));
    if (bounds) j["model_bounds"] = bounds_json(*bounds);
    if (vm.count("swap")) j["swap"] = vm["swap"].as<std::string>();
    std::cout << stamped(output_kind::simulation, std::move(j)).dump(2) << "\n";
  } else if (format == output_format::csv) {
    write_csv(std::cout, result_table(r, true));
  } else {
    write_table(std::cout, result_table(r, false));
    if (bounds) std::cout << "\n" << bounds_text(*bounds) << "\n";
    if (vm.count("swap"))
      std::cout << "\n--swap " << vm["swap"].as<std::string>() << ": " << mechanism
                << " simulated on the other mechanism's cells of the model\n";
  }
  return r.interrupted ? exit_interrupted : exit_ok;
}

}  // namespace pollscale::app
