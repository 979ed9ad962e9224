// pollscale whatif: the same server and workload simulated under several mechanisms, and
// optionally along one swept quantity ("what if we used epoll; what if 50 000 connections
// sat idle"). One row per (mechanism, value), each with its 95% intervals (docs/sim.md).
// --change and --drop ask the same of a changed model ("what if poll's fixed cost were 2 µs
// less"): each mechanism they name gets its rows again on the changed model
// (studies/model_change.hpp), with the throughput against its baseline row. --swap
// poll=devpoll does the same with another mechanism's cells, of the same machine, in the
// first one's place (studies/mechanism_swap.hpp).

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/sim_costs.hpp"
#include "app/sim_options.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "sim/core/stop.hpp"
#include "studies/mechanism_swap.hpp"
#include "studies/model_change.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description whatif_options() {
  po::options_description o("whatif options");
  // One option per line: the table reads like the --help it prints.
  // clang-format off
  o.add_options()
      ("help,h", "show this help")
      ("mechanisms", arg<std::string>("LIST")->default_value("poll,epoll"), "comma-separated mechanisms to compare")
      ("sweep", arg<std::string>("QTY=V,V,..."), ("NAME=V1,V2,... with NAME one of " + comma_list(quantity_names(true)) + ", or a kind: " + comma_list(kind_names()) + " (e.g. workers=threads,processes)").c_str())
      ("change", po::value<std::vector<std::string>>()->value_name("MECH.TERM*=F")->composing(), "a model term changed: MECH.TERM*=F, +=X, -=X or =X (X in the term's unit); repeatable; needs --model")
      ("drop", po::value<std::vector<std::string>>()->value_name("MECH.TERM")->composing(), "a model term removed (MECH.TERM=0); repeatable")
      ("swap", po::value<std::vector<std::string>>()->value_name("FROM=TO")->composing(), "FROM's rows again with mechanism TO's cells of the same model in FROM's place (MECH or MECH/VARIANT, e.g. poll=devpoll, poll=epoll/lt); the server still behaves as FROM; repeatable, one per mechanism; needs --model")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  o.add(sim_server_options_description());
  o.add(sim_cost_options_description());
  return o;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string p; std::getline(in, p, sep);) parts.push_back(p);
  return parts;
}

struct sweep {
  std::string name;                // "" when nothing is swept
  std::vector<double> values;      // {NaN} when nothing is swept, or a kind is
  std::vector<std::string> kinds;  // a swept kind's values (kind_names()); empty otherwise

  bool of_kinds() const { return !kinds.empty(); }
  std::size_t size() const { return of_kinds() ? kinds.size() : values.size(); }
};

sweep parse_sweep(const po::variables_map& vm) {
  if (!vm.count("sweep")) return {"", {std::nan("")}, {}};
  const std::string text = vm["sweep"].as<std::string>();
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw usage_error("--sweep: '" + text + "' is not NAME=V1,V2,...");
  sweep s{text.substr(0, eq), {}, {}};
  const auto kinds = kind_names();
  if (std::find(kinds.begin(), kinds.end(), s.name) != kinds.end()) {
    for (const std::string& v : split(text.substr(eq + 1), ',')) {
      if (v.empty()) throw usage_error("--sweep: an empty value in '" + text + "'");
      s.kinds.push_back(v);
    }
    s.values.assign(s.kinds.size(), std::nan(""));
    return s;
  }
  for (const std::string& v : split(text.substr(eq + 1), ',')) {
    std::size_t used = 0;
    double x = 0;
    try {
      x = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || v.empty()) throw usage_error("--sweep: '" + v + "' is not a number");
    s.values.push_back(x);
  }
  return s;
}

// Integers (connections, CPUs) as integers, rates with their significant digits.
std::string quantity_text(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : format_number(v, 6);
}

