// pollscale fit DATASET [-o model.json]: fit a cost model to every cell of a calibration
// dataset (or a historical CSV), choose each cell's form by leave-one-out
// cross-validation, and write model.json (docs/model.md §7). Without -o the
// model set goes to stdout as JSON; with -o a summary of the fitted terms does. A dataset
// with live-server rows also checks the simulator against them (docs/sim.md, "The
// simulator's discrepancy"), and the model carries the corpus's spread between runs
// (docs/sim.md, "Between runs").

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>

#include <unistd.h>

#include "app/capacity_efficiency_option.hpp"
#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/model_options.hpp"
#include "app/progress_reporter.hpp"
#include "app/table_writer.hpp"
#include "model/between_runs.hpp"
#include "model/fit.hpp"
#include "model/model_json.hpp"
#include "studies/simulator_check.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

// The corpus's estimate, in the source tree this pollscale was built from.
constexpr const char* default_between_runs_file = POLLSCALE_SOURCE_DIR "/datasets/machines/between_runs.json";

std::string number_or_dash(double v) { return std::isfinite(v) ? format_number(v) : "-"; }

std::string percent(double fraction) { return std::isfinite(fraction) ? format_number(100 * fraction, 3) + "%" : "-"; }

text_table summary_table(const model::model_set& models) {
  text_table t;
  t.columns = {"model", "term", "coefficient", "ci95_lo", "ci95_hi", "unit", "mape_loo", "n"};
  t.numeric = {false, false, true, true, true, false, true, true};
  for (const auto& m : models.cells) {
    std::string label = datasets::describe(m.cell);
    if (!m.platform.empty()) label += " @ " + m.kernel;
    bool first = true;
    for (const auto& term : m.terms) {
      std::string name = term.name + (term.from_prior ? " (prior)" : "") + (term.at_bound ? " (at 0)" : "");
      t.rows.push_back({first ? label : "", name, format_number(term.coefficient), number_or_dash(term.ci95_lo),
                        number_or_dash(term.ci95_hi), term.unit, first ? percent(m.stats.mape_loo) : "",
                        first ? std::to_string(m.stats.n_points) : ""});
      first = false;
    }
  }
  return t;
}

// -o/--out, or --output as fit spelled it before every command said --out; "" for stdout.
std::string output_path(const po::variables_map& vm) {
  if (vm.count("output") && vm.count("out")) throw usage_error("--output: the same as --out (-o); give one");
  const char* flag = vm.count("output") ? "output" : "out";
  if (!vm.count(flag)) return "";
  const std::string path = vm[flag].as<std::string>();
  if (path.empty()) throw usage_error(std::string("--") + flag + ": empty path");
  return path;
}

po::options_description fit_options_description() {
  po::options_description o("fit options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")
      ("data", arg<std::string>("DATASET")->required(), "dataset directory or historical CSV (positional)")
      ("out,o", arg<std::string>("FILE"), "write model.json here (stdout gets a summary)")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "summary format with -o: table, csv or json")
      ("simulator-check", arg<std::string>("on|off")->default_value("on"), "simulate the dataset's live-server rows (poll, epoll) with the fitted costs and store how far they land (model.json simulator_check; drawn simulations carry it)")
      ("between-runs", arg<std::string>("FILE|none")->default_value(default_between_runs_file), "the corpus's spread of a live server between runs of one host (scripts/corpus_between_runs.py writes it), copied into model.json between_runs: drawn simulations move each replication's machine by it; none: leave it out (answers for the machine in the state this run met)")
      ("between-runs-horizon", arg<std::string>("minutes|hours")->default_value("minutes"), "which spread of the file: minutes (a server measured within the hour of the calibration) or hours (on another occasion: wider)");
  // clang-format on
  add_capacity_efficiency_option(o,
                                 "copied into model.json capacity_efficiency, so that predict --cpus prices wider "
                                 "machines' capacity bound as scale --from-cpus does, and simulations on more CPUs "
                                 "than this run had price each CPU by it");
  o.add(model_fit_options_description());
  return o;
}

// --simulator-check: whether to check the simulator against the live server.
bool simulator_check_wanted(const po::variables_map& vm) {
  const std::string mode = vm["simulator-check"].as<std::string>();
  if (mode != "on" && mode != "off") throw usage_error("--simulator-check: '" + mode + "' is neither on nor off");
  return mode == "on";
}

// The simulator against the dataset's live server (studies/simulator_check.hpp), stored in
// the model set when there are rows to check; stderr says what it found or why none.
void check_simulator(const model::observation_set& data, model::model_set& models) {
  if (data.historical) return;
  std::string why;
  const auto check = studies::check_simulator(data, std::make_shared<const model::model_set>(models),
                                              studies::default_simulator_check_options(), &why);
  if (!check) {
    std::cerr << "pollscale fit: no simulator check: " << why << "\n";
    return;
  }
  models.simulator_check = check->discrepancy;
  const auto& d = check->discrepancy;
  std::cerr << "pollscale fit: the simulator against this machine's live server: " << d.rows << " rows, median error "
            << format_number(100 * d.median_abs_error, 3) << "%; beyond the model's own spread, log sd "
            << format_number(d.log_sd, 3) << " (drawn simulations carry it)\n";
  for (const auto& s : check->skipped) std::cerr << "pollscale fit: simulator check: left out " << s << "\n";
}

