#include "app/study/sections.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "app/report/markdown.hpp"
#include "app/study/json_fields.hpp"
#include "app/table_writer.hpp"
#include "datasets/json_fields.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::app::study {
namespace {

using nlohmann::json;

std::string fmt(double v) { return std::isfinite(v) ? format_number(v) : "-"; }

// A historical table's source as a label: its citation without the seed file it was read
// from, cut at a word near 48 characters ("Dan [Kegel], LKML thread 'up to 50% faster…").
std::string short_source(const std::string& source) {
  std::string s = source;
  if (const auto semi = s.find("; "); s.rfind("seeds/", 0) == 0 && semi != std::string::npos) s = s.substr(semi + 2);
  if (s.size() <= 48) return s;
  const auto cut = s.rfind(' ', 48);
  return s.substr(0, cut == std::string::npos || cut < 24 ? 48 : cut) + "…";
}

std::string cell_label(const json& cell) {
  std::string s = text(cell, "scenario") + "/" + (text(cell, "mechanism").empty() ? "-" : text(cell, "mechanism"));
  for (const char* c : {"variant", "fd_kind"})
    if (!text(cell, c).empty()) s += "/" + text(cell, c);
  if (text(cell, "blocking") == "1") s += " blocking";
  if (!text(cell, "pinning").empty()) s += " cpu=" + text(cell, "pinning");
  return s + " " + text(cell, "metric");
}

std::vector<std::string> accuracy_cells(const json& a) {
  return {text(a, "n"), percent_text(num(a, "mape")), percent_text(num(a, "median_rel_err")),
          percent_text(num(a, "max_rel_err")), percent_text(num(a, "coverage")) + " of " + text(a, "n_with_interval")};
}

bool plain_call(const datasets::key& k) {
  return k.scenario == datasets::scenario::find_active && k.metric == datasets::metric::time_per_call &&
         k.fd_kind == datasets::fd_kind::pipe && k.n_active.value_or(0) == 1 &&
         k.active_pos == datasets::position::middle && k.blocking.value_or(0) == 0 && datasets::one_thread(k);
}

void sort_by_x(report::plot_series& s) {
  std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
}

/// find_active calls on pipes: every measured n (from the dataset) against the held-out
/// predictions with their 95% prediction intervals.
report::figure prediction_figure(const json& rows, const datasets::dataset* measured, const std::string& name) {
  std::map<std::string, report::plot_series> meas, pred;
  for (const auto& r : rows) {
    using datasets::fd_kind, datasets::metric, datasets::position, datasets::scenario;
    if (text(r, "scenario") != scenario::find_active || text(r, "metric") != metric::time_per_call ||
        text(r, "fd_kind") != fd_kind::pipe || text(r, "n_active") != "1" ||
        text(r, "active_pos") != position::middle || text(r, "blocking") != "0" || !one_thread(r))
      continue;
    const std::string mech = text(r, "mechanism") + (text(r, "variant").empty() ? "" : "/" + text(r, "variant"));
    auto& p = pred[mech];
    p.title = mech + " predicted (95% PI)";
    p.dashed = true;
    const double lo = std::isfinite(num(r, "lo")) ? num(r, "lo") : num(r, "predicted");
    const double hi = std::isfinite(num(r, "hi")) ? num(r, "hi") : num(r, "predicted");
    p.points.push_back({std::stod(text(r, "n_fds")), num(r, "predicted"), lo, hi});
  }
  if (measured)
    for (const auto& r : measured->summaries) {
      const std::string mech = r.k.variant.empty() ? r.k.mechanism : r.k.mechanism + "/" + r.k.variant;
      if (!plain_call(r.k) || !r.k.n_fds || !pred.count(mech)) continue;
      auto& m = meas[mech];
      m.title = mech + " measured";
      m.points.push_back({static_cast<double>(*r.k.n_fds), r.s.median, r.s.ci95_lo, r.s.ci95_hi});
    }
  report::figure f{name,
                   "find_active calls on pipes: measured (all n) vs predicted from n <= 1000 (held out)",
                   "registered descriptors n",
                   "ns per call",
                   true,
                   true,
                   {}};
  f.extrapolated_from = 1000;  // the protocol's training range: n <= 1000
  for (auto* group : {&meas, &pred})
    for (auto& [mech, s] : *group) {
      sort_by_x(s);
      f.series.push_back(std::move(s));
    }
  return f;
}

}  // namespace

