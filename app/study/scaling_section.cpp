#include "app/study/scaling_section.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "app/report/markdown.hpp"
#include "app/study/json_fields.hpp"
#include "app/study/threads_or_processes.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::app::study {
namespace {

using nlohmann::json;
using sc = datasets::scenario;

std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}
std::string scaling_number(double v) { return std::isfinite(v) ? format_number(v) : (std::isinf(v) ? "∞" : "-"); }

// "2022 – 14197", or "none (df = 0)" for a fit that has no interval.
std::string interval(const json& p) {
  if (!p.contains("no_interval")) return scaling_number(num(p, "lo")) + " – " + scaling_number(num(p, "hi"));
  const std::string why = str(p, "no_interval");
  const auto paren = why.rfind('(');
  return paren == std::string::npos ? "none" : "none " + why.substr(paren);
}

// " (CPU capacity)" when the capacity of the table on fewer CPUs, not the law, gave it.
std::string capped(const json& r) { return str(r, "limited_by") == "cpu_capacity" ? " (CPU capacity)" : ""; }

// "Amdahl, σ = 0.19 ± 0.04" — the law and what limits scaling under it.
std::string law_text(const json& fit) {
  const std::string law = str(fit, "law");
  std::string s = law;
  if (law != "linear")
    s += ", σ = " + scaling_number(num(fit, "sigma")) +
         (fit["sigma_se"].is_number() ? " ± " + format_number(num(fit, "sigma_se"), 2) : "");
  if (law == "usl")
    s += ", κ = " + scaling_number(num(fit, "kappa")) +
         (fit["kappa_se"].is_number() ? " ± " + format_number(num(fit, "kappa_se"), 2) : "") +
         ", peak at N = " + scaling_number(num(fit, "peak_n"));
  return s;
}

// "#1: KERNEL (PLATFORM)", one line per table.
std::string legend(const json& result) {
  std::string out;
  int i = 0;
  for (const auto& t : result.value("tables", json::array())) {
    const std::string where = str(t, "kernel").empty() ? "this machine, " + str(t, "table")
                                                       : str(t, "kernel") + " (" + str(t, "platform") + ")";
    out += "- #" + std::to_string(++i) + ": " + where + ", " + str(t, "unit") + "\n";
  }
  return out;
}

// "95% intervals hold 100% of the 4 that have one.", or why none has one.
std::string coverage_text(const json& summary) {
  if (num(summary, "n_with_interval") > 0)
    return "95% intervals hold " + percent_text(num(summary, "coverage")) + " of the " +
           count_text(num(summary, "n_with_interval")) + " that have one.";
  return "no prediction has an interval (as many training points as coefficients: no degrees of freedom left).";
}

// One row per held-out or requested N of every table.
std::vector<std::vector<std::string>> rows_of(const json& result) {
  std::vector<std::vector<std::string>> rows;
  int i = 0;
  for (const auto& t : result.value("tables", json::array())) {
    ++i;
    const std::string label = "#" + std::to_string(i);
    if (!t.contains("fit")) {
      rows.push_back({label, "not fitted: " + str(t, "not_fitted"), "", "", "", "", ""});
      continue;
    }
    const std::string law = law_text(t["fit"]);
    std::string trained;
    for (const auto& r : t.value("train", json::array()))
      trained += (trained.empty() ? "" : ", ") + count_text(num(r, "n"));
    for (const auto& r : t.value("held_out", json::array()))
      rows.push_back({label, law, trained, count_text(num(r, "n")), scaling_number(num(r, "measured")),
                      scaling_number(num(r, "predicted")) + " [" + interval(r) + "]" + capped(r),
                      percent_text(num(r, "rel_err"))});
    for (const auto& r : t.value("at", json::array()))
      rows.push_back({label, law, trained, count_text(num(r, "n")), "not measured",
                      scaling_number(num(r, "predicted")) + " [" + interval(r) + "]" + capped(r), "-"});
  }
  return rows;
}

