// pollscale compare A B: two calibrations (two kernels, two machines, two builds) point by
// point and per series, with verdicts that allow for how much this machine's numbers move
// between runs (studies/compare.hpp says how). `--fail-on-regression PCT` turns the verdict
// into an exit code for CI gating: 3 when B is significantly slower than A by more than PCT
// anywhere.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/summary_view.hpp"
#include "app/table_writer.hpp"
#include "datasets/dataset.hpp"
#include "datasets/fast_mode.hpp"
#include "studies/compare.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

using nlohmann::json;

po::options_description compare_options_description() {
  po::options_description o("compare options");
  // clang-format off
  o.add_options()("help,h", "show this help")
      ("a", arg<std::string>("DATASETS")->required(),
       "the baseline: a dataset directory, or several runs of it joined by commas (positional, first)")
      ("b", arg<std::string>("DATASETS")->required(),
       "the datasets compared with it, the same way (positional, second)")
      ("alpha", arg<double>("P")->default_value(0.05, "0.05"), "family-wise false-alarm rate of the verdicts (Holm), in (0, 0.5]")
      ("fail-on-regression", arg<double>("PCT"),
       "exit 3 when B is significantly slower than A by more than this many percent (in what --gate counts)")
      ("gate", arg<std::string>("LEVEL")->default_value("mechanisms"),
       "what --fail-on-regression counts: mechanisms (a mechanism's series pooled, the default), series (also one "
       "scenario's points across n) or points (also any single point); finer levels false-alarm more often on a "
       "drifting machine (docs/compare.md)")
      ("within-run-only", "leave out the between-run scatter τ: only what each run shows, its visits' spread and "
       "its rounds' drift (for two runs taken interleaved, or to see what the raw scatter alone would call "
       "significant)")
      ("relative", "judge every ratio against the whole-machine shift (the median over mechanisms of their median B/A "
       "time per op) instead of against no change: what moved more than the machine did, for two runs that met "
       "different speed modes; a change that slows everything alike is then invisible (the header still gives the "
       "shift)")
      ("statistic", arg<std::string>("STAT")->default_value("median"),
       "median (each point as measured) or adjusted (every run's samples brought to its own fast mode by its drift "
       "sentinel, then summarised again: for runs that met different speed modes; docs/calibrate.md)")
      ("points", arg<std::string>("WHICH")->default_value("significant"), "which points to list: significant or all")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  return o;
}

studies::compare_options options_of(const po::variables_map& vm) {
  studies::compare_options o;
  o.alpha = vm["alpha"].as<double>();
  if (!(o.alpha > 0 && o.alpha <= 0.5)) throw usage_error("--alpha: " + format_number(o.alpha) + " is not in (0, 0.5]");
  if (vm.count("fail-on-regression")) {
    const double pct = vm["fail-on-regression"].as<double>();
    if (!(pct >= 0 && pct < 1000))
      throw usage_error("--fail-on-regression: " + format_number(pct) + " is not in [0, 1000)");
    o.regression_min = pct / 100;
  }
  o.between_run_term = !vm.count("within-run-only");
  o.relative_to_machine = vm.count("relative") > 0;
  return o;
}

// 0 mechanisms, 1 series, 2 points: each level counts those above it too.
int gate_level(const std::string& gate) {
  if (gate == "mechanisms") return 0;
  if (gate == "series") return 1;
  if (gate == "points") return 2;
  throw usage_error("--gate: '" + gate + "' is not mechanisms, series or points");
}

// "REGRESSION" only where --fail-on-regression asked for a gate; else the direction.
std::string verdict(bool significant, double slowdown, bool regression, bool gate) {
  if (!significant) return "-";
  if (gate && regression) return "REGRESSION";
  return slowdown > 0 ? "slower" : "faster";
}

std::string ratio_text(double r, double lo, double hi) {
  return format_number(r, 4) + " [" + format_number(lo, 3) + ", " + format_number(hi, 3) + "]";
}

