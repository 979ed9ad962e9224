// pollscale fit DATASET [-o model.json]: fit a cost model to every cell of a calibration
// dataset (or a historical CSV), choose each cell's form by leave-one-out
// cross-validation, and write model.json (docs/model.md §7). Without -o the
// model set goes to stdout as JSON; with -o a summary of the fitted terms does.

#include <cmath>
#include <iostream>

#include <unistd.h>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/model_options.hpp"
#include "app/progress_reporter.hpp"
#include "app/table_writer.hpp"
#include "model/fit.hpp"
#include "model/model_json.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

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
      ("format", arg<std::string>("FORMAT")->default_value("table"), "summary format with -o: table, csv or json");
  // clang-format on
  o.add(model_fit_options_description());
  return o;
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
  const model::model_set models = model::fit_models(data, fo);
  report_left_out("fit", models.skipped);
  if (out.empty()) {
    std::cout << model::to_json(models).dump(2) << "\n";
    return exit_ok;
  }
  model::save_model(out, models);
  std::cerr << "pollscale fit: " << models.cells.size() << " models written to " << out << "\n";
  if (format == output_format::json)
    std::cout << model::to_json(models).dump(2) << "\n";
  else if (format == output_format::csv)
    write_csv(std::cout, summary_table(models));
  else
    write_table(std::cout, summary_table(models));
  return exit_ok;
}

}  // namespace pollscale::app
