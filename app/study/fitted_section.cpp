#include "app/study/fitted_section.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "app/study/crossover.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"

namespace pollscale::app::study {
namespace {

constexpr double curve_n_max = 1e6;
constexpr int per_decade = 20;

struct compared {
  datasets::mechanism mech;
  std::optional<datasets::variant> variant;
  const char* label;  // the series' first word, which gives its colour (report::style_of)
};

constexpr compared mechanisms[] = {{datasets::mechanism::select, std::nullopt, "select"},
                                   {datasets::mechanism::poll, std::nullopt, "poll"},
                                   {datasets::mechanism::epoll, datasets::variant::lt, "epoll/lt"}};

// The model's curve on a log grid of n: its value, and its 95% prediction interval where it
// gives one (the value itself where it does not: the band then closes).
report::plot_series fitted_curve(const model::model_set& models, const model::cell_model& c, const char* label) {
  report::plot_series s;
  s.title = std::string(label) + " fitted (95% prediction band)";
  s.band = true;
  for (const double n : log_grid(curve_n_max, per_decade)) {
    const auto p = model::try_predict(models, one_ready_at(c.cell, static_cast<std::int64_t>(n)));
    if (!p) continue;
    s.points.push_back({n, p->value, p->has_interval ? p->lo : p->value, p->has_interval ? p->hi : p->value});
  }
  return s;
}

// The measured medians of the cell's own points (1 ready in the middle, one CPU).
report::plot_series measured_points(const datasets::dataset& d, const model::cell_model& c, const char* label) {
  report::plot_series s;
  s.title = std::string(label) + " measured";
  for (const auto& r : d.summaries) {
    const auto& k = r.k;
    if (k.scenario != c.cell.scenario || k.mechanism != c.cell.mechanism || k.variant != c.cell.variant ||
        k.fd_kind != c.cell.fd_kind || k.metric != c.cell.metric || k.blocking != c.cell.blocking ||
        k.cpus.value_or(1) != 1 || k.threads.value_or(1) != c.cell.threads.value_or(1) || k.n_active.value_or(0) != 1 ||
        k.active_pos != datasets::position::middle || !k.n_fds)
      continue;
    s.points.push_back({static_cast<double>(*k.n_fds), r.s.median, r.s.ci95_lo, r.s.ci95_hi});
  }
  std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  return s;
}

}  // namespace

report::extra_section fitted_curves_section(const model::model_set& models, const datasets::dataset& measured,
                                            const std::string& figure_name) {
  report::figure f{
      figure_name,
      "find_active on pipes (1 ready, timeout 0): measured, and the fitted models with 95% prediction bands",
      "registered descriptors n",
      "ns per call",
      true,
      true,
      {}};
  double measured_max = INFINITY;
  for (const auto& m : mechanisms) {
    const auto* c = pipe_wait_cell(models, m.mech, m.variant);
    if (!c) continue;
    f.series.push_back(measured_points(measured, *c, m.label));
    f.series.push_back(fitted_curve(models, *c, m.label));
    measured_max = std::min(measured_max, c->dom.n_max);
  }
  std::ostringstream md;
  md << "## The fitted models against their points\n\n";
  if (f.series.empty()) {
    md << "The model has no cell for select, poll or epoll waiting on pipes with timeout 0, so there is no curve "
          "to draw.\n";
    return {md.str(), {}};
  }
  if (std::isfinite(measured_max) && measured_max < curve_n_max) f.extrapolated_from = measured_max;
  md << "Each mechanism's measured medians (95% intervals) and its fitted model from n = 1 to "
     << count_text(curve_n_max)
     << " with the 95% prediction band: where the median of a new measurement at that n would fall. "
        "Past n = "
     << count_text(measured_max)
     << " (shaded) no point was measured: the curve is the model's extrapolation, and the band is as honest as "
        "the model's terms past the data (docs/model.md §9 says how often it held on other machines). Where the "
        "model gives no interval the band closes onto the curve.\n";
  return {md.str(), {f}};
}

}  // namespace pollscale::app::study
