#include "studies/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include <boost/math/distributions/students_t.hpp>

#include "datasets/json_fields.hpp"
#include "datasets/run_facts.hpp"
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

// One thing compared — a point, a series, a mechanism — on the log scale: its ln ratio d,
// the variance of d, and each side's per-run values (ln of each run's median, or the run's
// mean over a group's points), from which the next level pools.
struct item {
  datasets::key k;
  double d = 0;
  double var = 0;
  std::vector<double> a_runs, b_runs;
  /// Per side, the item's deviation in each round of its run from its mean over the rounds
  /// (a point: ln of each visit's median less their mean; a group: its round_levels); empty
  /// where the side has no rounds
  std::vector<double> a_rounds, b_rounds;
};

// A point's deviation in each round: ln of each visit's median less their mean; empty
// with fewer than two visits.
std::vector<double> centred(const std::vector<double>& ln_visits) {
  if (ln_visits.size() < 2) return {};
  const double m = mean_of(ln_visits);
  std::vector<double> out;
  for (double x : ln_visits) out.push_back(x - m);
  return out;
}

// A group's level in each round of one side: the mean over its members of their deviation
// in that round, over the first R rounds every member has (repair visits, which only some
// points get, are left out), each member's deviations re-centred on those R. Empty unless
// every member has two rounds or more.
std::vector<double> round_levels(const std::vector<const item*>& members, bool side_a) {
  std::size_t rounds = std::numeric_limits<std::size_t>::max();
  for (const auto* m : members) rounds = std::min(rounds, (side_a ? m->a_rounds : m->b_rounds).size());
  if (members.empty() || rounds < 2) return {};
  std::vector<double> level(rounds, 0);
  for (const auto* m : members) {
    const auto& dev = side_a ? m->a_rounds : m->b_rounds;
    const double centre = std::accumulate(dev.begin(), dev.begin() + std::ptrdiff_t(rounds), 0.0) / double(rounds);
    for (std::size_t r = 0; r < rounds; ++r) level[r] += (dev[r] - centre) / double(members.size());
  }
  return level;
}

// The variance the group's d takes from how far it moved between the rounds of each run:
// per side with rounds, the variance of its round levels over their number (the run's value
// is about their mean). A host that slowed for a round moves every point visited in it, so
// this does not shrink with the group's size, as Σ se_i²/m² does.
double round_drift_variance(const item& g) {
  double v = 0;
  for (const auto* levels : {&g.a_rounds, &g.b_rounds})
    if (levels->size() >= 2) v += variance_of(*levels) / double(levels->size());
  return v;
}

// The ln ratio of an item as time per operation: a rate's negated.
double as_time_d(const item& it) { return larger_is_better(it.k) ? -it.d : it.d; }

// τ from the items' ln ratios as times per operation: the spread is measured about their
// median, and a machine that slowed moves its times up and its rates down — as they came,
// that shift would read as scatter between points instead of a shift they share.
double between_run_sd_of(const std::vector<item>& items, const std::vector<double>& se_w2) {
  std::vector<double> d;
  for (const auto& it : items) d.push_back(as_time_d(it));
  return between_run_sd(d, se_w2);
}

// The variance between runs of one item, observed where a side holds several runs: the
// pooled sample variance of its per-run values; nullopt where neither side has two runs.
std::optional<double> run_variance(const std::vector<double>& a, const std::vector<double>& b) {
  double ss = 0, df = 0;
  for (const auto* runs : {&a, &b})
    if (runs->size() >= 2) {
      ss += variance_of(*runs) * double(runs->size() - 1);
      df += double(runs->size() - 1);
    }
  if (df == 0) return std::nullopt;
  return ss / df;
}

