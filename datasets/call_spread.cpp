#include "datasets/call_spread.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::datasets {
namespace {

using calls_by_visit = std::map<std::int64_t, std::vector<double>>;

// A point's shape from its visits' single operations: each value over its visit's mean.
std::optional<spread_shape> shape_of(const key& k, const calls_by_visit& visits) {
  std::vector<double> ratios;
  double sum = 0;
  for (const auto& [visit, values] : visits) {
    double visit_sum = 0;
    for (double v : values) visit_sum += v;
    const double mean = visit_sum / static_cast<double>(values.size());
    for (double v : values) ratios.push_back(v / mean);
    sum += visit_sum;
  }
  if (ratios.size() < spread_min_samples) return std::nullopt;
  spread_shape s;
  s.point = describe(k);
  s.samples = ratios.size();
  s.visits = visits.size();
  // Values are in the key's unit; the shape keeps nanoseconds.
  s.mean_ns = sum / static_cast<double>(ratios.size()) * to_si_factor(k.unit) * 1e9;
  std::sort(ratios.begin(), ratios.end());
  for (std::size_t i = 0; i < spread_probabilities.size(); ++i) s.ratios[i] = quantile(ratios, spread_probabilities[i]);
  return s;
}

void sort_by_mean(std::vector<spread_shape>& shapes) {
  std::sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) { return a.mean_ns < b.mean_ns; });
}

}  // namespace

double spread_shape::ratio_at(double u) const {
  const auto& p = spread_probabilities;
  if (!(u > 0)) return ratios.front();
  if (u >= 1) return ratios.back();
  const auto hi = static_cast<std::size_t>(std::upper_bound(p.begin(), p.end(), u) - p.begin());
  const std::size_t lo = hi - 1;
  const double w = (u - p[lo]) / (p[hi] - p[lo]);
  return ratios[lo] + w * (ratios[hi] - ratios[lo]);
}

double spread_shape::mean_ratio() const {
  // Linear between knots: each segment's mean is the middle of its two ends.
  double m = 0;
  for (std::size_t i = 1; i < spread_probabilities.size(); ++i)
    m += (spread_probabilities[i] - spread_probabilities[i - 1]) * (ratios[i] + ratios[i - 1]) / 2;
  return m;
}

double spread_shape::second_moment() const {
  // A linear piece from a to b: the integral of its square is (a² + ab + b²)/3 per unit.
  double m = 0;
  for (std::size_t i = 1; i < spread_probabilities.size(); ++i) {
    const double a = ratios[i - 1], b = ratios[i];
    m += (spread_probabilities[i] - spread_probabilities[i - 1]) * (a * a + a * b + b * b) / 3;
  }
  return m;
}

std::optional<call_spread> estimate_call_spread(std::span<const sample_row> samples) {
  std::map<key, calls_by_visit> points;
  for (const auto& s : samples)
    if (s.k.scenario == scenario::call_spread && s.batch == 1 && s.value > 0 && std::isfinite(s.value))
      points[s.k][s.visit].push_back(s.value);
  call_spread out;
  for (const auto& [k, visits] : points) {
    if (!is_known_unit(k.unit) || k.unit.rfind("1/", 0) == 0 || k.unit == "B") continue;  // durations only
    auto shape = shape_of(k, visits);
    if (!shape) continue;
    if (k.metric == metric::time_per_call) out.wait_calls.push_back(std::move(*shape));
    if (k.metric == metric::time_per_op) out.handlers.push_back(std::move(*shape));
    if (k.metric == metric::round_trip)
      (k.cpus.value_or(1) > 1 ? out.wakeups_cross_cpu : out.wakeups_same_cpu).push_back(std::move(*shape));
  }
  if (out.wait_calls.empty() && out.handlers.empty() && out.wakeups_same_cpu.empty() && out.wakeups_cross_cpu.empty())
    return std::nullopt;
  for (auto* list : {&out.wait_calls, &out.handlers, &out.wakeups_same_cpu, &out.wakeups_cross_cpu})
    sort_by_mean(*list);
  return out;
}

shape_blend blend_for_mean(std::span<const spread_shape> shapes, double mean_ns) {
  std::size_t hi = 0;
  while (hi < shapes.size() && shapes[hi].mean_ns < mean_ns) ++hi;
  if (hi == 0 || !(mean_ns > 0)) return {0, 0, 0};
  if (hi == shapes.size()) return {hi - 1, hi - 1, 0};
  const spread_shape& a = shapes[hi - 1];
  return {hi - 1, hi, std::log(mean_ns / a.mean_ns) / std::log(shapes[hi].mean_ns / a.mean_ns)};
}

spread_shape shape_for_mean(std::span<const spread_shape> shapes, double mean_ns) {
  const shape_blend b = blend_for_mean(shapes, mean_ns);
  if (b.lo == b.hi) return shapes[b.lo];
  spread_shape s = shapes[b.lo];
  s.point = shapes[b.lo].point + " / " + shapes[b.hi].point;
  s.mean_ns = mean_ns;
  for (std::size_t i = 0; i < s.ratios.size(); ++i)
    s.ratios[i] = (1 - b.weight) * shapes[b.lo].ratios[i] + b.weight * shapes[b.hi].ratios[i];
  return s;
}

std::string shape_problem(const spread_shape& s) {
  if (!(s.mean_ns > 0) || !std::isfinite(s.mean_ns)) return "mean_ns must be finite and > 0";
  for (std::size_t i = 0; i < s.ratios.size(); ++i) {
    if (!(s.ratios[i] > 0) || !std::isfinite(s.ratios[i]))
      return "ratio " + std::to_string(i) + " must be finite and > 0";
    if (i && s.ratios[i] < s.ratios[i - 1]) return "ratios must not decrease";
  }
  return "";
}

}  // namespace pollscale::datasets