// --between-runs: the corpus's spread between runs, for a calibration run (a historical table
// is not a run of a shared machine of today), read before fitting so that a bad file is the
// one line said. The default file may be absent (a pollscale without its source tree): said
// on stderr, and the model carries none. A file named on the command line must be there and
// readable (input error otherwise).
std::optional<model::between_runs_spread> between_runs_wanted(const po::variables_map& vm,
                                                              const model::observation_set& data) {
  const std::string file = vm["between-runs"].as<std::string>();
  const std::string horizon = vm["between-runs-horizon"].as<std::string>();
  if (file.empty()) throw usage_error("--between-runs: empty; a file, or none");
  if (std::ranges::find(model::between_runs_horizons, horizon) == std::end(model::between_runs_horizons))
    throw usage_error("--between-runs-horizon: '" + horizon + "' is neither minutes nor hours");
  if (file == "none" || data.historical) return std::nullopt;
  if (vm["between-runs"].defaulted() && !std::filesystem::exists(file)) {
    std::cerr << "pollscale fit: no spread between runs: " << file
              << " is not there (--between-runs FILE); simulations answer for the state this run met\n";
    return std::nullopt;
  }
  model::between_runs_spread b = model::read_between_runs(file, horizon);
  // The corpus's own file is named as the tree names it, not where this tree was built.
  if (vm["between-runs"].defaulted()) b.source = "datasets/machines/between_runs.json";
  return b;
}

void report_between_runs(const model::model_set& models) {
  if (!models.between_runs) return;
  const auto& b = *models.between_runs;
  std::cerr << "pollscale fit: a live server measured in another run of a host (" << b.horizon
            << " later) lands off its simulation by a log sd of " << format_number(b.log_sd, 3)
            << " beyond the simulation's spread (" << b.rows << " rows of " << b.hosts << " hosts, " << b.estimated
            << "): drawn simulations carry it (--between-runs none: leave it out)\n";
}

// Where the run's host kept its two CPUs (model.json placement), when it moved them: what
// drawn simulations will meet.
void report_placement(const model::model_set& models) {
  if (!models.placement) return;
  const auto& p = *models.placement;
  std::cerr << "pollscale fit: the host moved its first two CPUs apart for "
            << format_number(100 * (1 - p.near_share), 3) << "% of the run, where a cross-CPU wake-up took "
            << format_number(p.far_over_near, 3) << "x as long (" << p.far_readings << " and " << p.near_readings
            << " wake-sentinel readings): drawn simulations meet each placement as often (simulate --placement)\n";
}

// The corpus's capacity efficiency into model.json: the CPU-scaling laws price wider machines
// by it, and so does a simulated server on more CPUs than the run had, laws or none.
void carry_capacity_efficiency(const std::optional<model::capacity_efficiency>& e, model::model_set& models) {
  if (!e) return;
  models.efficiency = e;
  for (auto& laws : models.cpu_scaling) laws.efficiency = e;
  std::cerr << "pollscale fit: " << capacity_efficiency_text(*e) << "\n";
}

}  // namespace

int cmd_fit(const args_t& args) {
  const auto opts = fit_options_description();
  po::positional_options_description pos;
  pos.add("data", 1);
  po::options_description older = model_fit_older_options();
  older.add_options()("output", arg<std::string>("FILE"), "the old spelling of --out");
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm, "usage: pollscale fit DATASET [-o model.json] [options]", older))
    return exit_ok;
  const std::string out = output_path(vm);
  const output_format format = parse_format(vm["format"].as<std::string>());
  model::fit_options fo = fit_options_from(vm);
  fo.progress = step_progress("pollscale fit", "cell", ::isatty(STDERR_FILENO) != 0);
  const auto data = model::load_observations(vm["data"].as<std::string>(), fo.statistic);
  const bool check = simulator_check_wanted(vm);
  const auto spread = between_runs_wanted(vm, data);
  // A published table is another machine of another age: the corpus's guests do not speak for it.
  const auto efficiency = data.historical
                              ? std::nullopt
                              : capacity_efficiency_wanted(vm, "fit", std::string(model::statistic_name(fo.statistic)));
  model::model_set models = model::fit_models(data, fo);
  carry_capacity_efficiency(efficiency, models);
  report_left_out("fit", models.skipped);
  if (check) check_simulator(data, models);
  // After the check, which judges this run's server in this run's state.
  models.between_runs = spread;
  report_between_runs(models);
  report_placement(models);
  if (out.empty()) {
    std::cout << model::to_json(models).dump(2) << "\n";
    return exit_ok;
  }
  model::save_model(out, models);
  std::cerr << "pollscale fit: " << models.cells.size() << " models";
  if (!models.cpu_scaling.empty())
    std::cerr << " and the CPU-scaling laws of " << models.cpu_scaling.size() << " experiments (predict --cpus)";
  std::cerr << " written to " << out << "\n";
  if (format == output_format::json)
    std::cout << model::to_json(models).dump(2) << "\n";
  else if (format == output_format::csv)
    write_csv(std::cout, summary_table(models));
  else
    write_table(std::cout, summary_table(models));
  return exit_ok;
}

}  // namespace pollscale::app
