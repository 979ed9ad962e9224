// pollscale predict model.json --mechanism M --scenario S --n N [...]: what one operation
// costs at a point, with its 95% prediction interval and how far it extrapolates. Which
// cells a model answers for: `pollscale cells model.json`. With --change/--drop it also
// answers on the model with those terms changed (studies/model_change.hpp), beside the
// baseline: the seeds' kernel-patch what-ifs ("poll's fixed cost 1.5 µs less") per n; with
// --swap FROM=TO, by another mechanism's cell of the same machine (studies/mechanism_swap.hpp).
// A CPU-scaling scenario is answered per machine width from the model's scalability laws
// (app/predict_cpus.hpp).

#include <cmath>
#include <iostream>
#include <stdexcept>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/predict_cpus.hpp"
#include "app/summary_view.hpp"
#include "app/table_writer.hpp"
#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"
#include "studies/mechanism_swap.hpp"
#include "studies/model_change.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description predict_options() {
  po::options_description o("predict options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")
      ("model", arg<std::string>("MODEL")->required(), "model.json written by pollscale fit (positional)")
      ("scenario", arg<std::string>("NAME")->required(), "scenario, e.g. find_active")
      ("mechanism", arg<std::string>("MECH")->default_value(""), "select, poll, epoll, ...; none: the cells without one "
       "(the plain blocking read's wake-up)")
      ("n", arg<long long>("N"), "registered descriptors (n_fds)")
      ("k", arg<long long>("N"), "ready descriptors (n_active; default 1)")
      ("pos", arg<std::string>("POS")->default_value(""), "active_pos: first, middle, last, top, spread, random")
      ("max-fd", arg<long long>("N"), "highest descriptor passed (default n + 2)")
      ("blocking", arg<long long>("0|1"), "0: timeout 0, 1: the call sleeps until woken")
      ("fd-kind", arg<std::string>("KIND")->default_value(""), "pipe, eventfd, socketpair, tcp, udp, fifo, tmpfile")
      ("variant", arg<std::string>("NAME")->default_value(""), "lt, et, oneshot, multishot, ...; none: no variant")
      ("metric", arg<std::string>("NAME")->default_value(""), "time_per_call, time_per_op, throughput, ...")
      ("threads", arg<std::string>("N[,N..]"), "threads taking part in one operation; for a timeout-0 find_active "
       "call, the process's: 1 (default) or 2 (a multi-threaded process, whose every fd lookup takes a reference); "
       "for a CPU-scaling scenario (producers, private_sets, private_processes, shared_epoll, accept_herd) its N, a comma list "
       "(default: as many as CPUs)")
      ("cpus", arg<std::string>("C[,C..]"), "distinct CPUs used; for a CPU-scaling scenario the machine's CPUs, a comma "
       "list, e.g. 1,2,4,16,128")
      ("pinning", arg<std::string>("PIN")->default_value(""), "CPU of each thread, e.g. 0+1")
      ("platform", arg<std::string>("TEXT"), "historical models: the machine, as `pollscale cells` lists it")
      ("kernel", arg<std::string>("TEXT"), "historical models: the kernel or OS release")
      ("change", po::value<std::vector<std::string>>()->value_name("MECH.TERM*=F")->composing(),
       "also answer on the model with a term changed: MECH.TERM*=F, +=X, -=X or =X (X in the term's unit, "
       "as `pollscale cells` lists it); repeatable")
      ("drop", po::value<std::vector<std::string>>()->value_name("MECH.TERM")->composing(),
       "the same as --change MECH.TERM=0; repeatable")
      ("swap", arg<std::string>("FROM=TO"), "also answer with mechanism TO in FROM's place (MECH or MECH/VARIANT, "
       "e.g. poll=devpoll), by the model's TO cell of the same machine")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  return o;
}

std::optional<std::int64_t> count_flag(const po::variables_map& vm, const char* flag) {
  if (!vm.count(flag)) return std::nullopt;
  const long long v = vm[flag].as<long long>();
  if (v < 0) throw usage_error(std::string("--") + flag + ": " + std::to_string(v) + " is negative");
  return v;
}

// --threads and --cpus of a cost cell: one count (a list is for a CPU-scaling scenario).
std::optional<std::int64_t> one_count_flag(const po::variables_map& vm, const char* flag) {
  if (!vm.count(flag)) return std::nullopt;
  const auto counts = parse_count_list(vm[flag].as<std::string>(), flag);
  if (counts.size() != 1)
    throw usage_error(std::string("--") + flag + ": one count for a cost cell (a list is for a CPU-scaling scenario: " +
                      "producers, private_sets, private_processes, shared_epoll, accept_herd)");
  return counts.front();
}