// Throughput against N: each table's measured points, and its predictions with intervals.
report::figure figure_of(const scaling_run& run) {
  // N is each table's own: producer threads (producers), processes (private_processes), threads (the others).
  const std::string xlabel = "N (threads; " + std::string(datasets::name(sc::producers)) + ": producer threads, " +
                             std::string(datasets::name(sc::private_processes)) + ": processes)";
  report::figure f{run.figure_name, run.title + ": throughput against N", xlabel, "", true, false, {}};
  int i = 0;
  for (const auto& t : run.result.value("tables", json::array())) {
    ++i;
    f.ylabel = "throughput (" + str(t, "unit") + ")";
    report::plot_series measured{"#" + std::to_string(i) + " measured", {}, false};
    report::plot_series predicted{"#" + std::to_string(i) + " predicted (95% PI)", {}, true};
    for (const auto& r : t.value("train", json::array()))
      measured.points.push_back({num(r, "n"), num(r, "measured"), num(r, "measured"), num(r, "measured")});
    for (const char* part : {"held_out", "at"})
      for (const auto& r : t.value(part, json::array())) {
        if (r.contains("measured"))
          measured.points.push_back({num(r, "n"), num(r, "measured"), num(r, "measured"), num(r, "measured")});
        const double lo = std::isfinite(num(r, "lo")) ? num(r, "lo") : num(r, "predicted");
        const double hi = std::isfinite(num(r, "hi")) ? num(r, "hi") : num(r, "predicted");
        predicted.points.push_back({num(r, "n"), num(r, "predicted"), lo, hi});
      }
    for (auto* s : {&measured, &predicted}) {
      std::sort(s->points.begin(), s->points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
      if (!s->points.empty()) f.series.push_back(std::move(*s));
    }
  }
  return f;
}

// What gave a wider machine's answer, for reading (scale's limited_by): "one in flight" and
// " (upper bound)" where it is only a ceiling.
std::string wider_limit(const json& r) {
  std::string s = str(r, "limited_by");
  std::replace(s.begin(), s.end(), '_', ' ');
  return s + (r.value("upper_bound", false) ? " (upper bound)" : "");
}

// How the capacity bound was priced (scale's capacity_efficiency block): "" when it was not.
std::string efficiency_text(const json& e) {
  if (!e.is_object()) return "";
  return "; the bound as the machine corpus's hosts deliver it: ×" + format_number(std::exp(num(e, "log_mean")), 3) +
         " a doubling of the CPUs, log sd " + format_number(num(e, "log_sd"), 2) + " (" + count_text(num(e, "hosts")) +
         " hosts, `" + str(e, "source") + "`)";
}

// "### Wider machines from one CPU": its summary, the families' legend and one row per
// measured row of every wider series.
std::string wider_markdown(const json& wider) {
  std::ostringstream md;
  const json summary = wider.value("summary", json::object());
  md << "### Wider machines from one CPU\n\n"
     << "Every series of two CPUs or more predicted from the one-CPU series alone (`scale --from-cpus 1`): the "
        "capacity bound, one producer as a pipeline, one operation in flight as its chain with its hand-offs "
        "crossing CPUs, a shared ring as the bound less the cache lines its passes move across (line crossings)"
     << efficiency_text(wider.value("capacity_efficiency", json()))
     << ". Median |error|: " << percent_text(num(summary, "median_rel_err")) << " (" << count_text(num(summary, "n"))
     << " rows); " << coverage_text(summary) << "\n\n";
  std::vector<std::vector<std::string>> rows;
  int i = 0;
  for (const auto& f : wider.value("families", json::array())) {
    ++i;
    md << "- #" << i << ": " << str(f, "table") << ", " << str(f, "unit") << "\n";
    for (const auto& se : f.value("series", json::array()))
      for (const auto& r : se.value("rows", json::array()))
        rows.push_back({"#" + std::to_string(i), text(se, "cpus"), count_text(num(r, "n")),
                        scaling_number(num(r, "measured")),
                        scaling_number(num(r, "predicted")) + " [" + interval(r) + "]", wider_limit(r),
                        percent_text(num(r, "rel_err"))});
  }
  md << "\n"
     << report::md_table({"family", "CPUs", "N", "measured", "predicted [95% interval]", "limited by", "error"}, rows)
     << "\n";
  return md.str();
}

}  // namespace

report::extra_section scaling_section(const std::vector<scaling_run>& runs, const json& wider) {
  std::ostringstream md;
  md << "## CPU scaling\n\n"
     << "Throughput against N of the " << datasets::name(sc::producers)
     << " scenario (N threads write eventfds, one epoll consumer drains them), of " << datasets::name(sc::private_sets)
     << " (N threads each make timeout-0 wait calls on a pipe of their own: what the machine gives when nothing is "
        "shared), of "
     << datasets::name(sc::private_processes)
     << " (the same as N processes of one thread each: what sharing one process costs is the difference), of "
     << datasets::name(sc::shared_epoll)
     << " (N threads pass tokens through one epoll instance over a shared ring of pipes) and of "
     << datasets::name(sc::accept_herd)
     << " (N threads wait to accept connections on one listening socket), fitted by the Universal Scalability Law "
        "(Amdahl unless a coherency term earns its place; σ is the share of each event serialised, κ a cost every "
        "pair of CPUs pays) and asked about N it did not see (docs/scaling.md).\n\n";
  const bool has_wider = wider.is_object() && wider.contains("families");
  if (runs.empty() && !has_wider) md << "No CPU-scaling rows were measured, and no published table was found.\n\n";
  report::extra_section s;
  for (const auto& run : runs) {
    const json summary = run.result.value("summary", json::object());
    md << "### " << run.title << "\n\n"
       << run.protocol << " Median |error| of the held-out rows: " << percent_text(num(summary, "median_rel_err"))
       << " (" << count_text(num(summary, "n")) << " rows); " << coverage_text(summary) << "\n\n"
       << legend(run.result) << "\n"
       << report::md_table({"table", "law", "trained on N", "N", "measured", "predicted [95% interval]", "error"},
                           rows_of(run.result))
       << "\n"
       << threads_or_processes_markdown(threads_or_processes(run.result));
    auto f = figure_of(run);
    if (!f.series.empty()) s.figures.push_back(std::move(f));
  }
  if (has_wider) md << wider_markdown(wider);
  s.markdown = md.str();
  return s;
}

}  // namespace pollscale::app::study