// "run1,run2,...": each a dataset directory; one run is the common case. `adjusted`: each
// brought to its own fast mode (datasets/fast_mode.hpp).
std::vector<datasets::dataset> read_runs(const std::string& list, const char* side, bool adjusted) {
  std::vector<datasets::dataset> runs;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string dir = list.substr(at, comma - at);
    if (dir.empty()) throw usage_error(std::string(side) + ": an empty directory name in '" + list + "'");
    runs.push_back(adjusted ? datasets::adjusted_to_fast_mode(datasets::read_dataset(dir), dir)
                            : datasets::read_dataset(dir));
    at = comma + 1;
  }
  return runs;
}

json side_json(const studies::side& s) {
  return {{"median", s.median},     {"lo", s.lo},         {"hi", s.hi},
          {"ln_se", s.ln_se},       {"visits", s.visits}, {"runs", std::max<std::size_t>(1, s.ln_runs.size())},
          {"samples", s.raw.size()}};
}

json group_json(const studies::group_comparison& g) {
  return {
      {"key", key_json(g.k)},   {"members", g.members},         {"ratio", g.ratio},          {"ratio_lo", g.ratio_lo},
      {"ratio_hi", g.ratio_hi}, {"slowdown", g.slowdown},       {"z", json_number(g.z)},     {"p", g.p},
      {"p_holm", g.p_holm},     {"significant", g.significant}, {"regression", g.regression}};
}

// One line for the reader when the two sides met different speed modes of their machine:
// every mechanism moves with it, and a comparison cannot tell that from what was changed.
std::string machine_shift_line(const studies::machine_shift& s) {
  if (!s.shifted) return {};
  return "pollscale compare: the drift sentinel read " + format_number(*s.sentinel_b_ns) + " ns in B against " +
         format_number(*s.sentinel_a_ns) + " ns in A (B/A " + format_number(*s.ratio, 3) +
         "): the two sides met different speed modes of their machine, and every mechanism moves with that; "
         "compare several runs of each side, interleaved (A,A2 B,B2; docs/compare.md)";
}

json result_json(const studies::comparison& c, const studies::machine_shift& shift, const po::variables_map& vm,
                 const studies::compare_options& o) {
  json mechanisms = json::array(), series = json::array(), points = json::array(), left_out = json::array();
  for (const auto& m : c.left_out)
    left_out.push_back({{"scenario", m.scenario}, {"revisions_a", m.a}, {"revisions_b", m.b}});
  for (const auto& m : c.mechanisms) mechanisms.push_back(group_json(m));
  for (const auto& s : c.series) series.push_back(group_json(s));
  for (const auto& p : c.points)
    points.push_back({{"key", key_json(p.k)},
                      {"a", side_json(p.a)},
                      {"b", side_json(p.b)},
                      {"ratio", p.ratio},
                      {"ratio_lo", p.ratio_lo},
                      {"ratio_hi", p.ratio_hi},
                      {"slowdown", p.slowdown},
                      {"z", json_number(p.z)},
                      {"p", p.p},
                      {"p_holm", json_number(p.p_holm)},
                      {"p_welch_raw", json_number(p.p_welch_raw)},
                      {"p_mw_raw", json_number(p.p_mw_raw)},
                      {"significant", p.significant},
                      {"regression", p.regression}});
  return {{"a", vm["a"].as<std::string>()},
          {"b", vm["b"].as<std::string>()},
          {"alpha", o.alpha},
          {"regression_min", o.regression_min},
          {"between_run_sd", c.between_run_sd},
          {"between_series_sd", c.between_series_sd},
          {"between_mechanism_sd", c.between_mechanism_sd},
          {"mechanism_round_drift", c.mechanism_round_drift},
          {"median_ratio", {{"ratio", c.median_ratio}, {"lo", c.median_ratio_lo}, {"hi", c.median_ratio_hi}}},
          {"relative_to_machine", c.relative_to_machine},
          {"statistic", vm["statistic"].as<std::string>()},
          {"reference_ratio", c.reference_ratio},
          {"sentinel",
           {{"a_ns", json_number(shift.sentinel_a_ns)},
            {"b_ns", json_number(shift.sentinel_b_ns)},
            {"ratio", json_number(shift.ratio)},
            {"shifted", shift.shifted}}},
          {"left_out", left_out},
          {"only_a", c.only_a},
          {"only_b", c.only_b},
          {"point_regressions", c.point_regressions},
          {"series_regressions", c.series_regressions},
          {"mechanism_regressions", c.mechanism_regressions},
          {"gate", vm["gate"].as<std::string>()},
          {"mechanisms", mechanisms},
          {"series", series},
          {"points", points}};
}

