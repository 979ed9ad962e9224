#include "app/report/conditions.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "app/report/markdown.hpp"
#include "app/table_writer.hpp"
#include "datasets/placement_states.hpp"
#include "datasets/run_facts.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::app::report {
namespace {

// One row of the table: what was watched, and what its series says.
std::vector<std::string> stability_row(const std::string& what, const std::optional<datasets::stability_facts>& st) {
  if (!st || !st->median_ns) return {what, "no readings", "", "", "", ""};
  return {what,
          format_number(*st->median_ns / 1000, 4) + " µs",
          format_number(st->spread_p90_p10.value_or(0), 3),
          format_number(100 * st->slow_share.value_or(0), 3) + "%",
          st->worst_episode + " (" + format_number(st->worst_episode_s, 3) + " s)",
          st->stable.value_or(false) ? "steady" : "**drifted**"};
}

std::vector<std::string> reference_row(const datasets::reference_facts& r) {
  if (!r.median_ratio) return {r.name, r.missing, ""};
  return {r.name, format_number(*r.median_ratio, 4), r.point};
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

// What the far placement cost a cross-CPU wake-up (the wake sentinel's readings beside each
// placement reading, datasets/placement_states.hpp), when there were enough of both.
std::string wake_ratio_text(const datasets::dataset& d) {
  const auto s = datasets::estimate_placement_states(d.placement_sentinel, d.wake_sentinel);
  if (!s) return "";
  char text[400];
  std::snprintf(text, sizeof text,
                " The cross-CPU wake sentinel took %.2fx as long beside the far placement's readings as beside the "
                "near one's (%zu and %zu readings): a simulation driven by this calibration meets each placement as "
                "often as the run did and prices what crosses the CPUs by that factor (docs/sim.md).",
                s->far_over_near, s->far_readings, s->near_readings);
  return text;
}

// Where the host kept the first two CPUs (the placement sentinel: a cache line's round trip
// between them), in one sentence: points on two CPUs pay what that distance costs.
std::string placement_text(const datasets::placement_facts& p, const datasets::dataset& d) {
  char text[500];
  if (p.moved && p.near_ns && p.far_ns && p.near_share)
    std::snprintf(text, sizeof text,
                  "The host moved the first two CPUs relative to each other during the run: a cache line crossed "
                  "between them in %.0f ns for %.0f%% of the placement sentinel's %zu readings and in %.0f ns for "
                  "the rest (%zu moves). Points whose threads run on two CPUs met both placements, and cost less "
                  "in the near one.",
                  *p.near_ns, 100 * *p.near_share, p.readings, *p.far_ns, p.moves);
  else
    std::snprintf(text, sizeof text,
                  "The first two CPUs stayed where the host had put them: a cache line crossed between them in "
                  "%.0f ns through the run (median of %zu readings of the placement sentinel).\n\n",
                  *p.median_ns, p.readings);
  if (!p.moved) return text;
  return text + wake_ratio_text(d) + "\n\n";
}

}  // namespace

conditions conditions_section(const datasets::dataset& d) {
  conditions out;
  const datasets::run_facts run = datasets::read_run_facts(d.context);
  std::string md = "## How steady the machine was\n\n";
  if (d.sentinel.empty() && d.wake_sentinel.empty() && !run.drift) {
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
  rows.push_back(stability_row("one CPU (drift sentinel)", run.drift));
  if (run.cross_cpu) rows.push_back(stability_row("across CPUs (wake sentinel)", run.cross_cpu));
  md += md_table({"watched", "median", "p90/p10", "readings slow", "worst episode", "verdict"}, rows) + "\n";
  if (run.placement && run.placement->median_ns) md += placement_text(*run.placement, d);
  if (!run.references.empty()) {
    md +=
        "Independent references, run beside their twin points at the same moments (pollscale / reference, "
        "median of the pairs; 1.0 is agreement):\n\n";
    std::vector<std::vector<std::string>> refs;
    for (const auto& r : run.references) refs.push_back(reference_row(r));
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