report::extra_section model_section(const json& model_json) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : model_json.value("models", json::array())) {
    const auto& fit = m.value("fit", json::object());
    const auto& dom = m.value("domain", json::object());
    rows.push_back({cell_label(m.value("cell", json::object())), text(m, "formula"), text(fit, "n_points"),
                    percent_text(num(fit, "mape_loo")), fmt(num(dom, "n_min")) + "–" + fmt(num(dom, "n_max"))});
  }
  std::ostringstream md;
  md << "## Fitted cost models\n\n"
     << rows.size() << " cells fitted (`model.json` holds every term with its "
     << "coefficient, unit and 95% interval, the covariance and the rivals each choice beat).";
  const auto skipped = model_json.value("skipped", json::array());
  if (!skipped.empty()) md << " " << skipped.size() << " cells could not be fitted (listed in model.json).";
  md << "\n\n" << report::md_table({"cell", "formula", "points", "LOO MAPE", "n measured"}, rows) << "\n";
  return {md.str(), {}};
}

report::extra_section validation_section(const std::string& title, const std::string& protocol, const json& v,
                                         const std::string& figure_name, const datasets::dataset* measured) {
  std::ostringstream md;
  md << "## " << title << "\n\n"
     << protocol << " Training rows: " << text(v, "n_train")
     << "; held out and predicted: " << text(v.value("summary", json::object()), "n") << ".\n\n";
  std::vector<std::vector<std::string>> rows;
  const auto group_by = v.value("group_by", json::array());
  for (const auto& g : v.value("summary", json::object()).value("groups", json::array())) {
    std::string label;
    for (const auto& c : group_by) {
      const std::string column = c.get<std::string>();
      const std::string val = column == "source" ? short_source(text(g, "source")) : text(g, column.c_str());
      if (!val.empty()) label += (label.empty() ? "" : " ") + val;
    }
    auto r = accuracy_cells(g);
    r.insert(r.begin(), label);
    rows.push_back(std::move(r));
  }
  auto all = accuracy_cells(v.value("summary", json::object()));
  all.insert(all.begin(), "**all held-out rows**");
  rows.push_back(all);
  md << report::md_table({"group", "n", "MAPE", "median |error|", "max |error|", "95% coverage"}, rows) << "\n";
  report::extra_section s{md.str(), {}};
  if (!figure_name.empty()) {
    auto f = prediction_figure(v.value("rows", json::array()), measured, figure_name);
    if (!f.series.empty()) s.figures.push_back(std::move(f));
  }
  return s;
}

report::extra_section predictions_section(const json& predictions) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : predictions)
    rows.push_back({text(p, "query"), fmt(num(p, "value")), fmt(num(p, "lo")) + " – " + fmt(num(p, "hi")),
                    text(p, "unit"), format_number(num(p, "extrapolation"), 3) + "×", text(p, "formula")});
  std::string md =
      "## Predictions beyond what this machine can register\n\nRLIMIT_NOFILE caps the measured n near "
      "19700; the models answer for larger n, with 95% prediction intervals and the factor by which "
      "each extrapolates beyond its largest measured n.\n\n" +
      report::md_table({"query", "predicted", "95% interval", "unit", "extrapolation", "formula"}, rows);
  return {md, {}};
}