// "1", "1 and 2": the probe revisions of one side's runs.
std::string revisions_text(const std::set<int>& revisions) {
  std::string s;
  for (int r : revisions) s += (s.empty() ? "" : " and ") + std::to_string(r);
  return s;
}

std::string mechanism_label(const datasets::key& k) {
  const std::string m = k.mechanism.empty() ? "- (none: blocking read/write, memory)" : k.mechanism;
  return k.variant.empty() ? m : m + "/" + k.variant;
}

text_table groups_table(const std::vector<studies::group_comparison>& groups, bool mechanisms, bool gate) {
  text_table t{{mechanisms ? "mechanism" : "series", mechanisms ? "series" : "points",
                mechanisms ? "B/A time per op [95%]" : "B/A [95%]", "slowdown", "p (Holm)", "verdict"},
               {},
               {0, 1, 1, 1, 1, 0}};
  for (const auto& g : groups)
    t.rows.push_back({mechanisms ? mechanism_label(g.k) : datasets::describe(g.k), std::to_string(g.members),
                      ratio_text(g.ratio, g.ratio_lo, g.ratio_hi), percent_text(g.slowdown), format_number(g.p_holm, 2),
                      verdict(g.significant, g.slowdown, g.regression, gate)});
  return t;
}

text_table points_table(const studies::comparison& c, bool all, bool gate) {
  text_table t{{"point", "A", "B", "B/A [95%]", "slowdown", "p (Holm)", "p Welch raw", "p MW raw", "verdict"},
               {},
               {0, 1, 1, 1, 1, 1, 1, 1, 0}};
  for (const auto& p : c.points)
    if (all || p.significant)
      t.rows.push_back({datasets::describe(p.k), format_number(p.a.median), format_number(p.b.median),
                        ratio_text(p.ratio, p.ratio_lo, p.ratio_hi), percent_text(p.slowdown),
                        format_number(p.p_holm, 2), format_number(p.p_welch_raw, 2), format_number(p.p_mw_raw, 2),
                        verdict(p.significant, p.slowdown, p.regression, gate)});
  return t;
}

text_table csv_table(const studies::comparison& c) {
  text_table t{{"level"}, {}, {}};
  for (auto col : datasets::key_columns()) t.columns.emplace_back(col);
  for (const char* col : {"members", "a_median", "b_median", "ratio", "ratio_lo", "ratio_hi", "slowdown", "z", "p",
                          "p_holm", "p_welch_raw", "p_mw_raw", "significant", "regression"})
    t.columns.emplace_back(col);
  auto row = [&](const char* level, const datasets::key& k, std::vector<std::string> rest) {
    std::vector<std::string> r{level};
    for (auto col : datasets::key_columns()) r.push_back(datasets::key_field(k, col));  // pinning among them
    r.insert(r.end(), rest.begin(), rest.end());
    t.rows.push_back(std::move(r));
  };
  auto group = [&](const char* level, const studies::group_comparison& g) {
    row(level, g.k,
        {std::to_string(g.members), "", "", csv_number(g.ratio), csv_number(g.ratio_lo), csv_number(g.ratio_hi),
         csv_number(g.slowdown), csv_number(g.z), csv_number(g.p), csv_number(g.p_holm), "", "",
         g.significant ? "1" : "0", g.regression ? "1" : "0"});
  };
  for (const auto& m : c.mechanisms) group("mechanism", m);
  for (const auto& s : c.series) group("series", s);
  for (const auto& p : c.points)
    row("point", p.k,
        {"1", csv_number(p.a.median), csv_number(p.b.median), csv_number(p.ratio), csv_number(p.ratio_lo),
         csv_number(p.ratio_hi), csv_number(p.slowdown), csv_number(p.z), csv_number(p.p), csv_number(p.p_holm),
         csv_number(p.p_welch_raw), csv_number(p.p_mw_raw), p.significant ? "1" : "0", p.regression ? "1" : "0"});
  return t;
}