// The variance of d: the larger of what the level below gives (`floor`) and what repeated
// runs show (the run variance over each side's runs), plus τ² added by the caller.
// A group whose members were measured in different numbers of runs on a side has no run
// values there (run_means): it keeps the floor rather than dividing by zero runs.
double base_variance(double floor, const item& it) {
  if (it.a_runs.empty() || it.b_runs.empty()) return floor;
  const auto v = run_variance(it.a_runs, it.b_runs);
  if (!v) return floor;
  return std::max(floor, *v * (1 / double(it.a_runs.size()) + 1 / double(it.b_runs.size())));
}

// Holm-corrected verdicts for one level, given each item's d and standard error.
template <class Row>
void judge(std::vector<Row>& rows, const std::vector<double>& d, const std::vector<double>& se,
           const compare_options& o) {
  std::vector<double> p;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].z =
        se[i] > 0 ? d[i] / se[i] : (d[i] == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), d[i]));
    rows[i].p = p_normal(rows[i].z);
    p.push_back(rows[i].p);
  }
  const auto adj = holm_adjust(p);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].p_holm = adj[i];
    rows[i].significant = rows[i].p_holm < o.alpha;
    rows[i].regression = rows[i].significant && rows[i].slowdown > o.regression_min;
  }
}

// The mean over members of their per-run values, run by run; empty unless every member
// has the same number of runs on that side.
std::vector<double> run_means(const std::vector<const item*>& members, bool side_a) {
  const auto& first = side_a ? members.front()->a_runs : members.front()->b_runs;
  std::vector<double> out(first.size(), 0);
  for (const auto* m : members) {
    const auto& runs = side_a ? m->a_runs : m->b_runs;
    if (runs.size() != out.size()) return {};
    for (std::size_t r = 0; r < runs.size(); ++r) out[r] += runs[r] / double(members.size());
  }
  return out;
}

// Items pooled into groups by `group_of`: a group's d is the mean of its items', its
// variance the larger of Σ var / m², what its rounds show and what its runs show, plus τ² of the groups
// (between_run_sd) — then z, p, Holm. Returns the groups and their items for the next level.
std::pair<std::vector<group_comparison>, std::vector<item>> pool(const std::vector<item>& items,
                                                                 datasets::key (*group_of)(datasets::key),
                                                                 const compare_options& o, double& tau,
                                                                 double shared_var) {
  std::map<datasets::key, std::vector<const item*>> members;
  for (const auto& it : items) members[group_of(it.k)].push_back(&it);
  std::vector<item> groups;
  std::vector<double> independent, drift;  // Σ var / m², and what the rounds show
  for (const auto& [k, list] : members) {
    item g{k, 0, 0, run_means(list, true), run_means(list, false), round_levels(list, true), round_levels(list, false)};
    double var = 0;
    for (const auto* m : list) g.d += m->d / double(list.size()), var += m->var;
    independent.push_back(var / double(list.size() * list.size()));
    drift.push_back(round_drift_variance(g));
    groups.push_back(std::move(g));
  }
  // The drift adds to the members' own errors: those hold what moved a point between runs
  // (τ) and its visits' spread, averaged over independent points; the rounds, what moved all
  // of them together within a run (their overlap, the visits' spread over m points and R
  // rounds, is small). Three rounds a run give a group's drift two degrees of freedom a side,
  // often far below the truth by chance; the groups of one host drift alike, so the median
  // over them is the floor of every group's, and a group that drifted more keeps its own.
  const double typical_drift = drift.empty() ? 0 : datasets::median(drift);
  std::vector<double> base;
  for (std::size_t i = 0; i < groups.size(); ++i)
    base.push_back(base_variance(independent[i] + std::max(drift[i], typical_drift), groups[i]));
  std::vector<double> d, se;
  for (const auto& g : groups) d.push_back(g.d);
  tau = o.between_run_term ? between_run_sd_of(groups, base) : 0;
  std::vector<group_comparison> out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    groups[i].var = base[i] + tau * tau;
    se.push_back(std::sqrt(groups[i].var + shared_var));
    group_comparison g{groups[i].k, members[groups[i].k].size(), std::exp(d[i]), std::exp(d[i] - z95 * se[i]),
                       std::exp(d[i] + z95 * se[i])};
    g.slowdown = slowdown_of(g.k, g.ratio);
    out.push_back(g);
  }
  judge(out, d, se, o);
  return {out, groups};
}

