#include "model/cell_fit.hpp"
#include "model/model_set.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "datasets/csv_table.hpp"
#include "datasets/interruption.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"
#include "model/bootstrap.hpp"
#include "model/cell_points.hpp"
#include "model/nonlinear_fit.hpp"

namespace pollscale::model {
namespace {

cell_points points_of(const std::vector<const observation*>& rows, bool reciprocal) {
  cell_points p;
  p.reciprocal = reciprocal;
  p.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& o = *rows[i];
    if (!(o.value > 0))
      throw datasets::input_error(o.where + ": value " + std::to_string(o.value) +
                                  " cannot be modelled (costs and rates must be positive)");
    p.x.push_back(point_of(o.k));
    p.value.push_back(o.value);
    p.y(static_cast<Eigen::Index>(i)) = reciprocal ? 1 / o.value : o.value;
    p.rows.push_back(&o);
  }
  return p;
}

bool varies(const std::vector<point>& x, double point::*field) {
  return std::any_of(x.begin(), x.end(), [&](const point& q) { return q.*field != x.front().*field; });
}

// The curve a cell's working-set terms follow (fit_environment): a token ring's cells,
// their scans included, keep the listed knees; a scan that cannot stream, and epoll_ctl(MOD)
// cycling through the watched set (a chain of dependent misses per call, as the probe's
// chase), take the probe's own curve when the probe's grid shows it; every other scan the
// knees at the cliffs.
const std::optional<latency_curve>& curve_for(const datasets::key& k, const fit_environment& env) {
  if (k.scenario == datasets::scenario::token_ring) return env.ring_curve;
  const bool chase = cycles_watched_set(k) || !scan_streams(k.fd_kind, k.blocking == 1);
  if (chase && env.non_streaming_curve) return env.non_streaming_curve;
  return env.curve;
}

form_request request_for(const cell_id& id, const cell_points& p, const fit_environment& env, family fam) {
  form_request r;
  r.cell = id;
  r.fam = fam;
  r.n_varies = varies(p.x, &point::n);
  r.k_varies = varies(p.x, &point::k);
  r.words_vary = varies(p.x, &point::words);
  r.p_varies = varies(p.x, &point::p);
  r.curve = curve_for(id.k, env);
  if (const auto it = env.cold_exposures.find(id.k.fd_kind); it != env.cold_exposures.end()) r.cold = it->second;
  if (id.k.mechanism == datasets::mechanism::rtsig && r.k_varies) {
    std::vector<double> ks;
    for (const auto& q : p.x) ks.push_back(q.k);
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    const auto limit = env.signal_queue_limit;
    if (limit && *limit >= ks.front() && *limit < ks.back())
      r.overflow_thresholds = {*limit};
    else
      for (std::size_t i = 0; i + 1 < ks.size(); ++i) r.overflow_thresholds.push_back((ks[i] + ks[i + 1]) / 2);
  }
  return r;
}

// A robust fit of `f` on `pts` (rows flagged in `keep`, all when empty).
std::optional<linear_solution> fit_on(const form& f, const cell_points& pts, const std::vector<bool>& keep,
                                      const robust_options& ro) {
  const linear_problem prob = problem_for(f, pts, keep);
  if (!identifiable(prob.x, prob.priors)) return std::nullopt;
  return solve_robust(prob, ro);
}

// Cross-validation refit on the rows flagged in `keep`: the full fit's final weights held
// fixed, one solve (the usual shortcut for IRLS; refitting the weights per fold would cost
// ten times as much).
std::optional<linear_solution> refit_on(const form& f, const cell_points& pts, const std::vector<bool>& keep,
                                        const linear_solution& full) {
  linear_problem prob = problem_for(f, pts, keep);
  if (!identifiable(prob.x, prob.priors)) return std::nullopt;
  prob.w.resize(prob.y.size());
  for (std::size_t i = 0, r = 0; i < pts.x.size(); ++i)
    if (keep[i]) prob.w(static_cast<Eigen::Index>(r++)) = full.weights(static_cast<Eigen::Index>(i));
  prob.sigma_known = true;
  if (std::isfinite(full.sigma2) && full.sigma2 > 0) prob.sigma_guess = std::sqrt(full.sigma2);
  return solve_linear(prob);
}

// The held-out groups of cross-validation: one point each (leave-one-out) up to
// o.loo_max_points, else o.cv_folds folds, fold j holding the points of rank j, j + K, ...
// in ascending n, so that every fold spans the measured range. Deterministic.
std::vector<std::vector<std::size_t>> folds_of(const cell_points& pts, const fit_options& o) {
  const std::size_t m = pts.x.size();
  std::vector<std::vector<std::size_t>> folds;
  if (m <= o.loo_max_points || o.cv_folds < 2) {
    for (std::size_t i = 0; i < m; ++i) folds.push_back({i});
    return folds;
  }
  std::vector<std::size_t> by_n(m);
  for (std::size_t i = 0; i < m; ++i) by_n[i] = i;
  std::stable_sort(by_n.begin(), by_n.end(), [&](std::size_t a, std::size_t b) { return pts.x[a].n < pts.x[b].n; });
  folds.resize(std::min(o.cv_folds, m));
  for (std::size_t r = 0; r < m; ++r) folds[r % folds.size()].push_back(by_n[r]);
  return folds;
}

double relative_error(double response, double value, bool reciprocal) {
  if (!(response > 0)) return reciprocal ? 1e6 : -1;  // a failed prediction, scored as such
  return ((reciprocal ? 1 / response : response) - value) / value;
}

struct scored {
  form f;
  std::optional<linear_solution> fit;
  std::vector<double> loo;  ///< signed relative errors; empty when not scorable
  double loo_mape = not_available;
  std::string note;
  bool eligible = true;  ///< false: a curvature term that has not earned its place
};

std::size_t data_parameters(const form& f) { return f.terms.size() - f.priors.size(); }

scored score(const form& f, const cell_points& pts, const fit_options& o) {
  scored s{f, fit_on(f, pts, {}, o.robust), {}, not_available, ""};
  if (!s.fit) {
    s.note = "not identifiable: its terms are collinear on these points";
    return s;
  }
  const std::size_t m = pts.value.size();
  if (m <= data_parameters(f)) {
    s.note = "as many coefficients as points: no leave-one-out score";
    return s;
  }
  s.loo.assign(m, 0);
  for (const auto& fold : folds_of(pts, o)) {
    datasets::interruption_point();  // a fraction of a second apart even at 10^5 points
    std::vector<bool> keep(m, true);
    for (std::size_t i : fold) keep[i] = false;
    const auto sub = refit_on(f, pts, keep, *s.fit);
    if (!sub) {
      s.loo.clear();
      s.note = "not identifiable without one of its points: no leave-one-out score";
      return s;
    }
    for (std::size_t i : fold)
      s.loo[i] = relative_error(problem_row(f, pts.x[i]).dot(sub->beta), pts.value[i], pts.reciprocal);
  }
  double sum = 0;
  for (double e : s.loo) sum += std::abs(e);
  s.loo_mape = sum / static_cast<double>(m);
  return s;
}

// A term that bends the curve away from the kernel's straight scan: n^i·log2(n)^j other
// than n itself.
bool curved(const form& f) {
  return std::any_of(f.terms.begin(), f.terms.end(),
                     [](const basis& b) { return b.kind == basis_kind::power_log && !(b.i == 1 && b.j == 0); });
}

std::size_t distinct_n(const cell_points& pts) {
  std::vector<double> ns;
  for (const auto& q : pts.x) ns.push_back(q.n);
  std::sort(ns.begin(), ns.end());
  return static_cast<std::size_t>(std::unique(ns.begin(), ns.end()) - ns.begin());
}

// Curved forms compete only with enough distinct n, and only when they beat the best
// straight form's LOO MAPE by the margin (fit_options::curvature_margin).
void admit_curvature(std::vector<scored>& c, const cell_points& pts, const fit_options& o) {
  double straight = std::numeric_limits<double>::infinity();
  for (const auto& s : c)
    if (!curved(s.f) && std::isfinite(s.loo_mape)) straight = std::min(straight, s.loo_mape);
  const std::size_t ns = distinct_n(pts);
  for (auto& s : c) {
    if (!curved(s.f) || !s.fit) continue;
    if (ns < o.curvature_min_distinct_n) {
      s.eligible = false;
      s.note = "curvature needs points at " + std::to_string(o.curvature_min_distinct_n) + " or more distinct n (" +
               std::to_string(ns) + " here)";
    } else if (std::isfinite(straight) && !(s.loo_mape <= straight * (1 - o.curvature_margin))) {
      s.eligible = false;
      s.note = "curvature not kept: its LOO MAPE is not " + std::to_string(std::lround(100 * o.curvature_margin)) +
               "% below the best straight form's";
    }
  }
}

// The simplest form within the parsimony margin of the best LOO score; without any
// score, the simplest identifiable form (core terms only: the kernel says they exist).
// Forms admit_curvature() turned away are not chosen.
std::size_t choose(const std::vector<scored>& c, const fit_options& o, std::string& why) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& s : c)
    if (s.eligible && std::isfinite(s.loo_mape)) best = std::min(best, s.loo_mape);
  std::size_t pick = c.size();
  if (std::isfinite(best)) {
    const double margin = best * (1 + o.parsimony_relative) + o.parsimony_absolute;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!c[i].eligible || !(c[i].loo_mape <= margin)) continue;
      if (pick == c.size() || c[i].f.terms.size() < c[pick].f.terms.size() ||
          (c[i].f.terms.size() == c[pick].f.terms.size() && c[i].loo_mape < c[pick].loo_mape))
        pick = i;
    }
    why = "leave-one-out + parsimony (simplest form within 10% + 0.2 points of the best LOO MAPE)";
    return pick;
  }
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i].fit && c[i].eligible) {
      why = "simplest identifiable form (too few points to cross-validate)";
      return i;
    }
  return c.size();
}

