#include "app/predict_cpus.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "app/capacity_efficiency_option.hpp"
#include "app/output_document.hpp"
#include "app/scale_wider_output.hpp"
#include "app/summary_view.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "model/cpu_scaling.hpp"
#include "model/scaling.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

using nlohmann::json;

std::string flag_text(const po::variables_map& vm, const char* flag) {
  return vm.count(flag) ? vm[flag].as<std::string>() : std::string();
}

// The cost-cell flags a CPU-scaling experiment has no column for: refused by name rather
// than ignored (the user meant something by them).
void refuse_cost_cell_flags(const po::variables_map& vm) {
  for (const char* flag : {"n", "max-fd", "change", "drop", "swap"})
    if (vm.count(flag))
      throw usage_error(std::string("--") + flag +
                        ": not taken by a CPU-scaling scenario (its load is --threads, its machine --cpus)");
  for (const char* flag : {"pos", "pinning"})
    if (!flag_text(vm, flag).empty())
      throw usage_error(std::string("--") + flag +
                        ": not taken by a CPU-scaling scenario (its series spread their "
                        "threads over the CPUs themselves)");
}

bool is_chosen(const std::string& v) { return !v.empty(); }

// The one experiment the flags select; the choices offered by name when none or several do.
const model::cpu_scaling_laws& select_laws(const po::variables_map& vm, const model::model_set& models) {
  const std::string scenario = flag_text(vm, "scenario");
  if (models.cpu_scaling.empty())
    throw usage_error(flag_text(vm, "model") + ": the model keeps no CPU-scaling laws (its calibration measured no " +
                      model::scaling_scenario_names() +
                      " series, or it was fitted before fit kept them: fit it again)");
  const std::string mechanism = flag_text(vm, "mechanism"), variant = flag_text(vm, "variant"),
                    fd_kind = flag_text(vm, "fd-kind"), metric = flag_text(vm, "metric");
  std::optional<std::int64_t> k, blocking;  // absent: a token per thread; any blocking
  if (vm.count("k")) k = vm["k"].as<long long>();
  if (vm.count("blocking")) blocking = vm["blocking"].as<long long>();
  std::vector<const model::cpu_scaling_laws*> match, of_scenario;
  for (const auto& l : models.cpu_scaling) {
    const auto& e = l.experiment;
    if (e.scenario != scenario) continue;
    of_scenario.push_back(&l);
    if (is_chosen(mechanism) && e.mechanism != mechanism) continue;
    if (is_chosen(variant) && e.variant != variant) continue;
    if (is_chosen(fd_kind) && e.fd_kind != fd_kind) continue;
    if (is_chosen(metric) && e.metric != metric) continue;
    if (blocking && e.blocking != blocking) continue;
    if (k && e.n_active != k) continue;
    match.push_back(&l);
  }
  // Without --k, a series with a token per thread is meant where one exists beside a ring
  // with fewer tokens (shared_epoll measures both; accept_herd only ever has one).
  if (!k && std::any_of(match.begin(), match.end(), [](const auto* l) { return !l->experiment.n_active; }))
    std::erase_if(match, [](const auto* l) { return l->experiment.n_active.has_value(); });
  if (match.size() == 1) return *match.front();
  const auto& offered = match.empty() ? of_scenario : match;
  std::string list;
  for (const auto* l : offered) list += (list.empty() ? "" : "; ") + datasets::describe(l->experiment);
  if (offered.empty()) {
    for (const auto& l : models.cpu_scaling) list += (list.empty() ? "" : "; ") + datasets::describe(l.experiment);
    throw usage_error("--scenario: the model has no " + scenario + " series; it has: " + list);
  }
  if (match.empty())
    throw usage_error("no " + scenario +
                      " series matches --mechanism, --variant, --fd-kind, --metric, --blocking and "
                      "--k; the model has: " +
                      list);
  throw usage_error(std::to_string(match.size()) + " " + scenario +
                    " series match; choose one with --mechanism, --variant, --fd-kind or --metric: " + list);
}

struct cpu_answer_row {
  std::int64_t cpus = 0;
  double n = 0;
  model::scaling_prediction p;
  model::wider_limit limit{};
  double cpu_extrapolation = 1;  ///< C over the widest series measured (>= 1 beyond it)
  double n_extrapolation = 1;    ///< N over the most threads any series measured (>= 1 beyond it)
};

std::vector<cpu_answer_row> answer_all(const model::cpu_scaling_laws& laws, const std::vector<std::int64_t>& cpus,
                                       const std::vector<std::int64_t>& threads) {
  std::vector<cpu_answer_row> out;
  const double widest = static_cast<double>(std::max<std::int64_t>(laws.widest(), 1));
  for (auto c : cpus)
    for (auto n : threads.empty() ? std::vector<std::int64_t>{c} : threads) {  // threads follow CPUs unless given
      cpu_answer_row r;
      r.cpus = c;
      r.n = static_cast<double>(n);
      r.p = model::predict_cpu_scaling(laws, c, r.n, r.limit);
      r.cpu_extrapolation = std::max(1.0, static_cast<double>(c) / widest);
      r.n_extrapolation = std::max(1.0, r.n / laws.largest_n());
      out.push_back(std::move(r));
    }
  return out;
}