datasets::key query_of(const po::variables_map& vm) {
  datasets::key q;
  q.scenario = vm["scenario"].as<std::string>();
  q.mechanism = vm["mechanism"].as<std::string>();
  q.fd_kind = vm["fd-kind"].as<std::string>();
  q.variant = vm["variant"].as<std::string>();
  q.metric = vm["metric"].as<std::string>();
  q.active_pos = vm["pos"].as<std::string>();
  const std::string pinning = vm["pinning"].as<std::string>();
  try {
    q.pinning = pinning == model::empty_column ? pinning : datasets::pinning::parse(pinning).text();
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--pinning: ") + e.what());
  }
  q.n_fds = count_flag(vm, "n");
  q.n_active = count_flag(vm, "k");
  q.max_fd = count_flag(vm, "max-fd");
  q.blocking = count_flag(vm, "blocking");
  q.threads = one_count_flag(vm, "threads");
  q.cpus = one_count_flag(vm, "cpus");
  if (q.blocking && *q.blocking > 1) throw usage_error("--blocking: " + std::to_string(*q.blocking) + " is not 0 or 1");
  const auto chosen = [](const std::string& v) { return !v.empty() && v != model::empty_column; };
  if (chosen(q.mechanism) && !datasets::is_known_mechanism(q.mechanism))
    throw usage_error("--mechanism: unknown mechanism '" + q.mechanism + "'");
  if (chosen(q.fd_kind) && !datasets::is_known_fd_kind(q.fd_kind))
    throw usage_error("--fd-kind: unknown fd kind '" + q.fd_kind + "'");
  const std::string& pos = q.active_pos;
  if (!pos.empty() && !datasets::parse<datasets::position>(pos))
    throw usage_error("--pos: '" + pos + "' is not one of first, middle, last, top, spread, random");
  return q;
}

// --platform and --kernel keep the named machine's cells of a historical model set.
model::model_set of_machine(model::model_set models, const po::variables_map& vm) {
  const auto text = [&](const char* flag) { return vm.count(flag) ? vm[flag].as<std::string>() : std::string(); };
  try {
    return model::of_machine(std::move(models), text("platform"), text("kernel"));
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--") + e.what());
  }
}

std::string num(double v) { return std::isfinite(v) ? format_number(v, 5) : (std::isnan(v) ? "" : "inf"); }

// The --change and --drop of the command line, parsed, in order.
std::vector<studies::term_change> changes_of(const po::variables_map& vm) {
  std::vector<studies::term_change> out;
  for (const char* flag : {"change", "drop"}) {
    if (!vm.count(flag)) continue;
    for (const std::string& text : vm[flag].as<std::vector<std::string>>()) try {
        out.push_back(std::string(flag) == "change" ? studies::parse_term_change(text)
                                                    : studies::parse_term_drop(text));
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--") + flag + ": " + e.what());
      }
  }
  return out;
}

// The answer on the model with `changes` applied (which cell answers cannot change: only
// coefficients do). A coefficient a change would take below 0 is held there, said on stderr.
struct changed_answer {
  std::string change;  ///< the changes as written, joined by ", "
  model::prediction p;
  std::vector<std::string> clamped;
};

changed_answer answer_changed(const model::model_set& models, const datasets::key& query,
                              const std::vector<studies::term_change>& changes) {
  changed_answer a;
  for (const auto& c : changes) a.change += (a.change.empty() ? "" : ", ") + c.text;
  studies::change_report report;
  model::model_set changed;
  try {
    changed = studies::apply_changes(models, changes, &report);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--change: ") + e.what());
  }
  a.p = model::predict(changed, query);
  a.clamped = report.clamped;
  if (!a.clamped.empty())
    std::cerr << "predict: note: " << a.change << " would take " << a.clamped.size()
              << " coefficient(s) below 0; they are held at 0 (a cost cannot be negative), the first: "
              << a.clamped.front() << "\n";
  return a;
}

// The query answered with another mechanism in its mechanism's place (--swap), as a changed
// answer beside the baseline.
changed_answer answer_swap(const model::model_set& models, const datasets::key& query, const std::string& text) {
  changed_answer a;
  a.change = text;
  try {
    a.p = studies::answer_swapped(models, query, studies::parse_mechanism_swap(text));
  } catch (const std::invalid_argument& e) {
    throw usage_error("--swap: " + std::string(e.what()));
  }
  return a;
}

