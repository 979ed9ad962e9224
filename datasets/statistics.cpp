#include "datasets/statistics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace pollscale::datasets {
namespace {

std::vector<double> sorted_copy(std::span<const double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return v;
}

double sorted_median(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

double median(std::span<const double> values) {
  assert(!values.empty());
  return sorted_median(sorted_copy(values));
}

double quantile(std::span<const double> values, double q) {
  assert(!values.empty() && q >= 0.0 && q <= 1.0);
  const auto v = sorted_copy(values);
  const double h = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::pair<std::size_t, std::size_t> median_ci_ranks(std::size_t n, double level) {
  assert(n >= 1);
  // P(x_(j) <= median < x_(n-1-j)) = P(j+1 <= B <= n-1-j) for B ~ Binomial(n, 1/2),
  // with j zero-based. Take the largest j that still reaches the level.
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), 0.5);
  std::pair<std::size_t, std::size_t> best{0, n - 1};
  for (std::size_t j = 0; 2 * j + 1 < n; ++j) {
    const double lo_tail = boost::math::cdf(b, static_cast<double>(j));  // P(B <= j)
    const double coverage = 1.0 - 2.0 * lo_tail;
    if (coverage < level) break;
    best = {j, n - 1 - j};
  }
  return best;
}

summary summarise(std::span<const double> values) {
  assert(!values.empty());
  const auto v = sorted_copy(values);
  summary s;
  s.n = v.size();
  s.median = sorted_median(v);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
  if (s.n >= 2) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.stderr_mean = s.stddev / std::sqrt(static_cast<double>(s.n));
  }
  const auto [lo, hi] = median_ci_ranks(s.n, 0.95);
  s.ci95_lo = v[lo];
  s.ci95_hi = v[hi];
  s.min = v.front();
  s.max = v.back();
  return s;
}

double visit_median_log_se(std::span<const double> visit_medians) {
  const std::size_t m = visit_medians.size();
  if (m < 2) return 0;
  std::vector<double> logs;
  for (double x : visit_medians) {
    if (!(x > 0) || !std::isfinite(x)) return 0;
    logs.push_back(std::log(x));
  }
  const double mean_log = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(m);
  double ss = 0;
  for (double l : logs) ss += (l - mean_log) * (l - mean_log);
  constexpr double median_se_factor = 1.2533141373155003;  // sqrt(pi/2)
  return median_se_factor * std::sqrt(ss / static_cast<double>(m - 1) / static_cast<double>(m));
}

summary summarise_visits(std::span<const std::vector<double>> visits) {
  std::vector<double> pooled, visit_medians;
  for (const auto& v : visits) {
    if (v.empty()) continue;
    pooled.insert(pooled.end(), v.begin(), v.end());
    visit_medians.push_back(median(v));
  }
  assert(!pooled.empty());
  summary s = summarise(pooled);
  const std::size_t m = visit_medians.size();
  if (m < 2) return s;
  if (*std::min_element(visit_medians.begin(), visit_medians.end()) <= 0) {
    // A count (shared_epoll's wake-ups) that is 0 in a visit has no log scale to spread
    // over: the interval spans the visits' medians and the pooled interval, a cruder bound.
    s.median = median(visit_medians);
    s.ci95_lo =
        std::clamp(std::min(s.ci95_lo, *std::min_element(visit_medians.begin(), visit_medians.end())), s.min, s.median);
    s.ci95_hi =
        std::clamp(std::max(s.ci95_hi, *std::max_element(visit_medians.begin(), visit_medians.end())), s.median, s.max);
    return s;
  }
  // Between visits: the spread of log(visit median); the point estimate stays the median of
  // the visit medians (one visit in a slow mode does not move it much).
  const double se_log = visit_median_log_se(visit_medians);
  const boost::math::students_t t(static_cast<double>(m - 1));
  const double factor = std::exp(boost::math::quantile(t, 0.975) * se_log);
  s.median = median(visit_medians);
  // The pooled samples' own interval is the floor: visits that happen to agree closely do
  // not make the point more certain than its batches allow.
  s.ci95_lo = std::clamp(std::min(s.median / factor, s.ci95_lo), s.min, s.median);
  s.ci95_hi = std::clamp(std::max(s.median * factor, s.ci95_hi), s.median, s.max);
  return s;
}

double relative_median_halfwidth(const summary& s) {
  if (s.n < 6) return std::numeric_limits<double>::infinity();
  // A count that never happened (shared_epoll's wake-ups of a thread that is never idle) is
  // known exactly: every sample 0, the interval [0, 0].
  if (s.median == 0 && s.ci95_lo == 0 && s.ci95_hi == 0) return 0;
  if (s.median <= 0) return std::numeric_limits<double>::infinity();
  return std::max(s.median - s.ci95_lo, s.ci95_hi - s.median) / s.median;
}

}  // namespace pollscale::datasets
