#include "sim/call_variation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pollscale::sim {

call_variation::call_variation(datasets::call_spread spread) : spread_(std::move(spread)) {
  for (const auto* list :
       {&spread_.wait_calls, &spread_.handlers, &spread_.wakeups_same_cpu, &spread_.wakeups_cross_cpu})
    for (const auto& s : *list)
      if (const std::string why = datasets::shape_problem(s); !why.empty())
        throw std::invalid_argument("call spread of " + s.point + ": " + why);
  wait_means_ = means_of(spread_.wait_calls);
  handler_means_ = means_of(spread_.handlers);
  same_means_ = means_of(spread_.wakeups_same_cpu);
  cross_means_ = means_of(spread_.wakeups_cross_cpu);
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

const std::vector<double>& call_variation::means_of(operation op) const {
  switch (op) {
    case operation::wait_call: return wait_means_;
    case operation::handler: return handler_means_;
    case operation::wakeup_same_cpu: return same_means_;
    case operation::wakeup_cross_cpu: break;
  }
  return cross_means_;
}

std::vector<double> call_variation::means_of(const std::vector<datasets::spread_shape>& shapes) {
  std::vector<double> m;
  for (const auto& s : shapes) m.push_back(s.mean_ratio());
  return m;
}

double call_variation::multiplier(const std::vector<datasets::spread_shape>& shapes, const std::vector<double>& means,
                                  double mean_s, double u) {
  // The two shapes around this length, blended in log mean (datasets::shape_for_mean),
  // evaluated at u and divided by the blended mean — the blend is linear in the ratios, so
  // its mean is the same blend of the two means.
  const double mean_ns = mean_s * 1e9;
  std::size_t hi = 0;
  while (hi < shapes.size() && shapes[hi].mean_ns < mean_ns) ++hi;
  if (hi == 0 || hi == shapes.size() || !(mean_ns > 0)) {
    const std::size_t i = hi == 0 ? 0 : shapes.size() - 1;
    return shapes[i].ratio_at(u) / means[i];
  }
  const std::size_t lo = hi - 1;
  const double w = std::log(mean_ns / shapes[lo].mean_ns) / std::log(shapes[hi].mean_ns / shapes[lo].mean_ns);
  const double r = (1 - w) * shapes[lo].ratio_at(u) + w * shapes[hi].ratio_at(u);
  return r / ((1 - w) * means[lo] + w * means[hi]);
}

double call_variation::draw(const std::vector<datasets::spread_shape>& shapes, const std::vector<double>& means,
                            double mean_s, rng& g) {
  if (shapes.empty() || !(mean_s > 0)) return mean_s;
  return mean_s * multiplier(shapes, means, mean_s, uniform01(g));
}

double call_variation::multiplier_at(operation op, double mean_s, double u) const {
  const auto& shapes = shapes_of(op);
  if (shapes.empty()) return 1;
  return multiplier(shapes, means_of(op), mean_s, u);
}

double call_variation::multiplier_variance(operation op, double mean_s) const {
  const auto& shapes = shapes_of(op);
  if (shapes.empty() || !(mean_s > 0)) return 0;
  const datasets::spread_shape s = datasets::shape_for_mean(shapes, mean_s * 1e9);
  const double m = s.mean_ratio();
  return std::max(0.0, s.second_moment() / (m * m) - 1);
}

}  // namespace pollscale::sim