// "8x the CPUs, 2x the threads", or "no".
std::string cpu_beyond_text(const cpu_answer_row& r) {
  std::string s;
  if (r.cpu_extrapolation > 1) s = format_number(r.cpu_extrapolation, 3) + "x the CPUs";
  if (r.n_extrapolation > 1) s += (s.empty() ? "" : ", ") + format_number(r.n_extrapolation, 3) + "x the threads";
  return s.empty() ? "no" : s;
}

// A value for reading ("-" where there is none) or for CSV ("" where there is none).
std::string cpu_cell(double v, bool csv) {
  if (csv) return csv_number(v);
  return std::isfinite(v) ? format_number(v, 5) : "-";
}

text_table cpu_rows_table(const model::cpu_scaling_laws& l, const std::vector<cpu_answer_row>& rows, bool csv) {
  text_table t{{"C", "N", "predicted", "lo", "hi", "unit", "limited by", "beyond the data", "no interval: why"},
               {},
               {true, true, true, true, true, false, false, false, false}};
  for (const auto& r : rows)
    t.rows.push_back({std::to_string(r.cpus), count_text(r.n), cpu_cell(r.p.value, csv), cpu_cell(r.p.lo, csv),
                      cpu_cell(r.p.hi, csv), l.experiment.unit,
                      csv ? std::string(model::name(r.limit))
                          : wider_limit_text(l.capacity_cpus, r.cpus, r.limit, r.p.upper_bound, l.experiment,
                                             l.chain ? &*l.chain : nullptr, r.n),
                      csv ? csv_number(r.cpu_extrapolation) : cpu_beyond_text(r),
                      r.p.has_interval ? "" : r.p.no_interval});
  if (!csv) return t;
  t.columns[7] = "extrapolation_cpus";
  t.columns.insert(t.columns.begin() + 8, "extrapolation_n");
  t.numeric.insert(t.numeric.begin() + 8, true);
  for (std::size_t i = 0; i < rows.size(); ++i)
    t.rows[i].insert(t.rows[i].begin() + 8, csv_number(rows[i].n_extrapolation));
  return t;
}

json cpu_rows_json(const std::vector<cpu_answer_row>& rows) {
  json out = json::array();
  for (const auto& r : rows)
    out.push_back({{"cpus", r.cpus},
                   {"n", r.n},
                   {"value", r.p.value},
                   {"lo", json_number(r.p.lo)},
                   {"hi", json_number(r.p.hi)},
                   {"has_interval", r.p.has_interval},
                   {"no_interval", r.p.has_interval ? json() : json(r.p.no_interval)},
                   {"limited_by", model::name(r.limit)},
                   {"upper_bound", r.p.upper_bound},
                   {"extrapolation_cpus", r.cpu_extrapolation},
                   {"extrapolation_n", r.n_extrapolation}});
  return out;
}

}  // namespace

bool is_cpu_scaling_query(const std::string& scenario) {
  const auto s = datasets::parse<datasets::scenario>(scenario);
  return s && datasets::scales_with_threads(*s);
}

void answer_cpu_scaling(const po::variables_map& vm, const model::model_set& models, output_format format) {
  refuse_cost_cell_flags(vm);
  if (!vm.count("cpus"))
    throw usage_error("--cpus: a CPU-scaling scenario is answered per machine width: give --cpus C,.. (e.g. 1,2,4,16)");
  const auto cpus = parse_count_list(flag_text(vm, "cpus"), "cpus");
  const auto threads =
      vm.count("threads") ? parse_count_list(flag_text(vm, "threads"), "threads") : std::vector<std::int64_t>{};
  const model::cpu_scaling_laws& laws = select_laws(vm, models);
  const auto rows = answer_all(laws, cpus, threads);
  const std::string axis(model::scaling_axis_meaning(laws.experiment));
  if (format == output_format::json) {
    json doc = stamped(output_kind::cpu_prediction,
                       {{"experiment", key_json(laws.experiment)},
                        {"platform", laws.platform},
                        {"kernel", laws.kernel},
                        {"statistic", models.statistic},
                        {"unit", laws.experiment.unit},
                        {"n_means", axis},
                        {"measured_cpus", laws.measured_cpus},
                        {"from_cpus", laws.from_cpus},
                        {"caveat", laws.caveat},
                        {"capacity_efficiency", laws.efficiency ? model::to_json(*laws.efficiency) : json(nullptr)},
                        {"rows", cpu_rows_json(rows)}});
    std::cout << doc.dump(2) << "\n";
    return;
  }
  const text_table t = cpu_rows_table(laws, rows, format == output_format::csv);
  if (format == output_format::csv) {
    write_csv(std::cout, t);
    return;
  }
  std::cout << datasets::describe(laws.experiment) << ", " << laws.experiment.unit << "; series measured on CPUs "
            << widths_text(laws.measured_cpus) << "\nN: " << axis << "; C: the machine's CPUs\n";
  if (laws.serial)
    std::cout << "serial stage: " << laws.serial_structure
              << (laws.serial->df > 0 && !model::identified(*laws.serial)
                      ? " (its hold is not identified: the series fit as well with any hold)"
                      : "")
              << "\n";
  if (!laws.caveat.empty()) std::cout << "caveat: " << laws.caveat << "\n";
  if (laws.efficiency) std::cout << capacity_efficiency_text(*laws.efficiency) << "\n";
  write_table(std::cout, t);
}

}  // namespace pollscale::app