// A mechanism (with its variant) over every scenario and metric: rates are turned into
// times first (d of a rate negated), so that the pooled ratio is B/A of the time per
// operation and "slower" means the same in every series.
datasets::key mechanism_key(datasets::key k) {
  datasets::key m;
  m.mechanism = k.mechanism;
  m.variant = k.variant;
  return m;
}

item as_time(item it) {
  if (!larger_is_better(it.k)) return it;
  it.d = -it.d;
  for (auto* runs : {&it.a_runs, &it.b_runs, &it.a_rounds, &it.b_rounds})
    for (double& x : *runs) x = -x;
  return it;
}

// shared_var: the variance every item's d shares (the machine reference's under --relative),
// added to each group's own when it is judged, never divided among its members.
void judge_groups(comparison& c, const compare_options& o, const std::vector<item>& points, double shared_var) {
  auto [series, series_items] = pool(points, series_key, o, c.between_series_sd, shared_var);
  c.series = std::move(series);
  std::vector<item> as_times;
  for (const auto& it : series_items) as_times.push_back(as_time(it));
  auto [mechanisms, mechanism_items] = pool(as_times, mechanism_key, o, c.between_mechanism_sd, shared_var);
  c.mechanisms = std::move(mechanisms);
  std::vector<double> drift;
  for (const auto& m : mechanism_items)
    if (!m.a_rounds.empty() || !m.b_rounds.empty()) drift.push_back(std::sqrt(round_drift_variance(m)));
  c.mechanism_round_drift = drift.empty() ? 0 : datasets::median(drift);
  for (const auto& s : c.series) c.series_regressions += s.regression;
  for (const auto& m : c.mechanisms) c.mechanism_regressions += m.regression;
}

/// The whole-machine shift: the median over all points of B/A as time per operation (a rate's
/// ratio inverted), so that a host slower in everything reads > 1 whatever the points' units
/// — taken as they come, a slower host's times (B/A > 1) and rates (B/A < 1) cancel.
void overall_ratio(comparison& c, const std::vector<item>& items) {
  std::vector<double> d;
  for (const auto& it : items) d.push_back(as_time_d(it));
  if (d.empty()) return;
  std::sort(d.begin(), d.end());
  const auto [lo, hi] = datasets::median_ci_ranks(d.size(), 0.95);
  c.median_ratio = std::exp(datasets::median(d));
  c.median_ratio_lo = std::exp(d[lo]);
  c.median_ratio_hi = std::exp(d[hi]);
}

// What the machine did, for --relative: the median over mechanisms of each mechanism's median
// ln ratio as time per operation — one vote a mechanism, so that one that really changed
// does not drag the reference (over all points, a mechanism with a fifth of them would move
// the median by a fifth of its change). Its standard error, 1.2533 s/√m for a median of m
// values of spread s, takes for s the larger of the mechanisms' scatter about it (1.4826 ×
// their median absolute deviation) and the typical standard error of one mechanism's median
// (1.2533 × the sd of its points / √points): with few mechanisms the first alone may come
// out near zero by chance.
struct machine_reference {
  double ln_ratio = 0, se = 0;
};

machine_reference machine_reference_of(const std::vector<item>& items) {
  std::map<datasets::key, std::vector<double>> per_mechanism;
  for (const auto& it : items) per_mechanism[mechanism_key(it.k)].push_back(as_time_d(it));
  std::vector<double> m, m_se;
  for (auto& [k, d] : per_mechanism) {
    m.push_back(datasets::median(d));
    if (d.size() >= 2) m_se.push_back(1.2533 * std::sqrt(variance_of(d) / double(d.size())));
  }
  if (m.empty()) return {};
  const double centre = datasets::median(m);
  std::vector<double> dev;
  for (double x : m) dev.push_back(std::abs(x - centre));
  const double spread = std::max(1.4826 * datasets::median(dev), m_se.empty() ? 0.0 : datasets::median(m_se));
  return {centre, 1.2533 * spread / std::sqrt(double(m.size()))};
}

