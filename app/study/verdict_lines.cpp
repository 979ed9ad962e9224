#include "app/study/verdict_lines.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "app/report/markdown.hpp"
#include "app/study/json_fields.hpp"
#include "app/table_writer.hpp"
#include "datasets/schema.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::app::study {
namespace {

using json = nlohmann::json;

// One accuracy target: the rows it is measured on and how (a median or a mean of |error|).
struct target {
  std::string name;
  double aim;  ///< fraction
  bool median;
  std::function<bool(const json&)> keep;
};

std::string row_text(const json& r) {
  std::string s = text(r, "mechanism") + (text(r, "variant").empty() ? "" : "/" + text(r, "variant")) + " " +
                  text(r, "fd_kind") + " n=" + text(r, "n_fds");
  return s + ": " + (num(r, "rel_err") > 0 ? "+" : "") + format_number(100 * num(r, "rel_err"), 3) + "%";
}

// The target's table row: measured figure, aim, met, the worst row.
std::vector<std::string> judge(const target& t, const json& rows, int& met, int& judged) {
  std::vector<double> errs;
  const json* worst = nullptr;
  for (const auto& r : rows) {
    if (!t.keep(r) || !std::isfinite(num(r, "rel_err"))) continue;
    errs.push_back(std::abs(num(r, "rel_err")));
    if (!worst || errs.back() > std::abs(num(*worst, "rel_err"))) worst = &r;
  }
  const std::string aim = "≤ " + format_number(100 * t.aim, 3) + "%";
  if (errs.empty()) return {t.name, "no rows", aim, "n/a", ""};
  double v = 0;
  if (t.median)
    v = datasets::median(errs);
  else
    for (double e : errs) v += e / static_cast<double>(errs.size());
  ++judged;
  met += v <= t.aim;
  return {t.name, percent_text(v) + " (" + std::to_string(errs.size()) + " rows)", aim, v <= t.aim ? "yes" : "**no**",
          row_text(*worst)};
}

bool scan_t0(const json& r, std::initializer_list<datasets::fd_kind> kinds) {
  const auto m = datasets::parse<datasets::mechanism>(text(r, "mechanism"));
  const auto k = datasets::parse<datasets::fd_kind>(text(r, "fd_kind"));
  return text(r, "scenario") == datasets::scenario::find_active && text(r, "blocking") == "0" &&
         (m == datasets::mechanism::select || m == datasets::mechanism::poll || m == datasets::mechanism::epoll) && k &&
         std::find(kinds.begin(), kinds.end(), *k) != kinds.end();
}

}  // namespace

std::string accuracy_verdict(const json& extrapolation, const json& interpolation) {
  using datasets::fd_kind;
  std::vector<std::vector<std::string>> table;
  int met = 0, judged = 0;
  if (extrapolation.is_object()) {
    for (auto m : {datasets::mechanism::select, datasets::mechanism::poll, datasets::mechanism::epoll}) {
      const std::string name = datasets::text(m);
      table.push_back(judge({"extrapolation, " + name + " over pipes and eventfds (median |error|)", 0.10, true,
                             [&](const json& r) {
                               return scan_t0(r, {fd_kind::pipe, fd_kind::eventfd}) && text(r, "mechanism") == name;
                             }},
                            extrapolation.value("rows", json::array()), met, judged));
    }
    table.push_back(judge({"extrapolation, the three over sockets (median |error|)", 0.15, true,
                           [](const json& r) {
                             return scan_t0(r, {fd_kind::socketpair, fd_kind::tcp});
                           }},
                          extrapolation.value("rows", json::array()), met, judged));
  }
  if (interpolation.is_object())
    for (auto s : {datasets::scenario::find_active, datasets::scenario::token_ring}) {
      const std::string name = datasets::text(s);
      table.push_back(judge({"interpolation, " + name + " (MAPE)", 0.05, false,
                             [name](const json& r) { return text(r, "scenario") == name; }},
                            interpolation.value("rows", json::array()), met, judged));
    }
  if (extrapolation.is_object()) {
    const json summary = extrapolation.value("summary", json::object());
    const double cov = num(summary, "coverage"), half = num(summary, "median_rel_halfwidth");
    if (std::isfinite(cov)) {
      ++judged;
      met += cov >= 0.9;
      table.push_back({"extrapolation, 95% intervals holding the measurement", percent_text(cov), "≥ 90%",
                       cov >= 0.9 ? "yes" : "**no**", ""});
    }
    if (std::isfinite(half) || text(summary, "median_rel_halfwidth") == "inf") {
      const bool ok = std::isfinite(half) && half <= 0.3;
      ++judged;
      met += ok;
      table.push_back({"extrapolation, median relative half-width of those intervals",
                       std::isfinite(half) ? percent_text(half) : "unbounded", "≤ 30%", ok ? "yes" : "**no**", ""});
    }
  }
  if (table.empty()) return "- The model was not validated (its steps did not run), so its accuracy here is unknown.\n";
  std::ostringstream md;
  md << "- **The model met " << met << " of its " << judged << " accuracy targets on this machine's calibration**"
     << (met == judged ? "." : "; read its predictions with the misses below in mind.") << "\n\n"
     << report::md_table({"target", "here", "aim", "met", "worst row"}, table) << "\n";
  return md.str();
}

