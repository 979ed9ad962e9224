#include "datasets/statistics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>

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

double relative_median_halfwidth(const summary& s) {
  if (s.median <= 0 || s.n < 6) return std::numeric_limits<double>::infinity();
  return std::max(s.median - s.ci95_lo, s.ci95_hi - s.median) / s.median;
}

}  // namespace pollscale::datasets
