#include "sim/core/output_analysis.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "sim/core/invariant.hpp"
#include "sim/core/stop.hpp"

namespace pollscale::sim {

double interval::relative_half_width() const {
  if (n < 2 || mean == 0) return std::numeric_limits<double>::infinity();
  return half_width / std::fabs(mean);
}

interval t_interval(std::span<const double> values, double level) {
  POLLSCALE_SIM_EXPECT(level > 0 && level < 1, "confidence level outside (0, 1)");
  interval r;
  r.n = values.size();
  if (r.n == 0) {
    r.half_width = std::numeric_limits<double>::infinity();
    r.lo = -r.half_width;
    r.hi = r.half_width;
    return r;
  }
  const double n = static_cast<double>(r.n);
  r.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (r.n < 2) {
    r.half_width = std::numeric_limits<double>::infinity();
  } else {
    double ss = 0;
    for (double v : values) ss += (v - r.mean) * (v - r.mean);
    const double stderr_mean = std::sqrt(ss / (n - 1) / n);
    const boost::math::students_t t(n - 1);
    r.half_width = boost::math::quantile(t, 0.5 + level / 2) * stderr_mean;
  }
  r.lo = r.mean - r.half_width;
  r.hi = r.mean + r.half_width;
  return r;
}

interval prediction_interval(std::span<const double> values, double level) {
  interval r = t_interval(values, level);
  if (r.n >= 2) {
    r.half_width *= std::sqrt(static_cast<double>(r.n) + 1);  // t·s/√n  ->  t·s·√(1 + 1/n)
    r.lo = r.mean - r.half_width;
    r.hi = r.mean + r.half_width;
  }
  return r;
}

namespace {

// One stratum of a mixture: its weight, mean and scale (s·√(1 + 1/n_g)).
struct stratum {
  double weight = 0, mean = 0, scale = 0;
};

// The value below which a share `p` of the mixture lies (bisection on its CDF).
double mixture_quantile(const std::vector<stratum>& parts, double df, double p) {
  const boost::math::students_t t(df);
  const auto cdf = [&](double x) {
    double c = 0;
    for (const auto& s : parts) c += s.weight * boost::math::cdf(t, (x - s.mean) / s.scale);
    return c;
  };
  double lo = parts.front().mean, hi = lo, reach = 0;
  for (const auto& s : parts) {
    lo = std::min(lo, s.mean);
    hi = std::max(hi, s.mean);
    reach = std::max(reach, s.scale);
  }
  const double q = boost::math::quantile(t, 0.5 + std::fabs(p - 0.5)) * reach;  // past every stratum's own quantile
  lo -= q + reach;
  hi += q + reach;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * std::max(1.0, std::fabs(hi)); ++i) {
    const double mid = (lo + hi) / 2;
    (cdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

interval stratified_prediction_interval(std::span<const double> values, std::span<const int> strata, double level) {
  POLLSCALE_SIM_EXPECT(strata.size() == values.size(), "one stratum per value");
  std::map<int, std::vector<double>> groups;
  std::vector<int> order;  // strata in order of first appearance
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!groups.contains(strata[i])) order.push_back(strata[i]);
    groups[strata[i]].push_back(values[i]);
  }
  const double n = static_cast<double>(values.size()), g = static_cast<double>(groups.size());
  if (groups.size() < 2 || n - g < 1) return prediction_interval(values, level);
  double ss = 0;
  std::vector<stratum> parts;
  for (const auto& [id, v] : groups) {
    const double m = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    for (double x : v) ss += (x - m) * (x - m);
    parts.push_back({static_cast<double>(v.size()) / n, m, 1 + 1 / static_cast<double>(v.size())});
  }
  // A pooled spread of 0 (each state's values all equal) still has its strata apart: keep a
  // sliver of width so the quantiles land on them.
  const double spread = std::max(std::sqrt(ss / (n - g)), 1e-12 * std::max(1.0, std::fabs(parts.front().mean)));
  for (auto& s : parts) s.scale = spread * std::sqrt(s.scale);
  interval r;
  r.n = values.size();
  const auto usual =
      std::max_element(order.begin(), order.end(), [&](int a, int b) { return groups[a].size() < groups[b].size(); });
  r.mean =
      std::accumulate(groups[*usual].begin(), groups[*usual].end(), 0.0) / static_cast<double>(groups[*usual].size());
  r.lo = mixture_quantile(parts, n - g, (1 - level) / 2);
  r.hi = mixture_quantile(parts, n - g, (1 + level) / 2);
  r.half_width = (r.hi - r.lo) / 2;
  return r;
}

std::vector<double> batch_means_of(std::span<const double> series, std::size_t batches) {
  POLLSCALE_SIM_EXPECT(batches >= 2 && series.size() >= batches, "too few observations for batch means");
  const std::size_t size = series.size() / batches;
  const std::size_t skip = series.size() - size * batches;
  std::vector<double> means(batches);
  for (std::size_t b = 0; b < batches; ++b) {
    const auto first = series.begin() + static_cast<std::ptrdiff_t>(skip + b * size);
    means[b] = std::accumulate(first, first + static_cast<std::ptrdiff_t>(size), 0.0) / static_cast<double>(size);
  }
  return means;
}

interval batch_means(std::span<const double> series, std::size_t batches, double level) {
  return t_interval(batch_means_of(series, batches), level);
}

double lag1_autocorrelation(std::span<const double> values) {
  const std::size_t n = values.size();
  if (n < 3) return 0;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    den += (values[i] - mean) * (values[i] - mean);
    if (i + 1 < n) num += (values[i] - mean) * (values[i + 1] - mean);
  }
  return den > 0 ? num / den : 0;
}

std::size_t mser5_truncation(std::span<const double> series) {
  const std::size_t m = series.size() / 5;
  if (m < 2) return 0;
  std::vector<double> y(m);
  for (std::size_t i = 0; i < m; ++i)
    y[i] = (series[5 * i] + series[5 * i + 1] + series[5 * i + 2] + series[5 * i + 3] + series[5 * i + 4]) / 5;
  // Suffix sums give every candidate's mean and sum of squares in O(m).
  std::vector<double> sum(m + 1, 0.0), sum2(m + 1, 0.0);
  for (std::size_t i = m; i-- > 0;) {
    sum[i] = sum[i + 1] + y[i];
    sum2[i] = sum2[i + 1] + y[i] * y[i];
  }
  std::size_t best = 0;
  double best_score = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d <= m / 2; ++d) {
    const double k = static_cast<double>(m - d);
    const double ss = std::max(0.0, sum2[d] - sum[d] * sum[d] / k);
    const double score = ss / (k * k);
    if (score < best_score) {
      best_score = score;
      best = d;
    }
  }
  return 5 * best;
}

replication_run replicate(const stopping_rule& rule, const std::function<double(std::size_t)>& one) {
  if (rule.min_replications < 2) throw std::invalid_argument("min_replications must be >= 2");
  if (rule.max_replications < rule.min_replications)
    throw std::invalid_argument("max_replications must be >= min_replications");
  if (!(rule.relative_half_width > 0) || !std::isfinite(rule.relative_half_width))
    throw std::invalid_argument("relative half-width target must be finite and > 0");
  replication_run run;
  while (run.values.size() < rule.max_replications) {
    try {
      run.values.push_back(one(run.values.size()));
    } catch (const stopped&) {
      if (run.values.empty()) throw;
      run.stopped = true;
      if (run.values.size() >= 2) run.estimate = t_interval(run.values, rule.level);
      break;
    }
    if (run.values.size() < rule.min_replications) continue;
    run.estimate = t_interval(run.values, rule.level);
    if (run.estimate.relative_half_width() <= rule.relative_half_width ||
        (rule.spread_replications > 0 && run.values.size() >= rule.spread_replications)) {
      run.converged = true;
      break;
    }
  }
  return run;
}

}  // namespace pollscale::sim
