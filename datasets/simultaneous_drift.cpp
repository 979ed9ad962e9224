#include "datasets/simultaneous_drift.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <vector>

#include "datasets/statistics.hpp"

namespace pollscale::datasets {
namespace {

// One visit of one point: when it started and on which side of its point's centre it lay.
struct visit_deviation {
  double t_s = 0;
  bool dearer = false;    ///< above the centre (costlier; a rate below it)
  std::size_t point = 0;  ///< which point, to pair only different ones
};

struct visit_values {
  double t_s = 0;
  std::vector<double> values;
};

// The deviations of one point's visits from the mean of their log medians; none when it has
// fewer than two visits. A visit exactly at the centre has no side and is left out.
void add_point(const std::map<std::int64_t, visit_values>& visits, bool rate, std::size_t point,
               std::vector<visit_deviation>& out) {
  if (visits.size() < 2) return;
  std::vector<double> logs;
  std::vector<double> times;
  for (const auto& [visit, v] : visits) {
    const double m = median(v.values);
    if (!(m > 0) || !std::isfinite(m)) return;
    logs.push_back((rate ? -1 : 1) * std::log(m));
    times.push_back(v.t_s);
  }
  double mean = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(logs.size());
  for (std::size_t i = 0; i < logs.size(); ++i)
    if (logs[i] != mean) out.push_back({times[i], logs[i] > mean, point});
}

}  // namespace

std::optional<simultaneous_drift> estimate_simultaneous_drift(std::span<const sample_row> samples, double window_s) {
  // Group the samples by point and visit; a visit's time is its samples' (all the same).
  std::map<key, std::map<std::int64_t, visit_values>> points;
  for (const auto& s : samples) {
    if (!s.t_s || !std::isfinite(*s.t_s) || !(s.value > 0) || !std::isfinite(s.value)) continue;
    auto& v = points[s.k][s.visit];
    v.t_s = *s.t_s;
    v.values.push_back(s.value);
  }
  std::vector<visit_deviation> devs;
  std::size_t taking_part = 0;
  for (const auto& [k, visits] : points) {
    const std::size_t before = devs.size();
    add_point(visits, k.unit.starts_with("1/"), taking_part, devs);
    if (devs.size() > before) ++taking_part;
  }
  std::stable_sort(devs.begin(), devs.end(),
                   [](const visit_deviation& a, const visit_deviation& b) { return a.t_s < b.t_s; });
  // Each visit paired with the first later visit of another point inside the window.
  std::size_t pairs = 0, agreeing = 0;
  for (std::size_t i = 0; i < devs.size(); ++i)
    for (std::size_t j = i + 1; j < devs.size() && devs[j].t_s <= devs[i].t_s + window_s; ++j)
      if (devs[j].point != devs[i].point) {
        ++pairs;
        if (devs[i].dearer == devs[j].dearer) ++agreeing;
        break;
      }
  if (pairs < simultaneous_min_pairs) return std::nullopt;
  // Two normal deviations of correlation r agree in sign with probability 1/2 + asin(r)/pi
  // (Sheppard 1899), so r = sin(pi (agree - 1/2)).
  const double agree = static_cast<double>(agreeing) / static_cast<double>(pairs);
  simultaneous_drift out;
  out.raw_correlation = std::sin(std::numbers::pi * (agree - 0.5));
  out.correlation = std::clamp(out.raw_correlation, 0.0, 1.0);
  out.pairs = pairs;
  out.points = taking_part;
  out.window_s = window_s;
  return out;
}

}  // namespace pollscale::datasets