struct row {
  std::string mechanism;
  std::string change;  ///< "" for the baseline; else the changes made to the model, as written
  double value = 0;    ///< the swept quantity's value (NaN when none, or a kind, is swept)
  std::string kind;    ///< the swept kind's value ("" when none is swept)
  sim_setup setup;
  sim_costs costs;
  std::shared_ptr<cost_provenance> prov;
  sim::experiment_result result;
};

// The --change and --drop of the command line, parsed, in order.
std::vector<studies::term_change> changes_of(const po::variables_map& vm, const std::vector<std::string>& mechanisms) {
  std::vector<studies::term_change> out;
  for (const char* flag : {"change", "drop"}) {
    if (!vm.count(flag)) continue;
    for (const std::string& text : vm[flag].as<std::vector<std::string>>()) {
      try {
        out.push_back(std::string(flag) == "change" ? studies::parse_term_change(text)
                                                    : studies::parse_term_drop(text));
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--") + flag + ": " + e.what());
      }
      if (std::find(mechanisms.begin(), mechanisms.end(), out.back().mechanism) == mechanisms.end())
        throw usage_error(std::string("--") + flag + ": '" + text + "': " + out.back().mechanism +
                          " is not among --mechanisms");
    }
  }
  if (!out.empty() && !vm.count("model")) throw usage_error("--change/--drop: change a model's terms: give --model");
  return out;
}

// Mechanism m's changes, and the model they make (null when m has none).
std::pair<std::string, std::shared_ptr<const model::model_set>> changed_model(
    const std::vector<studies::term_change>& all, const std::string& m,
    const std::shared_ptr<const model::model_set>& base) {
  std::vector<studies::term_change> mine;
  std::string label;
  for (const auto& c : all)
    if (c.mechanism == m) {
      mine.push_back(c);
      label += (label.empty() ? "" : ", ") + c.text;
    }
  if (mine.empty()) return {"", nullptr};
  studies::change_report report;
  std::shared_ptr<const model::model_set> changed;
  try {
    changed = std::make_shared<const model::model_set>(studies::apply_changes(*base, mine, &report));
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--change: ") + e.what());
  }
  if (!report.clamped.empty())
    std::cerr << "whatif: note: " << label << " would take " << report.clamped.size()
              << " coefficient(s) below 0; they are held at 0 (a cost cannot be negative), the first: "
              << report.clamped.front() << "\n";
  return {label, changed};
}

// The --swap of the command line, parsed: at most one per mechanism of --mechanisms, not
// beside --change/--drop (one kind of what-if at a time, as predict).
std::vector<studies::mechanism_swap> swaps_of(const po::variables_map& vm, const std::vector<std::string>& mechanisms,
                                              bool changes) {
  std::vector<studies::mechanism_swap> out;
  if (!vm.count("swap")) return out;
  if (changes) throw usage_error("--swap: one kind of what-if at a time (--change/--drop, or --swap)");
  if (!vm.count("model")) throw usage_error("--swap: swaps a model's cells: give --model");
  for (const std::string& text : vm["swap"].as<std::vector<std::string>>()) {
    try {
      out.push_back(studies::parse_mechanism_swap(text));
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("--swap: ") + e.what());
    }
    const std::string& from = out.back().from_mechanism;
    if (std::find(mechanisms.begin(), mechanisms.end(), from) == mechanisms.end())
      throw usage_error("--swap: '" + text + "': " + from + " is not among --mechanisms");
    for (std::size_t i = 0; i + 1 < out.size(); ++i)
      if (out[i].from_mechanism == from) throw usage_error("--swap: " + from + " is swapped twice");
  }
  return out;
}

// Mechanism m's swap, if any, and the model it makes (null when m has none).
std::pair<std::string, std::shared_ptr<const model::model_set>> swapped_model(
    const std::vector<studies::mechanism_swap>& swaps, const std::string& m,
    const std::shared_ptr<const model::model_set>& base) {
  for (const auto& s : swaps)
    if (s.from_mechanism == m) {
      try {
        return {s.text, std::make_shared<const model::model_set>(studies::swap_cells(*base, s))};
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--swap: ") + e.what());
      }
    }
  return {"", nullptr};
}

