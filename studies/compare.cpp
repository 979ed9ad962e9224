#include "studies/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

#include "datasets/statistics.hpp"

namespace pollscale::studies {
namespace {

constexpr double z95 = 1.959963984540054;  // two-sided 95% normal quantile
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double p_normal(double z) { return std::erfc(std::abs(z) / std::sqrt(2.0)); }

double mean_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }

double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / double(v.size() - 1);
}

// A rate (unit 1/s, 1/ms) is better when larger; everything else is a time or a size.
bool larger_is_better(const datasets::key& k) { return k.unit.starts_with("1/"); }

// How much more time per operation B takes than A, from the ratio B/A of the key's metric.
double slowdown_of(const datasets::key& k, double ratio) { return (larger_is_better(k) ? 1 / ratio : ratio) - 1; }

datasets::key series_key(datasets::key k) {
  k.n_fds.reset();
  k.n_active.reset();
  k.max_fd.reset();
  k.active_pos.clear();
  return k;
}

// The between-run scatter τ of the log ratios that their within-run errors do not explain:
// the τ at which the standardised deviations (d_i - median d) / sqrt(se_w,i² + τ²) have the
// median absolute value of a standard normal (0.6745), found by bisection; 0 when the
// within-run errors already explain the scatter. A robust form of the Paule–Mandel
// random-effects estimate: a point whose visits agree closely but which moved between runs
// counts, and a minority of points that really changed does not inflate it.
double between_run_sd(const std::vector<double>& d, const std::vector<double>& se_w2) {
  if (d.size() < 8) return 0;  // too few points to tell scatter from change
  const double centre = datasets::median(d);
  auto spread = [&](double tau) {
    std::vector<double> z;
    for (std::size_t i = 0; i < d.size(); ++i) {
      const double se = std::sqrt(se_w2[i] + tau * tau);
      z.push_back(se > 0 ? std::abs(d[i] - centre) / se : (d[i] == centre ? 0 : 1e300));
    }
    return datasets::median(z);
  };
  constexpr double normal_median_abs = 0.6744897501960817;  // Φ⁻¹(3/4)
  if (spread(0) <= normal_median_abs) return 0;
  double lo = 0, hi = 1;
  while (spread(hi) > normal_median_abs && hi < 64) hi *= 2;
  for (int i = 0; i < 60; ++i) (spread((lo + hi) / 2) > normal_median_abs ? lo : hi) = (lo + hi) / 2;
  return hi;
}

void judge_points(comparison& c, const compare_options& o, const std::vector<double>& se) {
  std::vector<double> p;
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    auto& pt = c.points[i];
    const double d = std::log(pt.ratio);
    pt.z = se[i] > 0 ? d / se[i] : (d == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), d));
    pt.p = p_normal(pt.z);
    pt.ratio_lo = std::exp(d - z95 * se[i]);
    pt.ratio_hi = std::exp(d + z95 * se[i]);
    p.push_back(pt.p);
  }
  const auto adj = holm_adjust(p);
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    auto& pt = c.points[i];
    pt.p_holm = adj[i];
    pt.significant = pt.p_holm < o.alpha;
    pt.regression = pt.significant && pt.slowdown > o.regression_min;
    c.point_regressions += pt.regression;
  }
}

void judge_series(comparison& c, const compare_options& o, const std::vector<double>& se) {
  std::map<datasets::key, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < c.points.size(); ++i) members[series_key(c.points[i].k)].push_back(i);
  std::vector<double> mean_d, se2;
  for (const auto& [k, idx] : members) {
    double sum_d = 0, sum_var = 0;
    for (auto i : idx) sum_d += std::log(c.points[i].ratio), sum_var += se[i] * se[i];
    const double m = double(idx.size());
    mean_d.push_back(sum_d / m);
    se2.push_back(sum_var / (m * m));
  }
  // A series also moves as a whole between runs (its points share a probe's set-up habits
  // and the regime the host was in): the same estimate one level up.
  c.between_series_sd = o.between_run_term ? between_run_sd(mean_d, se2) : 0;
  std::vector<double> p;
  std::size_t i = 0;
  for (const auto& [k, idx] : members) {
    const double d = mean_d[i], s = std::sqrt(se2[i] + c.between_series_sd * c.between_series_sd);
    series_comparison sc;
    sc.k = k;
    sc.points = idx.size();
    sc.ratio = std::exp(d);
    sc.ratio_lo = std::exp(d - z95 * s);
    sc.ratio_hi = std::exp(d + z95 * s);
    sc.slowdown = slowdown_of(k, sc.ratio);
    sc.z = s > 0 ? d / s : 0;
    sc.p = p_normal(sc.z);
    p.push_back(sc.p);
    c.series.push_back(sc);
    ++i;
  }
  const auto adj = holm_adjust(p);
  for (std::size_t j = 0; j < c.series.size(); ++j) {
    auto& s = c.series[j];
    s.p_holm = adj[j];
    s.significant = s.p_holm < o.alpha;
    s.regression = s.significant && s.slowdown > o.regression_min;
    c.series_regressions += s.regression;
  }
}