namespace {

// Where the fitted host kept its two CPUs, when the whatif's replications met its placements
// (whatif.json costs.placement per row); empty otherwise.
std::string placement_text(const json& whatif) {
  for (const auto& r : whatif.value("rows", json::array())) {
    const json& p = datasets::member(datasets::member(r, "costs"), "placement");
    if (!p.is_object()) continue;
    return " The calibration saw the host move its two CPUs apart for " +
           format_number(100 * (1 - num(p, "near_share")), 3) + "% of its time, where what crosses them cost " +
           format_number(num(p, "far_over_near"), 3) +
           "× as much; each replication met that far placement by the same chance, and the intervals are "
           "the two placements' mixture (docs/sim.md, \"Where the host puts the two CPUs\").";
  }
  return "";
}

// The corpus's spread between runs that the whatif's replications carried (whatif.json
// costs.between_runs per row); empty when none did.
std::string between_runs_text(const json& whatif) {
  for (const auto& r : whatif.value("rows", json::array())) {
    const json& b = datasets::member(datasets::member(r, "costs"), "between_runs");
    if (!b.is_object()) continue;
    return " Each replication's machine also moved by the spread a live server showed between runs of one host "
           "in the corpus of machines (log sd " +
           format_number(num(b, "log_sd"), 3) + ", " + count_text(num(b, "hosts")) +
           " hosts), so the interval is where the server would be if measured again, not only in the state this "
           "calibration met (docs/sim.md, \"Between runs\").";
  }
  return "";
}

}  // namespace

report::extra_section simulation_section(const json& whatif, const datasets::dataset& measured, std::int64_t active) {
  std::map<std::string, report::plot_series> sim, live;
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : whatif.value("rows", json::array())) {
    const std::string mech = text(r, "mechanism");
    const auto& t = r.value(datasets::text(datasets::metric::throughput), json::object());
    auto& s = sim[mech];
    s.title = mech + " simulated";
    s.dashed = true;
    const double idle = std::max(1.0, num(r, "idle"));  // log axis: c = 0 drawn at 1
    s.points.push_back({idle, num(t, "mean"), num(t, "ci95_lo"), num(t, "ci95_hi")});
    rows.push_back({mech, count_text(num(r, "idle")), fmt(num(t, "mean")),
                    fmt(num(t, "ci95_lo")) + " – " + fmt(num(t, "ci95_hi"))});
  }
  for (const auto& r : measured.summaries) {
    const auto& k = r.k;
    if (k.scenario != datasets::scenario::server || k.metric != datasets::metric::throughput ||
        k.n_active.value_or(0) != active || !k.n_fds || !sim.count(k.mechanism) ||
        (!k.variant.empty() && k.variant != datasets::variant::lt))
      continue;
    auto& s = live[k.mechanism + " " + k.pinning];
    s.title = k.mechanism + " live server, cpu " + k.pinning;
    s.points.push_back({std::max<double>(1, static_cast<double>(*k.n_fds)), r.s.median, r.s.ci95_lo, r.s.ci95_hi});
  }
  report::figure f{"study_server",
                   "Replies per second against idle connections (" + std::to_string(active) + " clients)",
                   "idle connections c (0 drawn at 1)",
                   "replies per second",
                   true,
                   true,
                   {}};
  for (auto* g : {&sim, &live})
    for (auto& [name, s] : *g) {
      sort_by_x(s);
      f.series.push_back(std::move(s));
    }
  std::string md = "## Simulated server\n\n`pollscale whatif` with this machine's fitted costs: one server thread, " +
                   std::to_string(active) +
                   " closed-loop clients, c idle connections; the live `server` measurements of "
                   "the calibration are drawn beside it (docs/sim.md discusses how far they agree). Each "
                   "replication runs on its own draw of the model's costs from their 95% intervals, so the "
                   "interval is where one run's answer lies as far as the model knows; costs whose cells have "
                   "no interval (whatif.json: `undrawn` per row) stay at their prediction and add nothing to "
                   "it." +
                   placement_text(whatif) + between_runs_text(whatif) + "\n\n" +
                   report::md_table({"mechanism", "idle c", "replies/s", "95% interval of one run"}, rows);
  return {md, {f}};
}

}  // namespace pollscale::app::study
