// pollscale simulate: an event-driven server under a workload, with costs from a fitted
// model, a costs file or flags; throughput, latency percentiles, CPU utilisation, wait
// calls per second and events per call, each with a 95% interval from independent
// replications (docs/sim.md). Same seed, same output, byte for byte: the host-dependent
// engine figures go to stderr, and into the JSON only with --engine-stats.

#include <iostream>
#include <memory>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/sim_costs.hpp"
#include "app/sim_options.hpp"
#include "app/table_writer.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description simulate_options() {
  po::options_description o("simulate options");
  // One option per line: the table reads like the --help it prints.
  // clang-format off
  o.add_options()
      ("help,h", "show this help")
      ("mechanism", po::value<std::string>()->required(), "select, pselect, poll, ppoll, epoll, rtsig, io_uring")
      ("engine-stats", "add events/s, simulated s per wall s and peak RSS to the JSON (varies run to run)")
      ("format", po::value<std::string>()->default_value("table"), "table, csv or json");
  // clang-format on
  o.add(sim_server_options_description());
  o.add(sim_cost_options_description());
  return o;
}

}  // namespace

int cmd_simulate(const args_t& args) {
  const auto opts = simulate_options();
  po::variables_map vm;
  if (!parse_command_line(
          args, opts, {}, vm,
          "usage: pollscale simulate --mechanism M [--model model.json | --costs costs.json | cost flags]\n"
          "       [--idle N] [--active N] [--cpus C] [--threads T] [--duration S] [--seed N]\n"
          "       [--workload FILE] [--format table|csv|json]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const std::string mechanism = vm["mechanism"].as<std::string>();
  const sim_setup setup = sim_setup_from(vm, mechanism);
  auto prov = std::make_shared<cost_provenance>();
  const sim::cost_model costs = sim_costs_from(vm, mechanism, prov);
  const sim::experiment_result r = run_experiment(setup, costs);  // sim::stopped: none done
  report_diagnostics("simulate: ", r, setup.rule, *prov);
  if (r.interrupted)
    std::cerr << "simulate: interrupted: the figures are those of the " << r.replications
              << " replication(s) completed before the stop\n";
  if (format == output_format::json) {
    nlohmann::json j = inputs_json(setup, *prov);
    j.update(sim::to_json(r, vm.count("engine-stats") > 0));
    std::cout << j.dump(2) << "\n";
  } else if (format == output_format::csv) {
    write_csv(std::cout, result_table(r));
  } else {
    write_table(std::cout, result_table(r));
  }
  return r.interrupted ? exit_interrupted : exit_ok;
}

}  // namespace pollscale::app