// Relative to the machine: each item's ln ratio less the machine's shift in its own direction
// (a rate's shift negated), on B's runs too. The shift's own uncertainty is shared by every
// item, so it is added to each verdict's variance at every level (judge_groups), never
// divided among the members of a group.
void remove_machine_shift(std::vector<item>& items, const machine_reference& ref) {
  for (auto& it : items) {
    const double s = larger_is_better(it.k) ? -ref.ln_ratio : ref.ln_ratio;
    it.d -= s;
    for (double& r : it.b_runs) r -= s;
  }
}

// The machine moved between rounds too: per side, its round profile — the median over
// mechanisms of their round levels as time per operation (one vote a mechanism, as for the
// reference), over the rounds every mechanism with rounds has; empty where none has.
std::vector<double> machine_rounds(const std::vector<item>& items, bool side_a) {
  std::map<datasets::key, std::vector<item>> per_mechanism;
  for (const auto& it : items) per_mechanism[mechanism_key(it.k)].push_back(as_time(it));
  std::vector<std::vector<double>> levels;
  std::size_t rounds = std::numeric_limits<std::size_t>::max();
  for (const auto& [k, list] : per_mechanism) {
    std::vector<const item*> members;
    for (const auto& x : list) members.push_back(&x);
    auto l = round_levels(members, side_a);
    if (l.empty()) continue;
    rounds = std::min(rounds, l.size());
    levels.push_back(std::move(l));
  }
  if (levels.empty()) return {};
  std::vector<double> profile;
  for (std::size_t r = 0; r < rounds; ++r) {
    std::vector<double> at;
    for (const auto& l : levels) at.push_back(l[r]);
    profile.push_back(datasets::median(at));
  }
  return profile;
}

// Relative to the machine, a group's rounds are judged by how far they moved beyond the
// machine's own round profile: each point's deviations lose it, in the point's direction.
void remove_machine_rounds(std::vector<item>& items) {
  for (bool side_a : {true, false}) {
    const auto profile = machine_rounds(items, side_a);
    for (auto& it : items) {
      auto& dev = side_a ? it.a_rounds : it.b_rounds;
      const double sign = larger_is_better(it.k) ? -1 : 1;
      for (std::size_t r = 0; r < std::min(dev.size(), profile.size()); ++r) dev[r] -= sign * profile[r];
    }
  }
}