// Every (mechanism, value) combination, checked before the first (possibly long) run: each
// mechanism's baseline rows, then its rows on the changed (or swapped) model when it has one.
std::vector<row> plan_rows(const po::variables_map& vm, const std::vector<std::string>& mechanisms, const sweep& sw) {
  refuse_shared_wait_flags(vm, mechanisms.size());
  const auto changes = changes_of(vm, mechanisms);
  const auto swaps = swaps_of(vm, mechanisms, !changes.empty());
  const auto base = model_from(vm);
  std::vector<row> rows;
  for (const std::string& m : mechanisms) {
    const auto [label, changed] = swaps.empty() ? changed_model(changes, m, base) : swapped_model(swaps, m, base);
    for (const bool with_change : {false, true}) {
      if (with_change && !changed) continue;
      for (std::size_t i = 0; i < sw.size(); ++i) {
        row r{m,
              with_change ? label : "",
              sw.values[i],
              sw.of_kinds() ? sw.kinds[i] : "",
              sim_setup_from(vm, m),
              {},
              std::make_shared<cost_provenance>(),
              {}};
        if (sw.of_kinds())
          set_kind(r.setup, sw.name, r.kind, "sweep");
        else if (!sw.name.empty())
          set_quantity(r.setup, sw.name, r.value, "sweep");
        r.costs = sim_costs_for(vm, m, r.prov, with_change ? changed : base);
        rows.push_back(std::move(r));
      }
    }
  }
  return rows;
}

// The throughput of a changed row over its baseline's (same mechanism and value); null for
// a baseline row or when the baseline has no throughput.
nlohmann::json vs_baseline(const std::vector<row>& rows, const row& r) {
  if (r.change.empty()) return nullptr;
  for (const row& b : rows)
    if (b.change.empty() && b.mechanism == r.mechanism && b.kind == r.kind &&
        (b.value == r.value || (std::isnan(b.value) && std::isnan(r.value))) && b.result.throughput.mean > 0)
      return r.result.throughput.mean / b.result.throughput.mean;
  return nullptr;
}

nlohmann::json rows_json(const std::vector<row>& rows, const sweep& sw) {
  nlohmann::json j = inputs_json(rows.front().setup, *rows.front().prov);
  j.erase("mechanism");
  j["sweep"] = sw.name;
  j["rows"] = nlohmann::json::array();
  for (const row& r : rows) {
    nlohmann::json one = sim::to_json(r.result, false);
    one["mechanism"] = r.mechanism;
    one["change"] = r.change.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.change);
    one["vs_baseline"] = vs_baseline(rows, r);
    if (sw.of_kinds())
      one[sw.name] = r.kind;
    else if (!sw.name.empty())
      one[sw.name] = r.value;
    one["costs"] = costs_json(*r.prov);
    j["rows"].push_back(one);
  }
  return j;
}