void overall_ratio(comparison& c) {
  std::vector<double> d;
  for (const auto& pt : c.points) d.push_back(std::log(pt.ratio));
  if (d.empty()) return;
  std::sort(d.begin(), d.end());
  const auto [lo, hi] = datasets::median_ci_ranks(d.size(), 0.95);
  c.median_ratio = std::exp(datasets::median(d));
  c.median_ratio_lo = std::exp(d[lo]);
  c.median_ratio_hi = std::exp(d[hi]);
}

// One side of a measured point: the summary's median and interval, and the standard error
// of ln(median) from the visit medians (a single visit: from the summary's own interval).
side side_of(const datasets::summary_row& r, const std::vector<const datasets::sample_row*>& samples) {
  side s{r.s.median, r.s.ci95_lo, r.s.ci95_hi, 0, 0, {}};
  std::map<std::int64_t, std::vector<double>> by_visit;
  for (const auto* x : samples) {
    s.raw.push_back(x->value);
    by_visit[x->visit].push_back(x->value);
  }
  std::vector<double> ln_medians;
  for (const auto& [v, values] : by_visit)
    if (const double m = datasets::median(values); m > 0) ln_medians.push_back(std::log(m));
  s.visits = std::max<std::size_t>(1, ln_medians.size());
  if (ln_medians.size() >= 2)
    s.ln_se = std::sqrt(variance_of(ln_medians) / double(ln_medians.size()));
  else if (r.s.ci95_lo > 0 && r.s.ci95_hi > 0)
    s.ln_se = (std::log(r.s.ci95_hi) - std::log(r.s.ci95_lo)) / (2 * z95);
  return s;
}

}  // namespace

double welch_p(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || y.size() < 2) return nan;
  const double vx = variance_of(x) / double(x.size()), vy = variance_of(y) / double(y.size());
  if (vx + vy <= 0) return nan;
  const double t = (mean_of(x) - mean_of(y)) / std::sqrt(vx + vy);
  const double df =
      (vx + vy) * (vx + vy) / (vx * vx / double(x.size() - 1) + vy * vy / double(y.size() - 1));  // Welch–Satterthwaite
  const boost::math::students_t dist(df);
  return 2 * boost::math::cdf(boost::math::complement(dist, std::abs(t)));
}

double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) return nan;
  std::vector<std::pair<double, bool>> all;  // value, from x
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](auto& l, auto& r) { return l.first < r.first; });
  const double n1 = double(x.size()), n2 = double(y.size()), n = n1 + n2;
  double rank_x = 0, ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = double(j - i), rank = (double(i + 1) + double(j)) / 2;  // average rank of the tie
    for (std::size_t m = i; m < j; ++m)
      if (all[m].second) rank_x += rank;
    ties += t * t * t - t;
    i = j;
  }
  const double u = rank_x - n1 * (n1 + 1) / 2;
  const double var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (var <= 0) return nan;
  const double z = std::max(0.0, std::abs(u - n1 * n2 / 2) - 0.5) / std::sqrt(var);
  return p_normal(z);
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](auto l, auto r) { return p[l] < p[r]; });
  std::vector<double> adj(p.size(), nan);
  double running = 0;
  for (std::size_t r = 0; r < order.size(); ++r) {
    running = std::max(running, std::min(1.0, double(order.size() - r) * p[order[r]]));
    adj[order[r]] = running;
  }
  return adj;
}

comparison compare_sides(const std::vector<std::pair<datasets::key, side>>& a,
                         const std::vector<std::pair<datasets::key, side>>& b, const compare_options& o) {
  comparison c;
  std::map<datasets::key, const side*> in_b;
  for (const auto& [k, s] : b) in_b[k] = &s;
  std::vector<double> d, se_w2;
  for (const auto& [k, sa] : a) {
    const auto it = in_b.find(k);
    if (it == in_b.end() || !(sa.median > 0) || !(it->second->median > 0)) {
      ++c.only_a;
      continue;
    }
    point_comparison pt{k, sa, *it->second};
    in_b.erase(it);
    pt.ratio = pt.b.median / pt.a.median;
    pt.slowdown = slowdown_of(k, pt.ratio);
    pt.p_welch_raw = welch_p(pt.a.raw, pt.b.raw);
    pt.p_mw_raw = mann_whitney_p(pt.a.raw, pt.b.raw);
    d.push_back(std::log(pt.ratio));
    se_w2.push_back(sa.ln_se * sa.ln_se + pt.b.ln_se * pt.b.ln_se);
    c.points.push_back(std::move(pt));
  }
  c.only_b = in_b.size();
  c.between_run_sd = o.between_run_term ? between_run_sd(d, se_w2) : 0;
  std::vector<double> se;
  for (double w2 : se_w2) se.push_back(std::sqrt(w2 + c.between_run_sd * c.between_run_sd));
  judge_points(c, o, se);
  judge_series(c, o, se);
  overall_ratio(c);
  return c;
}

comparison compare_datasets(const datasets::dataset& a, const datasets::dataset& b, const compare_options& o) {
  auto sides = [](const datasets::dataset& d) {
    std::map<datasets::key, std::vector<const datasets::sample_row*>> samples;
    for (const auto& s : d.samples) samples[s.k].push_back(&s);
    std::vector<std::pair<datasets::key, side>> out;
    for (const auto& r : d.summaries) out.emplace_back(r.k, side_of(r, samples[r.k]));
    return out;
  };
  return compare_sides(sides(a), sides(b), o);
}

}  // namespace pollscale::studies
