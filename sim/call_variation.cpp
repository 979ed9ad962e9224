#include "sim/call_variation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pollscale::sim {

call_variation::call_variation(datasets::call_spread spread) : spread_(std::move(spread)) {
  for (std::size_t i = 0; i < operation_count; ++i)
    for (const auto& s : shapes_of(static_cast<operation>(i))) {
      if (const std::string why = datasets::shape_problem(s); !why.empty())
        throw std::invalid_argument("call spread of " + s.point + ": " + why);
      means_[i].push_back(s.mean_ratio());
    }
}

const std::vector<datasets::spread_shape>& call_variation::shapes_of(operation op) const {
  switch (op) {
    case operation::wait_call: return spread_.wait_calls;
    case operation::handler: return spread_.handlers;
    case operation::wakeup_same_cpu: return spread_.wakeups_same_cpu;
    case operation::wakeup_cross_cpu: break;
  }
  return spread_.wakeups_cross_cpu;
}

double call_variation::multiplier_at(operation op, double mean_s, double u) const {
  // The two shapes around this length (datasets::blend_for_mean), evaluated at u and divided
  // by the blended mean — the blend is linear in the ratios, so its mean is the same blend
  // of the two means.
  const auto& shapes = shapes_of(op);
  if (shapes.empty()) return 1;
  const auto& means = means_[static_cast<std::size_t>(op)];
  const datasets::shape_blend b = datasets::blend_for_mean(shapes, mean_s * 1e9);
  const double r = (1 - b.weight) * shapes[b.lo].ratio_at(u) + b.weight * shapes[b.hi].ratio_at(u);
  return r / ((1 - b.weight) * means[b.lo] + b.weight * means[b.hi]);
}

double call_variation::draw(operation op, double mean_s, rng& g) const {
  if (shapes_of(op).empty() || !(mean_s > 0)) return mean_s;
  return mean_s * multiplier_at(op, mean_s, uniform01(g));
}

double call_variation::multiplier_variance(operation op, double mean_s) const {
  const auto& shapes = shapes_of(op);
  if (shapes.empty() || !(mean_s > 0)) return 0;
  const datasets::spread_shape s = datasets::shape_for_mean(shapes, mean_s * 1e9);
  const double m = s.mean_ratio();
  return std::max(0.0, s.second_moment() / (m * m) - 1);
}

}  // namespace pollscale::sim