text_table rows_table(const std::vector<row>& rows, const sweep& sw, bool csv) {
  text_table t{{"mechanism"}, {}, {false}};
  const bool changes = std::any_of(rows.begin(), rows.end(), [](const row& r) { return !r.change.empty(); });
  if (changes) {
    t.columns.insert(t.columns.end(), {"change", "vs_baseline"});
    t.numeric.insert(t.numeric.end(), {false, true});
  }
  if (!sw.name.empty()) {
    t.columns.push_back(sw.name);
    t.numeric.push_back(!sw.of_kinds());
  }
  const std::string throughput = datasets::text(datasets::metric::throughput);
  for (const std::string& c :
       {throughput, throughput + "_ci95_lo", throughput + "_ci95_hi", std::string("latency_p99_s"),
        std::string("latency_p99_s_ci95_lo"), std::string("latency_p99_s_ci95_hi"), std::string("cpu_utilisation"),
        std::string("calls_per_s"), std::string("events_per_call"), std::string("replications")}) {
    t.columns.push_back(c);
    t.numeric.push_back(true);
  }
  for (const row& r : rows) {
    std::vector<std::string> cells = {r.mechanism};
    if (changes) {
      const auto ratio = vs_baseline(rows, r);
      cells.push_back(r.change.empty() ? "-" : r.change);
      cells.push_back(ratio.is_number() ? number_cell(ratio.get<double>(), 4, csv) : "");
    }
    if (!sw.name.empty()) cells.push_back(sw.of_kinds() ? r.kind : quantity_text(r.value));
    const sim::experiment_result& x = r.result;
    for (double v :
         {x.throughput.mean, x.throughput.ci95_lo, x.throughput.ci95_hi, x.latency_p99_s.mean, x.latency_p99_s.ci95_lo,
          x.latency_p99_s.ci95_hi, x.cpu_utilisation.mean, x.calls_per_s.mean, x.events_per_call.mean})
      cells.push_back(number_cell(v, 5, csv));
    cells.push_back(std::to_string(x.replications));
    t.rows.push_back(cells);
  }
  return t;
}

/// Simulates the rows in order until a stop request; returns how many have results (the
/// last of them possibly cut short: its result says interrupted).
std::size_t simulate_rows(std::vector<row>& rows, const sweep& sw) {
  std::size_t done = 0;
  for (row& r : rows) {
    try {
      r.result = run_experiment(r.setup, r.costs);
    } catch (const sim::stopped&) {
      break;  // not one replication of this row was complete
    }
    ++done;
    const std::string label =
        "whatif: " + r.mechanism + (r.change.empty() ? "" : " [" + r.change + "]") +
        (sw.name.empty() ? "" : " " + sw.name + "=" + (sw.of_kinds() ? r.kind : quantity_text(r.value))) + ": ";
    report_diagnostics(label, r.result, r.setup, *r.prov);
    if (r.result.interrupted) break;
  }
  return done;
}

void print_rows(const std::vector<row>& rows, const sweep& sw, output_format format) {
  if (format == output_format::json)
    std::cout << stamped(output_kind::whatif, rows_json(rows, sw)).dump(2) << "\n";
  else if (format == output_format::csv)
    write_csv(std::cout, rows_table(rows, sw, true));
  else
    write_table(std::cout, rows_table(rows, sw, false));
}

}  // namespace

int cmd_whatif(const args_t& args) {
  const auto opts = whatif_options();
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm,
                          "usage: pollscale whatif [MODEL] [--mechanisms poll,epoll] [--sweep idle=0,1000,10000]\n"
                          "       [--change 'poll.per_fd*=0.9'] [--drop poll.fixed]\n"
                          "       [simulate's server, workload, run and cost options] [--format table|csv|json]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const std::vector<std::string> mechanisms = split_list(vm["mechanisms"].as<std::string>(), "mechanisms");
  if (mechanisms.empty()) throw usage_error("--mechanisms: give at least one mechanism");
  const sweep sw = parse_sweep(vm);
  std::vector<row> rows = plan_rows(vm, mechanisms, sw);
  const std::size_t planned = rows.size();
  const std::size_t done = simulate_rows(rows, sw);
  const bool interrupted = done < planned || (done > 0 && rows[done - 1].result.interrupted);
  rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(done), rows.end());
  if (interrupted)
    std::cerr << "whatif: interrupted: " << done << " of " << planned << " rows simulated"
              << (done > 0 && rows.back().result.interrupted ? " (the last with the replications done before the stop)"
                                                             : "")
              << "\n";
  if (!rows.empty()) print_rows(rows, sw, format);
  return interrupted ? exit_interrupted : exit_ok;
}

}  // namespace pollscale::app
