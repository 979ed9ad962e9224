// pollscale cells MODEL: what a model set can answer. One row per fitted cell — its key
// columns, the range of n it was fitted on, its form and leave-one-out error — and the
// predict flags that select it, so a user never has to guess which combination of
// --fd-kind, --blocking, --cpus and --pinning names the cell they mean.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/shell_quote.hpp"
#include "app/summary_view.hpp"
#include "app/table_writer.hpp"
#include "model/evaluate.hpp"
#include "model/model_json.hpp"
#include "model/prediction.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description cells_options() {
  po::options_description o("cells options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")
      ("model", arg<std::string>("MODEL")->required(), "model.json written by pollscale fit (positional)")
      ("scenario", arg<std::string>("NAME")->default_value(""), "list only this scenario's cells")
      ("mechanism", arg<std::string>("MECH")->default_value(""), "list only this mechanism's cells (none: those without)")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  return o;
}

// The predict flags naming the cell: every key column it has, an empty text column as
// model::empty_column so that it cannot match a sibling that has one.
std::string predict_flags(const model::cell_model& m) {
  const datasets::key& c = m.cell;
  const auto text = [](const std::string& v) { return v.empty() ? std::string(model::empty_column) : v; };
  std::string s = "--scenario " + c.scenario + " --mechanism " + text(c.mechanism) + " --variant " + text(c.variant);
  if (!c.fd_kind.empty()) s += " --fd-kind " + c.fd_kind;
  if (c.blocking) s += " --blocking " + std::to_string(*c.blocking);
  if (c.threads) s += " --threads " + std::to_string(*c.threads);
  if (c.cpus) s += " --cpus " + std::to_string(*c.cpus);
  s += " --pinning " + text(c.pinning);
  s += " --metric " + c.metric;
  if (!m.platform.empty()) s += " --platform " + shell_quote(m.platform);
  if (!m.kernel.empty()) s += " --kernel " + shell_quote(m.kernel);
  return s;
}

// The fitted range of n as whole descriptors; "-" for a cell whose form has no n (one
// point, or a scenario measured at a single size).
std::string n_text(const model::cell_model& m, double n, bool csv) {
  if (!model::uses_n(m)) return csv ? "" : "-";
  return std::to_string(std::llround(n));
}

text_table cells_table(const std::vector<const model::cell_model*>& cells, bool full_precision) {
  text_table t{{"cell", "platform", "n_min", "n_max", "points", "mape_loo", "formula", "predict with"},
               {},
               {false, false, true, true, true, true, false, false}};
  for (const auto* m : cells) {
    const std::string platform = m->platform.empty() ? "" : m->platform + ", " + m->kernel;
    t.rows.push_back({datasets::describe(m->cell), platform, n_text(*m, m->dom.n_min, full_precision),
                      n_text(*m, m->dom.n_max, full_precision), std::to_string(m->stats.n_points),
                      full_precision ? csv_number(m->stats.mape_loo) : percent_text(m->stats.mape_loo), m->formula,
                      predict_flags(*m)});
  }
  // A calibration's cells are all of this machine: no platform column to show.
  const bool any_platform = std::any_of(cells.begin(), cells.end(), [](const auto* m) { return !m->platform.empty(); });
  if (!any_platform && !full_precision) {
    t.columns.erase(t.columns.begin() + 1);
    t.numeric.erase(t.numeric.begin() + 1);
    for (auto& r : t.rows) r.erase(r.begin() + 1);
  }
  return t;
}

nlohmann::json cells_json(const std::string& path, const model::model_set& models,
                          const std::vector<const model::cell_model*>& cells) {
  nlohmann::json out = output_document(output_kind::cells);
  out["model"] = path;
  out["source"] = models.source;
  out["statistic"] = models.statistic;
  nlohmann::json list = nlohmann::json::array();
  for (const auto* m : cells)
    list.push_back({{"key", key_json(m->cell)},
                    {"platform", column_json("platform", m->platform)},
                    {"kernel", column_json("kernel", m->kernel)},
                    {"unit", m->cell.unit},
                    {"n_min", model::uses_n(*m) ? nlohmann::json(std::llround(m->dom.n_min)) : nlohmann::json()},
                    {"n_max", model::uses_n(*m) ? nlohmann::json(std::llround(m->dom.n_max)) : nlohmann::json()},
                    {"points", m->stats.n_points},
                    {"mape_loo", json_number(m->stats.mape_loo)},
                    {"formula", m->formula},
                    {"predict_flags", predict_flags(*m)}});
  out["cells"] = std::move(list);
  out["skipped"] = models.skipped;
  return out;
}

// Why nothing is listed: the filter, or a model (or scenario) that holds CPU-scaling laws
// rather than cost cells, which predict --cpus answers.
std::string no_cell_message(const std::string& path, const model::model_set& models, const datasets::key& filter) {
  std::string laws;
  for (const auto& l : models.cpu_scaling)
    if (filter.scenario.empty() || l.experiment.scenario == filter.scenario)
      laws += (laws.empty() ? "" : "; ") + datasets::describe(l.experiment);
  if (!laws.empty() && (models.cells.empty() || !filter.scenario.empty()))
    return path + " holds no cost cell" + (filter.scenario.empty() ? "" : " of " + filter.scenario) +
           "; its CPU-scaling laws answer `pollscale predict " + path + " --scenario S --cpus C,..` for: " + laws;
  return "no cell of " + path + " matches " + datasets::describe(filter);
}

}  // namespace

int cmd_cells(const args_t& args) {
  const auto opts = cells_options();
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm, "usage: pollscale cells MODEL [--scenario S] [--mechanism M]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const std::string path = vm["model"].as<std::string>();
  const model::model_set models = model::load_model(path);
  datasets::key filter;
  filter.scenario = vm["scenario"].as<std::string>();
  filter.mechanism = vm["mechanism"].as<std::string>();
  const auto cells = model::matching_models(models, filter);
  if (cells.empty()) throw usage_error(no_cell_message(path, models, filter));
  if (format == output_format::json)
    std::cout << cells_json(path, models, cells).dump(2) << "\n";
  else if (format == output_format::csv)
    write_csv(std::cout, cells_table(cells, true));
  else
    write_table(std::cout, cells_table(cells, false));
  return exit_ok;
}

}  // namespace pollscale::app
