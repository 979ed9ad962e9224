// What every command that simulates a server shares (simulate, whatif, capacity): the
// server, workload and run options, their parsing with errors that name the flag, the
// inputs block of the JSON, and the result table.
#pragma once

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/sim_costs.hpp"
#include "app/table_writer.hpp"
#include "sim/server_experiment.hpp"

namespace pollscale::app {

/// --idle, --active, --cpus, --threads, --duration, --warmup, --seed, --workload, the
/// workload and server flags, --scheduler and the stopping rule (not --mechanism).
boost::program_options::options_description sim_server_options_description();

/// One simulation's inputs, parsed and checked.
struct sim_setup {
  sim::server_config config;
  sim::workload load;
  sim::run_options options;
  sim::stopping_rule rule;
  /// --threads was given: a swept or searched cpus leaves the threads alone (otherwise
  /// threads follow cpus, one per CPU).
  bool threads_given = false;
};

/// Parses the options for `mechanism`. Throws usage_error naming the flag (or the
/// workload file and key) for any bad value.
sim_setup sim_setup_from(const boost::program_options::variables_map& vm, const std::string& mechanism);

/// The quantities a sweep or a search may vary, by flag: the workload's numeric fields
/// (idle, active, rate), then, with `server_too`, the server's (cpus, threads, max-events,
/// signal-queue, irq-cpu).
std::vector<std::string> quantity_names(bool server_too);

/// "a, b, c".
std::string comma_list(const std::vector<std::string>& names);

/// Sets one swept or searched quantity (quantity_names(true)): rate is requests/s of
/// poisson/on_off arrivals, the others integers. cpus sets the threads too unless --threads
/// was given (threads_given). Throws usage_error naming `flag` for an unknown name or a
/// value the server or workload rejects.
void set_quantity(sim_setup& s, const std::string& name, double value, const std::string& flag);

/// The server's kinds a sweep may vary, by flag: workers (threads or processes) and
/// active-pos (random, first, last) — the text fields no other default follows.
std::vector<std::string> kind_names();

/// Sets one swept kind (kind_names()) to `value`. Throws usage_error naming `flag` for an
/// unknown name or a value the server rejects.
void set_kind(sim_setup& s, const std::string& name, const std::string& value, const std::string& flag);

/// Runs the experiment; the simulator's std::invalid_argument (a bad cost answer, say)
/// becomes a usage_error.
sim::experiment_result run_experiment(const sim_setup& s, const sim::cost_model& costs);

/// The same on `costs`: with a draw, each replication on its own draw of the model's costs,
/// at least draw_replications of them, the intervals then a replication's (costs_drawn).
sim::experiment_result run_experiment(const sim_setup& s, const sim_costs& costs);

/// The inputs block of the JSON: mechanism, server, workload, run, costs.
nlohmann::json inputs_json(const sim_setup& s, const cost_provenance& prov);

/// The model cells a drawn run could not draw (no interval), each with why: {cell: why}.
nlohmann::json undrawn_json(const cost_provenance& prov);
/// The `costs` block of simulate's, whatif's and capacity's JSON: where each cost came from,
/// how far the model extrapolated, whether the costs were drawn, how correlated the cells'
/// draws were (null: not drawn, or drawn independently for want of a drift estimate) and
/// which cells had no interval to draw from.
nlohmann::json costs_json(const cost_provenance& prov);

/// The result as rows metric | mean | ci95_lo | ci95_hi | unit.
text_table result_table(const sim::experiment_result& r, bool csv);

/// A warning on stderr when drawn costs left cells undrawn (no interval): the answer's
/// interval leaves their uncertainty out.
void warn_undrawn(const std::string& label, const cost_provenance& prov);

/// Diagnostics on stderr: replications and half-width, engine speed, warnings; for threads
/// sharing one set, what its serial part did, or that none was charged.
void report_diagnostics(const std::string& label, const sim::experiment_result& r, const sim_setup& setup,
                        const cost_provenance& prov);

}  // namespace pollscale::app