// One side of a measured point: the summary's median and interval, and the standard error
// of ln(median) from the visit medians (a single visit: from the summary's own interval).
side side_of(const datasets::summary_row& r, const std::vector<const datasets::sample_row*>& samples) {
  side s{r.s.median, r.s.ci95_lo, r.s.ci95_hi, 0, 0, {}, {}, {}};
  std::map<std::int64_t, std::vector<double>> by_visit;
  for (const auto* x : samples) {
    s.raw.push_back(x->value);
    by_visit[x->visit].push_back(x->value);
  }
  std::vector<double> ln_medians;
  for (const auto& [v, values] : by_visit)
    if (const double m = datasets::median(values); m > 0) ln_medians.push_back(std::log(m));
  s.visits = std::max<std::size_t>(1, ln_medians.size());
  if (ln_medians.size() == by_visit.size()) s.ln_visits = ln_medians;  // every visit, in visit order
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
  auto runs_of = [](const side& s) { return s.ln_runs.empty() ? std::vector<double>{std::log(s.median)} : s.ln_runs; };
  std::vector<item> items;
  std::vector<double> base;
  for (const auto& [k, sa] : a) {
    const auto it = in_b.find(k);
    if (it == in_b.end() || !(sa.median > 0) || !(it->second->median > 0)) {
      ++c.only_a;
      continue;
    }
    point_comparison pt{k, sa, *it->second};
    in_b.erase(it);
    item x{k, 0, 0, runs_of(pt.a), runs_of(pt.b), centred(pt.a.ln_visits), centred(pt.b.ln_visits)};
    x.d = mean_of(x.b_runs) - mean_of(x.a_runs);
    pt.ratio = std::exp(x.d);
    pt.slowdown = slowdown_of(k, pt.ratio);
    pt.p_welch_raw = welch_p(pt.a.raw, pt.b.raw);
    pt.p_mw_raw = mann_whitney_p(pt.a.raw, pt.b.raw);
    base.push_back(base_variance(sa.ln_se * sa.ln_se + pt.b.ln_se * pt.b.ln_se, x));
    items.push_back(std::move(x));
    c.points.push_back(std::move(pt));
  }
  c.only_b = in_b.size();
  overall_ratio(c, items);
  double shared_var = 0;  // the machine reference's, under --relative
  if (o.relative_to_machine) {
    const auto ref = machine_reference_of(items);
    c.relative_to_machine = true;
    c.reference_ratio = std::exp(ref.ln_ratio);
    shared_var = ref.se * ref.se;
    remove_machine_shift(items, ref);
    remove_machine_rounds(items);
    for (std::size_t i = 0; i < items.size(); ++i) {
      c.points[i].ratio = std::exp(items[i].d);
      c.points[i].slowdown = slowdown_of(items[i].k, c.points[i].ratio);
    }
  }
  std::vector<double> d, se;
  for (const auto& x : items) d.push_back(x.d);
  c.between_run_sd = o.between_run_term ? between_run_sd_of(items, base) : 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].var = base[i] + c.between_run_sd * c.between_run_sd;
    se.push_back(std::sqrt(items[i].var + shared_var));
    c.points[i].ratio_lo = std::exp(d[i] - z95 * se[i]);
    c.points[i].ratio_hi = std::exp(d[i] + z95 * se[i]);
  }
  judge(c.points, d, se, o);
  for (const auto& pt : c.points) c.point_regressions += pt.regression;
  judge_groups(c, o, items, shared_var);
  return c;
}