// The working set of a form: its per-fd term's footprint, which a blocking call's wait
// entries (entry_set) share.
void set_footprint(form& f, double bytes) {
  for (auto& t : f.terms)
    if (t.kind == basis_kind::working_set || t.kind == basis_kind::entry_set) t.bytes_per_fd = bytes;
}

// Levenberg-Marquardt on log(bytes per fd) when the data reach past a cache knee: the
// knee's position then tells the footprint better than the prior does.
void refine_footprint(scored& s, const cell_points& pts, const fit_options& o, std::string& method) {
  if (!s.f.working_set || !s.fit) return;
  basis& ws = s.f.terms[*s.f.working_set];
  // Only several distinct n past the knee say where it is; one far point (often the
  // noisiest: a machine shared by others evicts exactly those working sets) would just
  // drag the knee to wherever that point's excess fits best.
  const auto knee = std::find_if(ws.latency.begin(), ws.latency.end(), [](const auto& k) { return k.second > 0; });
  if (knee == ws.latency.end()) return;
  std::vector<double> beyond;
  for (const auto& q : pts.x)
    if (q.n * ws.bytes_per_fd > 1.5 * knee->first) beyond.push_back(q.n);
  std::sort(beyond.begin(), beyond.end());
  beyond.erase(std::unique(beyond.begin(), beyond.end()), beyond.end());
  if (beyond.size() < 3 || pts.value.size() < data_parameters(s.f) + 3) return;
  const double prior_bytes = ws.bytes_per_fd;
  form trial = s.f;
  double memo_theta = not_available;
  Eigen::VectorXd memo_fit;
  nonlinear_problem nl;
  nl.y = pts.y;
  nl.w = pts.y.cwiseInverse().cwiseAbs2();
  nl.start = Eigen::VectorXd::Constant(1, std::log(prior_bytes));
  nl.max_evaluations = 200;
  nl.f = [&](const Eigen::VectorXd& theta, std::size_t i) {
    if (theta(0) != memo_theta) {
      memo_theta = theta(0);
      set_footprint(trial, std::exp(theta(0)));
      const auto fit = fit_on(trial, pts, {}, {.relative = true, .huber = false, .max_iterations = 8});
      memo_fit = fit ? fit->fitted : Eigen::VectorXd::Constant(pts.y.size(), not_available);
    }
    return memo_fit(static_cast<Eigen::Index>(i));
  };
  const auto sol = solve_levenberg_marquardt(nl);
  const double bytes = std::exp(sol.theta(0));
  if (!sol.converged || bytes < prior_bytes / 4 || bytes > prior_bytes * 4) return;
  set_footprint(s.f, bytes);
  s.fit = fit_on(s.f, pts, {}, o.robust);
  method += "; bytes per fd fitted by Levenberg-Marquardt: " + std::to_string(static_cast<int>(std::lround(bytes))) +
            " B (prior " + std::to_string(static_cast<int>(prior_bytes)) + " B)";
}

