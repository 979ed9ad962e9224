#include "app/report/verdict.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "app/report/markdown.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::app::report {
namespace {

using datasets::mechanism;

// mechanism label ("select", "poll", "epoll") -> n -> the point
using by_mechanism = std::map<std::string, std::map<std::int64_t, datasets::summary>>;

// The one operation all three do alike (see measured_choices); epoll only level-triggered,
// the default a server would start from.
by_mechanism comparable_points(const datasets::dataset& d) {
  by_mechanism out;
  for (const auto& r : d.summaries) {
    const auto& k = r.k;
    const auto m = datasets::parse<mechanism>(k.mechanism);
    const bool wanted =
        m == mechanism::select || m == mechanism::poll || (m == mechanism::epoll && k.variant == datasets::variant::lt);
    if (!wanted || k.scenario != datasets::scenario::find_active || k.metric != datasets::metric::time_per_call ||
        k.fd_kind != datasets::fd_kind::pipe || k.n_active.value_or(0) != 1 ||
        k.active_pos != datasets::position::middle || k.blocking.value_or(1) != 0 || !k.n_fds ||
        k.cpus.value_or(1) != 1 || !datasets::one_thread(k))
      continue;
    out[k.mechanism][*k.n_fds] = r.s;
  }
  return out;
}

// The points are times per call in ns (find_active's time_per_call).
std::string duration_with_interval(const datasets::summary& s) {
  return duration_text(s.median) + " [" + duration_text(s.ci95_lo) + ", " + duration_text(s.ci95_hi) + "]";
}

}  // namespace

std::vector<choice_at_n> measured_choices(const datasets::dataset& d) {
  const by_mechanism points = comparable_points(d);
  std::map<std::int64_t, std::vector<std::pair<std::string, datasets::summary>>> at;
  for (const auto& [mech, by_n] : points)
    for (const auto& [n, s] : by_n) at[n].emplace_back(mech, s);
  std::vector<choice_at_n> out;
  for (auto& [n, list] : at) {
    if (list.size() < 2) continue;
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second.median < b.second.median; });
    choice_at_n c{n, list[0].first, list[1].first, list[0].second, list[1].second, false};
    c.clear = c.best.ci95_hi < c.next.ci95_lo;
    out.push_back(c);
  }
  return out;
}

std::optional<crossover> measured_crossover(const datasets::dataset& d, std::string_view cheaper,
                                            std::string_view dearer) {
  const by_mechanism points = comparable_points(d);
  const auto a = points.find(std::string(cheaper)), b = points.find(std::string(dearer));
  if (a == points.end() || b == points.end()) return std::nullopt;
  std::vector<std::pair<std::int64_t, bool>> common;  // n, cheaper clearly below dearer there
  for (const auto& [n, s] : a->second)
    if (const auto o = b->second.find(n); o != b->second.end()) common.emplace_back(n, s.ci95_hi < o->second.ci95_lo);
  if (common.empty() || !common.back().second) return std::nullopt;
  std::size_t first = common.size() - 1;
  while (first > 0 && common[first - 1].second) --first;
  crossover c{common[first].first, std::nullopt};
  if (first > 0) c.not_yet_at = common[first - 1].first;
  return c;
}

std::string verdict_markdown(const datasets::dataset& d, const std::string& study_lines) {
  std::ostringstream md;
  md << "## Verdict\n\n";
  const auto choices = measured_choices(d);
  const std::string epoll = datasets::text(mechanism::epoll), poll = datasets::text(mechanism::poll);
  if (choices.empty()) {
    md << "This dataset has no n at which two of select, poll and epoll were measured alike (find_active, "
          "pipes, timeout 0), so it cannot say which to use.\n\n";
  } else {
    if (const auto x = measured_crossover(d, epoll, poll)) {
      md << "- **Use epoll from n = " << x->from_n << "** on this machine: from there on, at every measured n, "
         << "its 95% interval for one wait call lies below poll's";
      if (x->not_yet_at) md << " (at n = " << *x->not_yet_at << " it does not yet; the crossover lies between)";
      md << ". That is the wait alone; registering interest, which epoll adds, is measured under "
            "interest_churn below.\n";
    } else {
      md << "- epoll is not clearly cheaper than poll at the largest n measured here.\n";
    }
    const auto& last = choices.back();
    md << "- At the largest n measured alike (" << last.n << "): " << last.cheapest << " "
       << duration_with_interval(last.best) << " against " << last.runner_up << " " << duration_with_interval(last.next)
       << ", " << format_number(last.next.median / last.best.median, 3) << "× cheaper"
       << (last.clear ? "" : " (but the intervals overlap)") << ".\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : choices)
      rows.push_back({std::to_string(c.n), c.cheapest, duration_with_interval(c.best), c.runner_up,
                      duration_with_interval(c.next), c.clear ? "yes" : "no (intervals overlap)"});
    md << "One wait call finding 1 ready pipe among n (find_active, timeout 0; select, poll and "
          "level-triggered epoll), the median with its 95% interval:\n\n"
       << md_table({"n", "cheapest", "median [95% CI]", "next", "median [95% CI]", "clearly cheaper"}, rows) << "\n";
  }
  if (!study_lines.empty()) md << study_lines << "\n";
  return md.str();
}

}  // namespace pollscale::app::report
