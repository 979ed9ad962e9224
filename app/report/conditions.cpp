#include "app/report/conditions.hpp"

#include <algorithm>
#include <vector>

#include "app/report/markdown.hpp"
#include "app/table_writer.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::app::report {
namespace {

using json = nlohmann::json;

// One row of the table: what was watched, and what its series says.
std::vector<std::string> stability_row(const std::string& what, const json& st, const char* unit_scale_name,
                                       double unit_scale) {
  if (!st.is_object() || !st.contains("median_ns")) return {what, "no readings", "", "", "", ""};
  const auto num = [&](const char* f) { return st.value(f, 0.0); };
  return {what,
          format_number(num("median_ns") / unit_scale, 4) + " " + unit_scale_name,
          format_number(num("spread_p90_p10"), 3),
          format_number(100 * num("slow_share"), 3) + "%",
          st.value("worst_episode", std::string("?")) + " (" + format_number(num("worst_episode_s"), 3) + " s)",
          st.value("stable", false) ? "steady" : "**drifted**"};
}

std::vector<std::string> reference_row(const std::string& what, const json& ref) {
  if (!ref.is_object() || !ref.contains("median_ratio")) {
    const std::string why = ref.is_object() ? ref.value("missing", std::string("not run")) : "not run";
    return {what, why, ""};
  }
  return {what, format_number(ref.value("median_ratio", 0.0), 4), ref.value("point", std::string())};
}

// The readings over the run, each over its series' p10: 1.0 is the series' fast level.
plot_series relative_series(const std::string& title, const std::vector<datasets::sentinel_reading>& readings) {
  std::vector<double> v;
  for (const auto& r : readings) v.push_back(r.ns_per_call);
  const double p10 = datasets::quantile(v, 0.10);
  plot_series s{title, {}};
  for (const auto& r : readings) {
    const double y = p10 > 0 ? r.ns_per_call / p10 : 0;
    s.points.push_back({r.t_s, y, y, y});
  }
  return s;
}

}  // namespace

conditions conditions_section(const datasets::dataset& d) {
  conditions out;
  const json st = d.context.value("stability", json());
  const json ref = d.context.value("reference", json());
  std::string md = "## How steady the machine was\n\n";
  if (d.sentinel.empty() && d.wake_sentinel.empty() && !st.is_object()) {
    out.markdown = md + "This dataset has no record of the machine's stability (no sentinel readings).\n\n";
    return out;
  }
  md +=
      "Two cheap operations were read again and again through the run: the drift sentinel (poll over 64 pipes "
      "on one CPU, before every visit) and the cross-CPU wake sentinel (a blocking round trip between two CPUs, "
      "once a second). A sentinel *drifted* when its p90/p10 exceeds 1.15 or a stretch of readings at 1.15x its "
      "p10 or more lasted 5 s; the points measured in such a stretch met a slower machine, and their intervals "
      "(from the spread between visits) are wider for it.\n\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back(stability_row("one CPU (drift sentinel)", st, "µs", 1000));
  if (st.is_object() && st.contains("cross_cpu"))
    rows.push_back(stability_row("across CPUs (wake sentinel)", st["cross_cpu"], "µs", 1000));
  md += md_table({"watched", "median", "p90/p10", "readings slow", "worst episode", "verdict"}, rows) + "\n";
  if (ref.is_object() && !ref.empty()) {
    md +=
        "Independent references, run beside their twin points at the same moments (pollscale / reference, "
        "median of the pairs; 1.0 is agreement):\n\n";
    std::vector<std::vector<std::string>> refs;
    for (const auto& [name, r] : ref.items()) refs.push_back(reference_row(name, r));
    md += md_table({"reference", "ratio", "twin point"}, refs) + "\n";
  }
  out.markdown = md;
  if (d.sentinel.empty() && d.wake_sentinel.empty()) return out;
  figure f;
  f.name = "sentinels";
  f.title = "The sentinels through the run (each reading over its series' p10)";
  f.xlabel = "seconds into the calibration";
  f.ylabel = "reading / p10";
  f.logx = f.logy = false;
  // Titles start with the flavour the plot styles read: poll's colour, and grey for the read.
  if (!d.sentinel.empty()) f.series.push_back(relative_series("poll over 64 pipes, one CPU", d.sentinel));
  if (!d.wake_sentinel.empty())
    f.series.push_back(relative_series("read round trip across CPUs (wake sentinel)", d.wake_sentinel));
  out.series = f;
  return out;
}

}  // namespace pollscale::app::report