// The data barely narrowed a prior: the term's standard error is over half the prior's.
const prior_term* prior_of(const scored& s, std::size_t j) {
  for (const auto& pt : s.f.priors)
    if (pt.index == j) return &pt;
  return nullptr;
}

bool prior_dominated(const scored& s, std::size_t j) {
  const prior_term* pt = prior_of(s, j);
  if (!pt) return false;
  const auto i = static_cast<Eigen::Index>(j);
  return std::sqrt(std::max(0.0, s.fit->covariance(i, i))) > 0.5 * pt->prior.loads_sd;
}

std::vector<term> make_terms(const scored& s, const std::string& unit, double t) {
  std::vector<term> out;
  for (std::size_t j = 0; j < s.f.terms.size(); ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    term tm{s.f.terms[j], basis_name(s.f.terms[j]), basis_meaning(s.f.terms[j]), coefficient_unit(s.f.terms[j], unit),
            s.fit->beta(jj)};
    tm.at_bound = s.fit->at_bound[j];
    const double se = std::sqrt(std::max(0.0, s.fit->covariance(jj, jj)));
    if (std::isfinite(t) && !tm.at_bound) {  // every coefficient is a cost: none below 0
      tm.ci95_lo = std::max(0.0, tm.coefficient - t * se);
      tm.ci95_hi = tm.coefficient + t * se;
    }
    if (const prior_term* pt = prior_of(s, j)) {
      tm.from_prior = prior_dominated(s, j);
      if (tm.from_prior) {  // a Gaussian prior: its interval needs no Student t
        tm.ci95_lo = std::max(0.0, tm.coefficient - 1.96 * se);
        tm.ci95_hi = tm.coefficient + 1.96 * se;
      }
      char prior[96];
      std::snprintf(prior, sizeof prior, "; prior %.3g ± %.3g loads: ", pt->prior.loads_mean, pt->prior.loads_sd);
      tm.meaning += prior + pt->prior.why;
    }
    out.push_back(std::move(tm));
  }
  return out;
}

