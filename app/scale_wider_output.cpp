#include "app/scale_wider_output.hpp"

#include <cmath>
#include <iostream>

#include "app/accuracy_output.hpp"
#include "app/capacity_efficiency_option.hpp"
#include "app/output_document.hpp"
#include "app/scaling_json.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "model/model_json.hpp"
#include "model/one_in_flight.hpp"
#include "model/scaling.hpp"

namespace pollscale::app {
namespace {

using nlohmann::json;

std::string family_name(const model::wider_family& f) {
  std::string s = datasets::describe(f.k) + ", " + f.k.unit;
  if (!f.platform.empty() || !f.kernel.empty()) s += ": " + f.platform + "; " + f.kernel;
  return s;
}

// "amdahl, γ = 1.2e+06 ± 3e+04, σ = 0.2 ± 0.05 on T = 1-3 (3 rows)".
std::string law_text(const std::optional<model::scaling_fit>& fit, std::size_t rows, const std::string& note) {
  if (!fit) return "none (" + (note.empty() ? std::string("no rows") : note) + ")";
  const auto& f = *fit;
  std::string s = std::string(model::name(f.law)) + ", γ = " + with_se(f.gamma, f.covariance(0, 0));
  if (free_coefficient(f, 1)) s += ", σ = " + with_se(f.sigma, f.covariance(1, 1));
  if (free_coefficient(f, 2)) s += ", κ = " + with_se(f.kappa, f.covariance(2, 2));
  return s + "; fitted on T = " + count_text(f.n_min) + (f.n_max > f.n_min ? "-" + count_text(f.n_max) : "") + " (" +
         std::to_string(rows) + " rows)";
}

// "the one consumer thread, ...: hold 152 ns ± 9 ns (1/throughput units: 1.52e-07) fitted on
// the 2-CPU series, T = 1-8 (6 rows)".
std::string serial_text(const model::wider_family& f) {
  if (!f.serial_fit) return f.serial_structure + "; no hold time (" + f.serial_note + ")";
  const auto& s = *f.serial_fit;
  const bool unidentified = s.df > 0 && !model::identified(s);
  return f.serial_structure + "; hold " + with_se(s.hold, s.hold_sd * s.hold_sd) + " per operation (1/" + f.k.unit +
         ") fitted on the " + std::to_string(s.cpus) + "-CPU series, T up to " + count_text(s.t_max) + " (" +
         std::to_string(s.points) + " rows)" +
         (unidentified ? "; not identified: the series fit as well with any hold up to their slowest operation" : "");
}

// "[600000, 690000]" or "(no interval: why)".
std::string interval_words(const model::pipeline_fit& p) {
  std::string why;
  if (const auto in = p.interval(why))
    return "[" + number_cell(in->first, 4, false) + ", " + number_cell(in->second, 4, false) + "]";
  return "(no interval: " + why + ")";
}

// "a write 1.19 µs, the consumer's share 1.05 µs an event on one CPU, the cache line 376 ns
// between two: one producer beside its consumer 639779 per s", or why there is none.
std::string pipeline_text(const model::wider_family& f) {
  if (!f.pipeline) return "none (" + f.pipeline_note + ")";
  const auto& p = *f.pipeline;
  auto ns = [](double s) { return number_cell(s * 1e9, 4, false) + " ns"; };
  const std::string apart =
      std::isfinite(p.switch_s) ? " less the consumer's switches (" + ns(p.switch_s) + " each)" : "";
  return "a write " + ns(p.write_s) + ", the consumer's share " + ns(p.consumer_s) + " an event on one CPU" + apart +
         ", the cache " + "line " + ns(p.line_s) + " between two: one producer beside its consumer " +
         number_cell(p.rate(), 4, false) + " per s " + interval_words(p) + " on two CPUs or more";
}

// "same-CPU wake-ups and switches an operation on one CPU 2.01 at N = 2, 2.02 at N = 4, 3803
// ns each: the 1-CPU series less them, a ceiling on two CPUs or more" (and where its waiters may
// spin, why the interval reaches higher), or why there is none.
std::string chain_text(const model::wider_family& f) {
  if (!f.chain) return "none (" + f.chain_note + ")";
  const auto& c = *f.chain;
  std::string at;
  for (const auto& [n, w] : c.switches)
    at += (at.empty() ? "" : ", ") + number_cell(w, 3, false) + " at N = " + count_text(n);
  std::string floor = "; no cross-CPU wake-up measured (wakeup over a pipe, pinning 0+1): no floor";
  if (c.cross_s > 0)
    floor = "; a cross-CPU wake-up " + number_cell(c.cross_s * 1e9, 4, false) +
            " ns for each of max(1, them): the floor of its interval; the answer where one CPU shows the " +
            number_cell(c.hand_offs, 2, false) +
            " hand-off(s) an operation makes (at least half of them): each of them on another CPU (C - 1)/C of the "
            "time, a cross-CPU wake-up in place of its switch";
  const std::string role = model::waiters_may_spin(f.k)
                               ? "a ceiling on two CPUs or more while its waiters sleep, but they may spin instead "
                                 "(level-triggered instances), so the interval reaches up to the capacity bound"
                               : "a ceiling on two CPUs or more";
  return "same-CPU wake-ups and switches an operation on one CPU " + at + ", " +
         number_cell(c.switch_s * 1e9, 4, false) + " ns each: the 1-CPU series less them, " + role + floor;
}

// "6 cache lines a pass writes from both threads' CPUs, the line 49.8 ns between two (the
// cache_line probe): each across (C - 1)/C of the time, ...", or why there are none.
std::string crossings_text(const model::wider_family& f) {
  if (!f.crossings) return "none (" + f.crossings_note + ")";
  const auto& x = *f.crossings;
  return std::to_string(x.lines) + " cache lines a pass writes from both threads' CPUs, the line " +
         number_cell(x.line_s * 1e9, 4, false) + " ns between two (" + x.line_from +
         "): each across (C - 1)/C of the time, the capacity bound less them (C / (1/X1 + m (C - "
         "1)/C L)), a prediction on two CPUs and a ceiling wider";
}

void write_families(std::ostream& out, const model::wider_result& r) {
  for (std::size_t i = 0; i < r.families.size(); ++i) {
    const auto& f = r.families[i];
    out << "#" << i + 1 << " " << family_name(f) << "; series measured on CPUs " << widths_text(f.measured_cpus)
        << "\n   dedicated law (every thread or process its own CPU, C <= " << r.from_cpus
        << "): " << law_text(f.dedicated_fit, f.dedicated.size(), f.dedicated_note) << "\n   capacity bound: ";
    if (f.capacity_cpus)
      out << "C/" << *f.capacity_cpus << " x the " << *f.capacity_cpus << "-CPU series, "
          << law_text(f.capacity_fit, f.capacity_rows.size(), "one T") << "\n";
    else
      out << "none (no series of at most " << r.from_cpus << " CPUs with more threads than CPUs)\n";
    if (!f.serial_structure.empty()) out << "   serial stage: " << serial_text(f) << "\n";
    if (f.pipeline || !f.pipeline_note.empty()) out << "   pipeline: " << pipeline_text(f) << "\n";
    if (f.chain || !f.chain_note.empty()) out << "   one in flight: " << chain_text(f) << "\n";
    if (f.crossings || !f.crossings_note.empty()) out << "   line crossings: " << crossings_text(f) << "\n";
    if (!f.caveat.empty()) out << "   caveat: " << f.caveat << "\n";
  }
  std::vector<datasets::key> keys;
  for (const auto& f : r.families) keys.push_back(f.k);
  out << "N: " << model::scaling_axis_legend(keys) << "; C: the CPUs the series spreads them over\n";
}

text_table predictions_table(const model::wider_result& r, bool csv) {
  text_table t{{"#", "C", "N", "measured", "predicted", "lo", "hi", "rel_err", "limited by", "no interval: why"},
               {},
               {true, true, true, true, true, true, true, true, false, false}};
  auto cell = [&](double v) { return std::isnan(v) && !csv ? std::string("-") : number_cell(v, 4, csv); };
  auto add = [&](std::size_t i, std::int64_t c, double n, double measured, const model::scaling_prediction& p,
                 double err, model::wider_limit bound, bool ceiling) {
    t.rows.push_back({std::to_string(i + 1), std::to_string(c), count_text(n),
                      std::isnan(measured) ? "" : cell(measured), cell(p.value), cell(p.lo), cell(p.hi),
                      csv ? csv_number(err) : percent_text(err),
                      wider_limit_text(r.families[i].capacity_cpus, c, bound, ceiling, r.families[i].k,
                                       r.families[i].chain ? &*r.families[i].chain : nullptr, n),
                      p.no_interval});
  };
  for (std::size_t i = 0; i < r.families.size(); ++i)
    for (const auto& s : r.families[i].series) {
      for (std::size_t j = 0; j < s.rows.size(); ++j) {
        const auto& v = s.rows[j];
        add(i, s.cpus, *model::scaling_axis(*v.o), v.measured,
            {v.predicted, v.lo, v.hi, v.has_interval, v.no_interval, v.extrapolation}, v.rel_err, s.row_limit[j],
            s.row_upper_bound[j]);
      }
      for (std::size_t j = 0; j < s.at.size(); ++j)
        add(i, s.cpus, s.at[j].first, std::nan(""), s.at[j].second, std::nan(""), s.at_limit[j],
            s.at[j].second.upper_bound);
    }
  return t;
}

// One row per predicted width with measured rows, then "all" (each observation once).
text_table accuracy_table(const model::wider_result& r, bool csv) {
  text_table t{{"#", "C", "n", "median_rel_err", "max_rel_err", "coverage", "median_rel_halfwidth"},
               {},
               std::vector<bool>(7, true)};
  auto f = [&](double v) { return csv ? csv_number(v) : percent_text(v); };
  auto add = [&](const std::string& id, const std::string& c, const model::accuracy& a) {
    t.rows.push_back({id, c, std::to_string(a.n), f(a.median_rel_err), f(a.max_rel_err),
                      f(a.coverage) + (csv ? "" : " of " + std::to_string(a.n_with_interval)),
                      a.n_with_interval ? f(a.median_rel_halfwidth) : (csv ? "" : "-")});
  };
  for (std::size_t i = 0; i < r.families.size(); ++i)
    for (const auto& s : r.families[i].series)
      if (!s.rows.empty()) add(std::to_string(i + 1), std::to_string(s.cpus), s.acc);
  if (r.overall.n) add("all", "", r.overall);
  return t;
}

json series_json(const model::wider_series& s) {
  json rows = json::array(), at = json::array();
  for (std::size_t j = 0; j < s.rows.size(); ++j) {
    json row = held_out_json(s.rows[j], model::name(s.row_limit[j]));
    row["upper_bound"] = bool(s.row_upper_bound[j]);
    rows.push_back(row);
  }
  for (std::size_t j = 0; j < s.at.size(); ++j) {
    json row = prediction_json(s.at[j].first, s.at[j].second);
    row["limited_by"] = model::name(s.at_limit[j]);
    row["upper_bound"] = s.at[j].second.upper_bound;
    at.push_back(row);
  }
  json j = {{"cpus", s.cpus}, {"measured", s.measured}, {"rows", rows}, {"at", at}};
  if (!s.rows.empty()) j["accuracy"] = accuracy_json(s.acc);
  return j;
}

json law_json(const std::optional<model::scaling_fit>& fit, const std::vector<const model::observation*>& rows) {
  json train = json::array();
  for (const auto* o : rows)
    train.push_back({{"n", *model::scaling_axis(*o)}, {"cpus", *o->k.cpus}, {"measured", o->value}});
  return {{"fit", fit ? fit_json(*fit) : json(nullptr)}, {"train", train}};
}

// null where the family is not producers measured on one CPU alone; {note} when its parts
// are missing.
json pipeline_json(const model::wider_family& f) {
  if (!f.pipeline) return f.pipeline_note.empty() ? json(nullptr) : json{{"note", f.pipeline_note}};
  const auto& p = *f.pipeline;
  json j = {{"write_s", p.write_s}, {"consumer_s", p.consumer_s},
            {"line_s", p.line_s},   {"rate", p.rate()},
            {"lo", nullptr},        {"hi", nullptr}};
  // The consumer's switches on one CPU taken out of the split (null where they were not counted).
  j["switch_s"] = std::isfinite(p.switch_s) ? json(p.switch_s) : json(nullptr);
  std::string why;
  if (const auto in = p.interval(why)) {
    j["lo"] = in->first;
    j["hi"] = in->second;
  } else {
    j["no_interval"] = why;
  }
  return j;
}

// null where the experiment keeps more than one operation in flight; {note} when a part of
// its chain is missing.
json chain_json(const model::wider_family& f) {
  if (!f.chain) return f.chain_note.empty() ? json(nullptr) : json{{"note", f.chain_note}};
  return model::to_json(*f.chain);
}

// null where the experiment's operations share no lines or a wider series trained; {note}
// when the cache line was not measured.
json crossings_json(const model::wider_family& f) {
  if (!f.crossings) return f.crossings_note.empty() ? json(nullptr) : json{{"note", f.crossings_note}};
  return {{"lines", f.crossings->lines}, {"line_s", f.crossings->line_s}, {"line_from", f.crossings->line_from}};
}

// null when the experiment has no serial structure.
json serial_json(const model::wider_family& f) {
  if (f.serial_structure.empty()) return nullptr;
  json j = {{"structure", f.serial_structure}, {"fit", nullptr}};
  if (!f.serial_fit) {
    j["note"] = f.serial_note;
    return j;
  }
  const auto& s = *f.serial_fit;
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json train = json::array();
  for (const auto* o : f.serial_rows) train.push_back({{"n", *model::scaling_axis(*o)}, {"measured", o->value}});
  j["fit"] = {{"cpus", s.cpus}, {"hold", num(s.hold)}, {"hold_sd", num(s.hold_sd)}, {"residual_sd", num(s.residual_sd)},
              {"df", s.df},     {"points", s.points}};
  j["train"] = train;
  return j;
}

}  // namespace

std::string widths_text(const std::vector<std::int64_t>& cs) {
  std::string s;
  for (auto c : cs) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s.empty() ? "-" : s;
}

std::string wider_limit_text(std::optional<std::int64_t> capacity_cpus, std::int64_t c, model::wider_limit limit,
                             bool upper_bound, const datasets::key& experiment, const model::chain_fit* chain,
                             double n) {
  const std::string ceiling = upper_bound ? "; an upper bound" : "";
  if (limit == model::wider_limit::dedicated_law) return "dedicated law" + ceiling;
  if (limit == model::wider_limit::serial_stage) return "serial stage";
  if (limit == model::wider_limit::pipeline) return "pipeline: one producer beside its consumer";
  if (limit == model::wider_limit::one_in_flight) {
    const std::string spin = model::waiters_may_spin(experiment) ? "; waiters may spin: up to the capacity" : "";
    if (chain && chain->hand_offs_seen(n))
      return "one in flight: the 1-CPU chain, its hand-offs on another CPU " + std::to_string(c - 1) + "/" +
             std::to_string(c) + " of the time" + spin;
    return "one in flight: the 1-CPU chain" + (upper_bound ? ceiling : spin);
  }
  const std::int64_t c0 = capacity_cpus.value();  // the capacity bound won: it exists
  if (limit == model::wider_limit::line_crossings)
    return "capacity less line crossings: " + std::to_string(c) + "/" + std::to_string(c0) + " x the " +
           std::to_string(c0) + "-CPU series, each pass's lines across " + std::to_string(c - 1) + "/" +
           std::to_string(c) + " of the time" + ceiling;
  return "capacity: " + std::to_string(c) + "/" + std::to_string(c0) + " x the " + std::to_string(c0) + "-CPU series" +
         ceiling;
}

json wider_json(const model::wider_result& r, const std::string& source) {
  json families = json::array();
  for (const auto& f : r.families) {
    json series = json::array();
    for (const auto& s : f.series) series.push_back(series_json(s));
    json fj = {{"table", datasets::describe(f.k)},
               {"unit", f.k.unit},
               {"platform", f.platform},
               {"kernel", f.kernel},
               {"source", f.source},
               {"measured_cpus", f.measured_cpus},
               {"dedicated", law_json(f.dedicated_fit, f.dedicated)},
               {"capacity", law_json(f.capacity_fit, f.capacity_rows)},
               {"capacity_cpus", f.capacity_cpus ? json(*f.capacity_cpus) : json(nullptr)},
               {"serial_stage", serial_json(f)},
               {"pipeline", pipeline_json(f)},
               {"one_in_flight", chain_json(f)},
               {"line_crossings", crossings_json(f)},
               {"caveat", f.caveat.empty() ? json(nullptr) : json(f.caveat)},
               {"series", series}};
    if (!f.dedicated_note.empty()) fj["dedicated"]["note"] = f.dedicated_note;
    if (f.acc.n) fj["accuracy"] = accuracy_json(f.acc);
    families.push_back(fj);
  }
  return {{"source", source},
          {"from_cpus", r.from_cpus},
          {"capacity_efficiency", r.efficiency ? model::to_json(*r.efficiency) : json(nullptr)},
          {"families", families},
          {"summary", accuracy_json(r.overall)}};
}

void write_wider(const model::wider_result& r, const std::string& source, output_format format) {
  if (format == output_format::json) {
    std::cout << stamped(output_kind::scaling_wider, wider_json(r, source)).dump(2) << "\n";
    return;
  }
  const bool csv = format == output_format::csv;
  auto write = [&](const text_table& t) { csv ? write_csv(std::cout, t) : write_table(std::cout, t); };
  if (!csv) {
    std::cout << source << "\nwider machines predicted from the series of at most " << r.from_cpus
              << (r.from_cpus == 1 ? " CPU\n" : " CPUs\n");
    if (r.efficiency) std::cout << capacity_efficiency_text(*r.efficiency) << "\n";
    write_families(std::cout, r);
    std::cout << "\n";
  }
  write(predictions_table(r, csv));
  std::cout << "\n";
  write(accuracy_table(r, csv));
}

}  // namespace pollscale::app