nlohmann::json changed_json(const changed_answer& a, const model::prediction& base) {
  return {{"change", a.change},
          {"model", a.p.model},  // a swap is answered by another cell, with its own range
          {"formula", a.p.formula},
          {"extrapolated", a.p.extrapolated},
          {"extrapolation", a.p.extrapolation_factor},
          {"value", a.p.value},
          {"lo", json_number(a.p.lo)},
          {"hi", json_number(a.p.hi)},
          {"difference", a.p.value - base.value},
          {"vs_baseline", json_number(a.p.value / base.value)},
          {"clamped", a.clamped},
          {"no_interval", a.p.has_interval ? nlohmann::json() : nlohmann::json(a.p.no_interval)}};
}

text_table answer_table(const model::prediction& p, const std::optional<changed_answer>& changed, bool csv) {
  text_table t{{"model", "value", "lo", "hi", "unit", "extrapolation", "formula"},
               {},
               {false, true, true, true, false, true, false}};
  const auto number = [csv](double v) { return csv ? csv_number(v) : num(v); };
  const auto row = [&](const model::prediction& q) {
    return std::vector<std::string>{q.model,
                                    number(q.value),
                                    number(q.lo),
                                    number(q.hi),
                                    q.unit,
                                    csv ? csv_number(q.extrapolation_factor)
                                        : (q.extrapolated ? format_number(q.extrapolation_factor, 3) + "x" : "no"),
                                    q.formula};
  };
  t.rows.push_back(row(p));
  if (!changed) return t;
  // The baseline and the changed model side by side: what the change saves, absolute and relative.
  t.columns.insert(t.columns.begin() + 1, "change");
  t.columns.insert(t.columns.begin() + 6, {"difference", "vs_baseline"});
  t.numeric.insert(t.numeric.begin() + 1, false);
  t.numeric.insert(t.numeric.begin() + 6, {true, true});
  t.rows.push_back(row(changed->p));
  for (std::size_t i = 0; i < 2; ++i) {
    auto& r = t.rows[i];
    r.insert(r.begin() + 1, i == 0 ? "baseline" : changed->change);
    const double diff = i == 0 ? 0 : changed->p.value - p.value;
    const double ratio = i == 0 ? 1 : changed->p.value / p.value;
    r.insert(r.begin() + 6, {number(diff), csv ? csv_number(ratio) : format_number(ratio, 4)});
  }
  return t;
}

}  // namespace

int cmd_predict(const args_t& args) {
  const auto opts = predict_options();
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm,
                          "usage: pollscale predict model.json --scenario S --mechanism M --n N [options]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  if (is_cpu_scaling_query(vm["scenario"].as<std::string>())) {
    answer_cpu_scaling(vm, of_machine(model::load_model(vm["model"].as<std::string>()), vm), format);
    return exit_ok;
  }
  const datasets::key query = query_of(vm);
  const model::model_set models = of_machine(model::load_model(vm["model"].as<std::string>()), vm);
  std::string why;
  const auto answer = model::try_predict(models, query, &why);
  if (!answer) throw usage_error(why);
  const model::prediction& p = *answer;
  const auto changes = changes_of(vm);
  if (!changes.empty() && vm.count("swap"))
    throw usage_error("--swap: one what-if at a time (--change/--drop, or --swap)");
  std::optional<changed_answer> changed;
  if (!changes.empty()) changed = answer_changed(models, query, changes);
  if (vm.count("swap")) changed = answer_swap(models, query, vm["swap"].as<std::string>());
  if (format == output_format::json) {
    nlohmann::json doc = stamped(output_kind::prediction,
                                 {{"query", key_json(query)},
                                  {"model", p.model},
                                  {"formula", p.formula},
                                  {"value", p.value},
                                  {"lo", json_number(p.lo)},
                                  {"hi", json_number(p.hi)},
                                  {"unit", p.unit},
                                  {"statistic", models.statistic},
                                  {"extrapolated", p.extrapolated},
                                  {"has_interval", p.has_interval},
                                  {"no_interval", p.has_interval ? nlohmann::json() : nlohmann::json(p.no_interval)},
                                  {"extrapolation", p.extrapolation_factor}});
    if (changed) doc["changed"] = changed_json(*changed, p);
    std::cout << doc.dump(2) << "\n";
    return exit_ok;
  }
  const text_table t = answer_table(p, changed, format == output_format::csv);
  if (format == output_format::csv)
    write_csv(std::cout, t);
  else
    write_table(std::cout, t);
  return exit_ok;
}

}  // namespace pollscale::app