domain domain_of(const cell_points& p) {
  domain d{p.x[0].n, p.x[0].n, p.x[0].k, p.x[0].k, p.x[0].words, p.x[0].words};
  for (const auto& q : p.x) {
    d.n_min = std::min(d.n_min, q.n), d.n_max = std::max(d.n_max, q.n);
    d.k_min = std::min(d.k_min, q.k), d.k_max = std::max(d.k_max, q.k);
    d.words_min = std::min(d.words_min, q.words), d.words_max = std::max(d.words_max, q.words);
  }
  return d;
}

void fill_statistics(cell_model& m, const scored& s, const cell_points& p, std::string method, const fit_options& o) {
  auto& st = m.stats;
  st.n_points = p.value.size();
  st.df = static_cast<std::size_t>(std::max(0.0, std::round(s.fit->df)));
  double sum = 0;
  for (std::size_t i = 0; i < p.value.size(); ++i)
    sum += std::abs(relative_error(s.fit->fitted(static_cast<Eigen::Index>(i)), p.value[i], p.reciprocal));
  st.mape_in_sample = sum / static_cast<double>(p.value.size());
  st.mape_loo = s.loo_mape;
  st.residual_spread = std::isfinite(s.fit->sigma2) ? std::sqrt(s.fit->sigma2) : not_available;
  double loo_ms = 0;
  for (double e : s.loo) loo_ms += e * e;
  const double loo_rms = s.loo.empty() ? not_available : std::sqrt(loo_ms / static_cast<double>(s.loo.size()));
  st.sigma_rel = std::isfinite(loo_rms) ? std::max(loo_rms, st.residual_spread) : st.residual_spread;
  if (std::isfinite(st.sigma_rel)) st.sigma_rel = std::max(st.sigma_rel, o.min_sigma_rel);
  st.method = std::move(method);
  m.t95 = t975(s.fit->df);
  // The data part of the coefficients' covariance is rescaled to the spread intervals
  // are built from; a term the prior alone sets keeps the prior's variance.
  m.covariance = s.fit->covariance;
  if (std::isfinite(st.sigma_rel) && st.residual_spread > 0) {
    Eigen::VectorXd d = Eigen::VectorXd::Constant(m.covariance.rows(), st.sigma_rel / st.residual_spread);
    for (const auto& pt : s.f.priors)
      if (prior_dominated(s, pt.index)) d(static_cast<Eigen::Index>(pt.index)) = 1;
    m.covariance = d.asDiagonal() * m.covariance * d.asDiagonal();
  }
}