namespace {

// A count per operation (shared_epoll's wake-ups per pass) is not a cost: near zero its ratio
// says nothing (0.002 against 0.4 reads 200x), so compare leaves counts out.
bool is_count(const datasets::key& k) { return k.unit == "1"; }

datasets::key no_max_fd(datasets::key k) {
  k.max_fd.reset();
  return k;
}

// One side's runs merged point by point: the mean of the runs' ln medians, the visits'
// standard error pooled over runs, every raw sample; a point measured in one run only keeps
// that run's figures.
std::vector<std::pair<datasets::key, side>> merge_runs(const std::vector<const datasets::dataset*>& runs) {
  std::map<datasets::key, std::vector<side>> per_key;
  for (const auto* d : runs) {
    std::map<datasets::key, std::vector<const datasets::sample_row*>> samples;
    for (const auto& s : d->samples) samples[s.k].push_back(&s);
    // max_fd records where the descriptors happened to land, which shifts by a few between
    // builds; points are matched without it unless it tells two points of a run apart
    // (fd_range's grid of descriptor ranges).
    std::map<datasets::key, int> without_max_fd;
    for (const auto& r : d->summaries) ++without_max_fd[no_max_fd(r.k)];
    for (const auto& r : d->summaries)
      if (r.s.median > 0 && !is_count(r.k))
        per_key[without_max_fd[no_max_fd(r.k)] == 1 ? no_max_fd(r.k) : r.k].push_back(side_of(r, samples[r.k]));
  }
  std::vector<std::pair<datasets::key, side>> out;
  for (auto& [k, sides] : per_key) {
    if (sides.size() == 1) {
      out.emplace_back(k, std::move(sides.front()));
      continue;
    }
    side m;
    double se2 = 0;
    for (auto& s : sides) {
      m.ln_runs.push_back(std::log(s.median));
      se2 += s.ln_se * s.ln_se / double(sides.size() * sides.size());
      m.visits += s.visits;
      m.raw.insert(m.raw.end(), s.raw.begin(), s.raw.end());
    }
    const double centre = mean_of(m.ln_runs);
    const double spread = std::sqrt(std::max(se2, variance_of(m.ln_runs) / double(sides.size())));
    m.median = std::exp(centre);
    m.lo = std::exp(centre - z95 * spread);
    m.hi = std::exp(centre + z95 * spread);
    m.ln_se = std::sqrt(se2);
    out.emplace_back(k, std::move(m));
  }
  return out;
}

// The probe revision each run's context records for `scenario`; a context without the
// record (older runs, published rows, a malformed block) reads as 1.
std::set<int> revisions_of(const std::vector<const datasets::dataset*>& runs, const std::string& scenario) {
  std::set<int> out;
  for (const auto* d : runs) {
    const auto& r = datasets::member(datasets::member(datasets::member(d->context, "calibration"), "probe_revisions"),
                                     scenario.c_str());
    out.insert(r.is_number_integer() ? r.get<int>() : 1);
  }
  return out;
}

std::vector<revision_mismatch> revision_mismatches(const std::vector<const datasets::dataset*>& a,
                                                   const std::vector<const datasets::dataset*>& b) {
  std::set<std::string> scenarios;
  for (const auto* runs : {&a, &b})
    for (const auto* d : *runs)
      for (const auto& r : d->summaries) scenarios.insert(r.k.scenario);
  std::vector<revision_mismatch> out;
  for (const auto& s : scenarios) {
    revision_mismatch m{s, revisions_of(a, s), revisions_of(b, s)};
    if (m.a != m.b || m.a.size() > 1) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

comparison compare_runs(const std::vector<const datasets::dataset*>& a, const std::vector<const datasets::dataset*>& b,
                        const compare_options& o) {
  const auto mismatches = revision_mismatches(a, b);
  auto side_a = merge_runs(a), side_b = merge_runs(b);
  const auto mismatched = [&](const std::pair<datasets::key, side>& p) {
    return std::any_of(mismatches.begin(), mismatches.end(),
                       [&](const revision_mismatch& m) { return m.scenario == p.first.scenario; });
  };
  std::erase_if(side_a, mismatched);
  std::erase_if(side_b, mismatched);
  comparison c = compare_sides(std::move(side_a), std::move(side_b), o);
  c.left_out = mismatches;
  return c;
}

comparison compare_datasets(const datasets::dataset& a, const datasets::dataset& b, const compare_options& o) {
  return compare_runs({&a}, {&b}, o);
}

namespace {

// Geometric mean of the runs' sentinel medians; nullopt when any run lacks one (a level
// from some runs only would compare unlike things).
std::optional<double> sentinel_level(const std::vector<const datasets::dataset*>& runs) {
  if (runs.empty()) return std::nullopt;
  double ln_sum = 0;
  for (const auto* d : runs) {
    const auto facts = datasets::read_run_facts(d->context);
    if (!facts.drift || !facts.drift->median_ns || !(*facts.drift->median_ns > 0)) return std::nullopt;
    ln_sum += std::log(*facts.drift->median_ns);
  }
  return std::exp(ln_sum / static_cast<double>(runs.size()));
}

}  // namespace

machine_shift sentinel_shift(const std::vector<const datasets::dataset*>& a,
                             const std::vector<const datasets::dataset*>& b) {
  machine_shift s;
  s.sentinel_a_ns = sentinel_level(a);
  s.sentinel_b_ns = sentinel_level(b);
  if (s.sentinel_a_ns && s.sentinel_b_ns) {
    s.ratio = *s.sentinel_b_ns / *s.sentinel_a_ns;
    s.shifted = *s.ratio >= machine_shift::slow_factor || *s.ratio <= 1 / machine_shift::slow_factor;
  }
  return s;
}

}  // namespace pollscale::studies