// `level`: what the gate counts (gate_level); a row reads REGRESSION only at those levels.
void write_text(const studies::comparison& c, const studies::machine_shift& shift, const po::variables_map& vm,
                int level) {
  std::size_t significant = 0;
  for (const auto& p : c.points) significant += p.significant;
  std::cout << "A: " << vm["a"].as<std::string>() << "\nB: " << vm["b"].as<std::string>() << "\n"
            << c.points.size() << " points in both (" << c.only_a << " only in A, " << c.only_b << " only in B); "
            << significant << " differ significantly\n"
            << "between-run scatter (τ) of a point " << percent_text(c.between_run_sd) << ", of a series "
            << percent_text(c.between_series_sd) << ", of a mechanism " << percent_text(c.between_mechanism_sd)
            << "; a mechanism's drift between the rounds of a run " << percent_text(c.mechanism_round_drift)
            << "; median B/A time per op over all points "
            << ratio_text(c.median_ratio, c.median_ratio_lo, c.median_ratio_hi) << "\n";
  if (c.relative_to_machine)
    std::cout << "ratios and verdicts below are relative to the machine's shift (--relative): the median over "
                 "mechanisms of their median B/A time per op, "
              << format_number(c.reference_ratio) << "; 1 = moved as the machine did\n";
  if (shift.ratio)
    std::cout << "drift sentinel (the machine's speed): " << format_number(*shift.sentinel_a_ns) << " ns in A, "
              << format_number(*shift.sentinel_b_ns) << " ns in B (B/A " << format_number(*shift.ratio) << ")\n";
  std::cout << "\n";
  const bool gated = vm.count("fail-on-regression") > 0;
  write_table(std::cout, groups_table(c.mechanisms, true, gated));
  std::cout << "\n";
  write_table(std::cout, groups_table(c.series, false, gated && level >= 1));
  const auto pts = points_table(c, vm["points"].as<std::string>() == "all", gated && level >= 2);
  if (!pts.rows.empty()) {
    std::cout << "\n";
    write_table(std::cout, pts);
  }
}

}  // namespace

int cmd_compare(const args_t& args) {
  const auto opts = compare_options_description();
  po::positional_options_description pos;
  pos.add("a", 1).add("b", 1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm,
                          "usage: pollscale compare A[,A2...] B[,B2...] [--fail-on-regression PCT] [options]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const std::string which = vm["points"].as<std::string>();
  if (which != "significant" && which != "all")
    throw usage_error("--points: '" + which + "' is not significant or all");
  const int level = gate_level(vm["gate"].as<std::string>());
  const auto o = options_of(vm);
  const std::string statistic = vm["statistic"].as<std::string>();
  if (statistic != "median" && statistic != "adjusted")
    throw usage_error("--statistic: '" + statistic + "' is not median or adjusted");
  const bool adjusted = statistic == "adjusted";
  const auto a = read_runs(vm["a"].as<std::string>(), "A", adjusted);
  const auto b = read_runs(vm["b"].as<std::string>(), "B", adjusted);
  std::vector<const datasets::dataset*> pa, pb;
  for (const auto& d : a) pa.push_back(&d);
  for (const auto& d : b) pb.push_back(&d);
  const auto c = studies::compare_runs(pa, pb, o);
  const auto shift = studies::sentinel_shift(pa, pb);
  if (c.points.empty())
    throw usage_error("compare: " + vm["a"].as<std::string>() + " and " + vm["b"].as<std::string>() +
                      " have no point in common");
  if (format == output_format::json)
    std::cout << stamped(output_kind::comparison, result_json(c, shift, vm, o)).dump(2) << "\n";
  else if (format == output_format::csv)
    write_csv(std::cout, csv_table(c));
  else
    write_text(c, shift, vm, level);
  if (const auto line = machine_shift_line(shift); !line.empty()) std::cerr << line << "\n";
  for (const auto& m : c.left_out)
    std::cerr << "compare: " << m.scenario << " left out: its probe measured another operation in A than in B (probe "
              << "revision " << revisions_text(m.a) << " in A, " << revisions_text(m.b)
              << " in B; context.json calibration.probe_revisions, docs/compare.md)\n";
  const bool gated = vm.count("fail-on-regression") > 0;
  const std::size_t found =
      c.mechanism_regressions + (level >= 1 ? c.series_regressions : 0) + (level >= 2 ? c.point_regressions : 0);
  return gated && found > 0 ? exit_regression : exit_ok;
}

}  // namespace pollscale::app
