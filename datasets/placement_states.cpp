#include "datasets/placement_states.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "datasets/statistics.hpp"

namespace pollscale::datasets {
namespace {

bool usable(const sentinel_reading& r) {
  return std::isfinite(r.t_s) && std::isfinite(r.ns_per_call) && r.ns_per_call > 0;
}

std::vector<sentinel_reading> usable_in_time_order(std::span<const sentinel_reading> series) {
  std::vector<sentinel_reading> out;
  std::copy_if(series.begin(), series.end(), std::back_inserter(out), usable);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.t_s < b.t_s; });
  return out;
}

// The placement reading nearest in time to t_s within the pairing window, or nullptr.
// Precondition: `placement` in time order.
const sentinel_reading* beside(const std::vector<sentinel_reading>& placement, double t_s) {
  const auto it = std::lower_bound(placement.begin(), placement.end(), t_s,
                                   [](const sentinel_reading& r, double t) { return r.t_s < t; });
  const sentinel_reading* best = nullptr;
  if (it != placement.end()) best = &*it;
  if (it != placement.begin() && (!best || t_s - std::prev(it)->t_s < best->t_s - t_s)) best = &*std::prev(it);
  return best && std::abs(best->t_s - t_s) <= placement_pair_window_s ? best : nullptr;
}

}  // namespace

std::optional<double> placement_split_ns(std::span<const sentinel_reading> placement) {
  std::vector<double> v;
  for (const auto& r : placement)
    if (usable(r)) v.push_back(r.ns_per_call);
  if (v.empty()) return std::nullopt;
  const double p5 = quantile(v, 0.05), p95 = quantile(v, 0.95);
  if (!(p5 > 0) || p95 < placement_step * p5) return std::nullopt;
  return std::sqrt(p5 * p95);
}

std::optional<placement_states> estimate_placement_states(std::span<const sentinel_reading> placement,
                                                          std::span<const sentinel_reading> wake) {
  const auto split = placement_split_ns(placement);
  if (!split) return std::nullopt;
  const auto where = usable_in_time_order(placement);
  std::vector<double> near, far;
  for (const auto& w : wake) {
    if (!usable(w)) continue;
    if (const auto* p = beside(where, w.t_s)) (p->ns_per_call < *split ? near : far).push_back(w.ns_per_call);
  }
  if (near.size() < placement_min_readings || far.size() < placement_min_readings) return std::nullopt;
  placement_states s;
  s.split_ns = *split;
  s.near_share = static_cast<double>(
                     std::count_if(where.begin(), where.end(), [&](const auto& r) { return r.ns_per_call < *split; })) /
                 static_cast<double>(where.size());
  s.far_over_near = median(far) / median(near);
  s.near_readings = near.size();
  s.far_readings = far.size();
  std::vector<double> near_line, far_line;
  for (const auto& r : where) (r.ns_per_call < *split ? near_line : far_line).push_back(r.ns_per_call);
  s.near_line_ns = median(near_line);  // both levels hold readings: the split lies between p5 and p95
  s.far_line_ns = median(far_line);
  return s;
}

}  // namespace pollscale::datasets