std::string beyond_limit_verdict(const json& predictions) {
  if (!predictions.is_object()) return "";                            // the step did not run
  const json list = predictions.value("predictions", json::array());  // at_largest points into it
  std::map<std::string, const json*> at_largest;                      // mechanism -> prediction at its largest n
  for (const auto& p : list) {
    const json key = p.value("key", json::object());
    const auto m = datasets::parse<datasets::mechanism>(text(key, "mechanism"));
    const bool wanted = m == datasets::mechanism::poll ||
                        (m == datasets::mechanism::epoll && text(key, "variant") == datasets::variant::lt);
    if (!wanted || !one_thread(key) || text(key, "metric") != datasets::metric::time_per_call ||
        !std::isfinite(num(p, "value")))
      continue;
    const json*& best = at_largest[text(key, "mechanism")];
    if (!best || num(key, "n_fds") > num(best->value("key", json::object()), "n_fds")) best = &p;
  }
  if (at_largest.empty()) return "";
  std::string parts;
  for (const auto& [mech, p] : at_largest) {
    double f = NAN;  // to ns
    try {
      f = datasets::to_si_factor(text(*p, "unit")) * 1e9;
    } catch (const std::invalid_argument&) {
      continue;  // not a time
    }
    parts += std::string(parts.empty() ? "" : "; ") + mech +
             " at n = " + text(p->value("key", json::object()), "n_fds") + ": " + duration_text(f * num(*p, "value")) +
             " [" + duration_text(f * num(*p, "lo")) + ", " + duration_text(f * num(*p, "hi")) + "], " +
             format_number(num(*p, "extrapolation"), 3) + "× past its largest measured n";
  }
  if (parts.empty()) return "";
  return "- Past the descriptor limit, one wait call as the model predicts it (95% interval; never measured "
         "here): " +
         parts + ".\n";
}

namespace {

// "within 4.1% median (80 rows; aim ≤ 15%: met), 73 of 80 inside their 95% intervals"
std::string scaling_check(const json& summary) {
  const double med = num(summary, "median_rel_err"), n = num(summary, "n");
  const double with = num(summary, "n_with_interval"), cov = num(summary, "coverage");
  if (!std::isfinite(med) || !(n > 0)) return "";
  std::string s = "within " + percent_text(med) + " median (" + count_text(n) +
                  " rows; aim ≤ 15%: " + (med <= 0.15 ? "met" : "**not met**") + ")";
  if (with > 0 && std::isfinite(cov))
    s += ", " + count_text(std::round(cov * with)) + " of " + count_text(with) + " inside their 95% intervals";
  if (with < n) s += ", " + count_text(n - (with > 0 ? with : 0)) + " with no interval";
  return s;
}

// The series widths a `scale --from-cpus` result predicted and measured: "2" or "2, 4 and 16".
std::string wider_widths(const json& wider) {
  std::set<long long> cs;  // distinct, in order
  for (const auto& f : wider.value("families", json::array()))
    for (const auto& se : f.value("series", json::array()))
      if (se.value("measured", false) && se.contains("cpus") && se["cpus"].is_number_integer())
        cs.insert(se["cpus"].get<long long>());
  const std::vector<long long> v(cs.begin(), cs.end());
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + std::to_string(v[i]);
  return out;
}

}  // namespace

std::string scaling_verdict(const json& threads, const json& wider) {
  std::string parts;
  if (wider.is_object()) {
    const std::string check = scaling_check(wider.value("summary", json::object()));
    if (!check.empty())
      parts += "from its one-CPU series, the " + wider_widths(wider) + "-CPU series predicted " + check;
  }
  if (threads.is_object()) {
    const std::string check = scaling_check(threads.value("summary", json::object()));
    if (!check.empty())
      parts += std::string(parts.empty() ? "" : "; ") + "from one and two threads, more threads predicted " + check;
  }
  if (parts.empty()) return "";
  return "- CPU scaling on this machine (docs/scaling.md): " + parts + ".\n";
}

std::string server_verdict(const json& whatif) {
  if (!whatif.is_object()) return "";                                     // the step did not run, or failed
  std::map<std::string, std::vector<std::pair<double, double>>> by_mech;  // idle -> replies/s
  std::map<std::string, std::pair<double, double>> at_zero;               // the 95% interval with no idle
  bool drawn = false;  // each replication on its own draw of the costs: the interval is one run's
  for (const auto& r : whatif.value("rows", json::array())) {
    if (!r.is_object()) continue;
    drawn = drawn || r.value("intervals", "") == "replication";
    const auto& t = r.value(datasets::text(datasets::metric::throughput), json::object());
    by_mech[text(r, "mechanism")].emplace_back(num(r, "idle"), num(t, "mean"));
    if (num(r, "idle") == 0) at_zero[text(r, "mechanism")] = {num(t, "ci95_lo"), num(t, "ci95_hi")};
  }
  std::ostringstream md;
  for (auto& [mech, points] : by_mech) {
    std::sort(points.begin(), points.end());
    if (points.empty() || points.front().first != 0 || !(points.front().second > 0)) continue;
    const double base = points.front().second;
    const auto below =
        std::find_if(points.begin(), points.end(), [&](const auto& p) { return !(p.second >= 0.9 * base); });
    md << "- Simulated server, " << mech << ": " << count_text(base) << " replies/s with no idle connection";
    if (const auto z = at_zero.find(mech);
        drawn && z != at_zero.end() && std::isfinite(z->second.first) && std::isfinite(z->second.second))
      md << " (one run within " << count_text(z->second.first) << "–" << count_text(z->second.second)
         << " as far as the model's intervals know)";
    md << "; ";
    if (below == points.end())
      md << "still at least 90% of that with " << count_text(points.back().first)
         << " idle connections, the most simulated.\n";
    else
      md << "below 90% of that from " << count_text(below->first) << " idle connections on ("
         << count_text(below->second) << " replies/s there, " << count_text(points.back().second) << " with "
         << count_text(points.back().first) << ").\n";
  }
  return md.str();
}

}  // namespace pollscale::app::study