// A cell measured at a single point (the quick profile's handler, one n per fd kind) has no
// residuals: its form passes through the point. What a new measurement there would read is
// still known — from the point's own visits, each a fresh set-up at another moment
// (docs/calibrate.md). Their log spread s over R visits gives the median's relative standard
// error se = √(π/2)·s/√R (as datasets::summarise_visits has it); a new median from as many
// visits differs from this one by √2·se, so the coefficient carries se and a new point
// scatters by se around it, with t on R − 1 degrees of freedom. Without visits (a historical
// row, one visit) the cell stays without an interval.
void interval_from_visits(cell_model& m, const cell_points& p, std::string& method) {
  if (p.value.size() != 1 || m.covariance.rows() != 1 || m.stats.df != 0) return;
  const auto& visits = p.rows.front()->visit_medians;
  const double se = datasets::visit_median_log_se(visits);
  if (!(se > 0) || !std::isfinite(se)) return;
  const double r = static_cast<double>(visits.size());
  m.stats.df = visits.size() - 1;
  m.t95 = t975(r - 1);
  m.stats.sigma_rel = se;
  const double coef = p.y(0);  // the response: the value, or its reciprocal for a rate
  m.covariance(0, 0) = (se * coef) * (se * coef);
  method += "; one point: the interval from its " + std::to_string(visits.size()) + " visits' spread";
}

}  // namespace

Eigen::VectorXd problem_row(const form& f, const point& x) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(f.terms.size()));
  for (std::size_t j = 0; j < f.terms.size(); ++j) v(static_cast<Eigen::Index>(j)) = f.terms[j](x);
  return v;
}

linear_problem problem_for(const form& f, const cell_points& pts, const std::vector<bool>& keep) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < pts.x.size(); ++i)
    if (keep.empty() || keep[i]) rows.push_back(i);
  linear_problem p;
  p.x.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(f.terms.size()));
  p.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    p.x.row(static_cast<Eigen::Index>(r)) = problem_row(f, pts.x[rows[r]]).transpose();
    p.y(static_cast<Eigen::Index>(r)) = pts.y(static_cast<Eigen::Index>(rows[r]));
  }
  p.nonneg.assign(f.terms.size(), true);
  for (const auto& pt : f.priors) p.priors.push_back({pt.index, pt.prior.loads_mean, pt.prior.loads_sd});
  return p;
}

cell_model fit_cell(const cell_id& id, const std::vector<const observation*>& rows, const fit_environment& env,
                    const fit_options& o) {
  if (rows.empty()) throw datasets::input_error(describe_cell(id) + ": no points to fit");
  const bool reciprocal = is_rate(id.k);
  const cell_points pts = points_of(rows, reciprocal);
  const form_request request = request_for(id, pts, env, o.fam);
  if (const auto why = unfittable_core(request); !why.empty())
    throw too_few_points(rows.front()->where + ": too few points for the form of " + describe_cell(id) + ": " + why +
                         " (" + std::to_string(rows.size()) + " points)");
  std::vector<scored> cands;
  for (const auto& f : candidate_forms(request)) cands.push_back(score(f, pts, o));
  admit_curvature(cands, pts, o);
  cell_model m;
  const std::size_t pick = choose(cands, o, m.chosen_by);
  if (folds_of(pts, o).size() < pts.x.size())  // a large cell: K-fold, not leave-one-out
    m.chosen_by = std::to_string(o.cv_folds) + "-fold cross-validation (folds interleaved in n, " +
                  std::to_string(pts.x.size()) + " points; leave-one-out up to " + std::to_string(o.loo_max_points) +
                  ") + parsimony (simplest form within 10% + 0.2 points of the best cross-validated MAPE)";
  if (pick == cands.size())
    throw too_few_points(rows.front()->where + ": too few distinct points to fit any form for " + describe_cell(id) +
                         " (" + std::to_string(rows.size()) + " points)");
  scored& best = cands[pick];
  std::string method = "non-negative least squares, weights 1/ŷ² (relative errors)";
  if (o.robust.huber) method += ", Huber IRLS (c = 1.345 MAD)";
  refine_footprint(best, pts, o, method);
  m.cell = id.k;
  m.platform = id.platform;
  m.kernel = id.kernel;
  m.reciprocal = reciprocal;
  const std::string unit = reciprocal ? id.k.unit.substr(2) : id.k.unit;
  m.formula = best.f.formula(reciprocal ? "1/X" : "T");
  fill_statistics(m, best, pts, method, o);
  interval_from_visits(m, pts, m.stats.method);
  m.terms = make_terms(best, unit, m.t95);
  m.dom = domain_of(pts);
  for (std::size_t i = 0; i < cands.size(); ++i)
    m.rivals.push_back(
        {cands[i].f.name(), cands[i].f.terms.size(), cands[i].loo_mape, i == pick ? "chosen" : cands[i].note});
  // One point has no residuals to resample: its interval is the visits' (above) or none.
  if (o.bootstrap_replicates > 0 && pts.value.size() > 1) add_bootstrap(m, best.f, pts, best.loo, o);
  return m;
}

}  // namespace pollscale::model
