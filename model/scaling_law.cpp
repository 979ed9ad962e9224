#include "model/scaling_law.hpp"
#include "model/model_set.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

#include "model/nonlinear_fit.hpp"

namespace pollscale::model {
namespace {

// The parsimony rule of the cost forms (docs/model.md §5): a law with fewer coefficients
// wins when its leave-one-out error is within 10% (+0.2 points) of the best.
constexpr double parsimony_factor = 1.10;
constexpr double parsimony_slack = 0.002;

std::size_t coefficients(scaling_law law) {
  switch (law) {
    case scaling_law::linear: return 1;
    case scaling_law::amdahl: return 2;
    case scaling_law::usl: return 3;
  }
  return 3;
}

// 1 + σ(N−1) + κN(N−1): how many times longer one operation takes at N than alone.
double slowdown(double n, double sigma, double kappa) { return 1 + sigma * (n - 1) + kappa * n * (n - 1); }

double law_at(double n, double gamma, double sigma, double kappa) { return gamma * n / slowdown(n, sigma, kappa); }

// Coefficients (γ, σ, κ) from the law's free parameters θ (γ first, then σ, then κ).
Eigen::Vector3d full(const Eigen::VectorXd& theta) {
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  c.head(theta.size()) = theta;
  return c;
}

// Start values by the exact linearisation N/X = 1/γ + (σ/γ)(N−1) + (κ/γ)N(N−1), solved by
// least squares on relative residuals (N/X's relative error is X's). Falls back to γ from
// the smallest N and no contention when the line says something unphysical.
Eigen::VectorXd start_values(std::span<const scaling_point> pts, std::size_t p) {
  const auto m = static_cast<Eigen::Index>(pts.size());
  Eigen::MatrixXd a(m, static_cast<Eigen::Index>(p));
  Eigen::VectorXd b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double n = pts[static_cast<std::size_t>(i)].n, y = n / pts[static_cast<std::size_t>(i)].throughput;
    const double regressors[3] = {1.0, n - 1, n * (n - 1)};
    for (std::size_t j = 0; j < p; ++j) a(i, static_cast<Eigen::Index>(j)) = regressors[j] / y;
    b(i) = 1.0;
  }
  const Eigen::VectorXd abc = a.colPivHouseholderQr().solve(b);
  Eigen::VectorXd theta(static_cast<Eigen::Index>(p));
  if (abc.allFinite() && abc(0) > 0) {
    theta(0) = 1 / abc(0);
    for (std::size_t j = 1; j < p; ++j)
      theta(static_cast<Eigen::Index>(j)) = std::max(0.0, abc(static_cast<Eigen::Index>(j)) / abc(0));
    return theta;
  }
  const auto low = std::min_element(pts.begin(), pts.end(), [](auto& x, auto& y) { return x.n < y.n; });
  theta.setZero();
  theta(0) = low->throughput / low->n;
  return theta;
}

struct law_fit {
  scaling_fit fit;
  bool physical = true;
  std::string why_not;  ///< when not physical
};

law_fit fit_law(std::span<const scaling_point> pts, scaling_law law, scaling_options::weighting weights) {
  const std::size_t p = coefficients(law);
  nonlinear_problem problem;
  problem.y.resize(static_cast<Eigen::Index>(pts.size()));
  problem.w.resize(static_cast<Eigen::Index>(pts.size()));
  for (std::size_t i = 0; i < pts.size(); ++i) {
    problem.y(static_cast<Eigen::Index>(i)) = pts[i].throughput;
    problem.w(static_cast<Eigen::Index>(i)) =
        weights == scaling_options::weighting::relative ? 1 / (pts[i].throughput * pts[i].throughput) : 1.0;
  }
  problem.f = [pts](const Eigen::VectorXd& theta, std::size_t i) {
    const Eigen::Vector3d c = full(theta);
    return law_at(pts[i].n, c(0), c(1), c(2));
  };
  problem.start = start_values(pts, p);
  const nonlinear_solution s = solve_levenberg_marquardt(problem);

  law_fit out;
  scaling_fit& f = out.fit;
  f.law = law;
  f.weights = weights;
  const Eigen::Vector3d c = full(s.theta);
  f.gamma = c(0), f.sigma = c(1), f.kappa = c(2);
  f.df = s.df;
  f.points = pts.size();
  f.covariance.setZero();
  const auto k = static_cast<Eigen::Index>(p);
  f.covariance.topLeftCorner(k, k) = s.covariance;
  f.residual_sd = s.df > 0 ? std::sqrt(s.sigma2) : not_available;
  // A tiny negative coefficient is the optimum sitting on the boundary: call it 0.
  const double eps = 1e-12;
  if (!(f.gamma > 0) || !std::isfinite(f.gamma))
    out.physical = false, out.why_not = "γ <= 0";
  else if (f.sigma < -eps)
    out.physical = false, out.why_not = "σ < 0 (faster than linear per thread)";
  else if (f.kappa < -eps)
    out.physical = false, out.why_not = "κ < 0 (no coherency cost fits)";
  f.sigma = std::max(0.0, f.sigma);
  f.kappa = std::max(0.0, f.kappa);
  return out;
}

// Mean |relative error| predicting each point from a fit of the law without it; NaN when
// the rest cannot determine the law.
double leave_one_out(std::span<const scaling_point> pts, scaling_law law, scaling_options::weighting weights) {
  std::set<double> distinct;
  for (const auto& q : pts) distinct.insert(q.n);
  if (distinct.size() != pts.size() || pts.size() < coefficients(law) + 1) return not_available;
  double sum = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    std::vector<scaling_point> rest;
    for (std::size_t j = 0; j < pts.size(); ++j)
      if (j != i) rest.push_back(pts[j]);
    const law_fit lf = fit_law(rest, law, weights);
    if (!lf.physical) return not_available;
    sum += std::abs(lf.fit.at(pts[i].n) - pts[i].throughput) / pts[i].throughput;
  }
  return sum / static_cast<double>(pts.size());
}

void check_points(std::span<const scaling_point> pts) {
  for (const auto& q : pts) {
    if (!std::isfinite(q.n) || q.n < 1)
      throw std::invalid_argument("scaling law: N must be a finite number >= 1, got " + std::to_string(q.n));
    if (!std::isfinite(q.throughput) || q.throughput <= 0)
      throw std::invalid_argument("scaling law: throughput must be finite and > 0, got " +
                                  std::to_string(q.throughput) + " at N = " + std::to_string(q.n));
  }
  std::set<double> distinct;
  for (const auto& q : pts) distinct.insert(q.n);
  if (distinct.size() < 2)
    throw std::invalid_argument("scaling law: needs throughput at two or more distinct N (got " +
                                std::to_string(distinct.size()) + "): one N says nothing about scaling");
}

std::string loo_text(double loo) {
  if (std::isnan(loo)) return "not scored";
  std::ostringstream o;
  o.precision(3);
  o << 100 * loo << "%";
  return o.str();
}

}  // namespace

std::string_view name(scaling_law law) {
  switch (law) {
    case scaling_law::linear: return "linear";
    case scaling_law::amdahl: return "amdahl";
    case scaling_law::usl: return "usl";
  }
  return "?";
}

double scaling_fit::at(double n) const { return law_at(n, gamma, sigma, kappa); }

double scaling_fit::peak_n() const {
  return kappa > 0 ? std::sqrt(std::max(0.0, 1 - sigma) / kappa) : std::numeric_limits<double>::infinity();
}

std::string scaling_fit::formula() const {
  switch (law) {
    case scaling_law::linear: return "γ·N";
    case scaling_law::amdahl: return "γ·N / (1 + σ·(N−1))";
    case scaling_law::usl: return "γ·N / (1 + σ·(N−1) + κ·N·(N−1))";
  }
  return "?";
}

// A law through exactly as many points as it has coefficients leaves no residual to say how
// far a new measurement falls from it; but each point's visits say how far its own value
// could have fallen. Their variances, carried through the law (θ = J⁻¹·X: the coefficients'
// covariance J⁻¹·D·J⁻ᵀ, D the points' squared standard errors), give the coefficients an
// uncertainty that widens with the extrapolation, and a new point scatters by the visits'
// typical standard error. df: the fewest visits − 1 (Student t, as the summary's intervals).
void interval_from_visits(scaling_fit& f, std::span<const scaling_point> pts) {
  const std::size_t k = coefficients(f.law);
  if (f.df > 0 || pts.size() != k) return;
  std::size_t fewest = std::numeric_limits<std::size_t>::max();
  double mean_sq = 0;
  for (const auto& q : pts) {
    if (q.visits < 2 || !(q.rel_se > 0) || !std::isfinite(q.rel_se)) return;
    fewest = std::min(fewest, q.visits);
    mean_sq += q.rel_se * q.rel_se / static_cast<double>(k);
  }
  const auto K = static_cast<Eigen::Index>(k);
  Eigen::MatrixXd jac(K, K);
  Eigen::VectorXd var(K);
  for (Eigen::Index i = 0; i < K; ++i) {
    const double n = pts[static_cast<std::size_t>(i)].n, d = slowdown(n, f.sigma, f.kappa);
    const Eigen::Vector3d g(n / d, -f.gamma * n * (n - 1) / (d * d), -f.gamma * n * n * (n - 1) / (d * d));
    jac.row(i) = g.head(K).transpose();
    const double x = f.at(n) * pts[static_cast<std::size_t>(i)].rel_se;
    var(i) = x * x;
  }
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(jac);
  if (!lu.isInvertible()) return;
  const Eigen::MatrixXd inv = lu.inverse();
  f.covariance.setZero();
  f.covariance.topLeftCorner(K, K) = inv * var.asDiagonal() * inv.transpose();
  const double rel = std::sqrt(mean_sq);
  f.residual_sd = f.weights == scaling_options::weighting::relative ? rel : rel * f.at(pts.front().n);
  f.df = static_cast<double>(fewest - 1);
}

scaling_fit fit_scaling(std::span<const scaling_point> points, const scaling_options& options) {
  check_points(points);
  std::set<double> distinct;
  for (const auto& q : points) distinct.insert(q.n);
  const double n_lo = *distinct.begin(), n_hi = *distinct.rbegin();  // a set is sorted
  // Each law is fitted and scored once; the chosen one keeps the score it was judged by.
  auto finish = [&](scaling_fit f, double loo, std::vector<scaling_rival> rivals) {
    f.n_min = n_lo, f.n_max = n_hi;
    f.loo = loo;
    f.rivals = std::move(rivals);
    interval_from_visits(f, points);
    return f;
  };
  if (options.force) {
    if (coefficients(options.forced) > points.size())
      throw std::invalid_argument("scaling law: " + std::string(name(options.forced)) + " needs " +
                                  std::to_string(coefficients(options.forced)) + " points, got " +
                                  std::to_string(points.size()));
    return finish(fit_law(points, options.forced, options.weights).fit,
                  leave_one_out(points, options.forced, options.weights), {});
  }

  // The kernel-shaped base is Amdahl: every mechanism serialises some part of an event.
  const law_fit amdahl = fit_law(points, scaling_law::amdahl, options.weights);
  const law_fit linear = fit_law(points, scaling_law::linear, options.weights);
  const double loo_amdahl = leave_one_out(points, scaling_law::amdahl, options.weights);
  const double loo_linear = leave_one_out(points, scaling_law::linear, options.weights);
  std::vector<scaling_rival> rivals;
  scaling_law chosen = scaling_law::amdahl;
  std::optional<law_fit> usl;  // fitted only where coherency may compete
  if (!amdahl.physical) {
    chosen = scaling_law::linear;
    rivals.push_back({scaling_law::amdahl, loo_amdahl, amdahl.why_not});
  } else if (!std::isnan(loo_linear) && !std::isnan(loo_amdahl) &&
             loo_linear <= loo_amdahl * parsimony_factor + parsimony_slack) {
    chosen = scaling_law::linear;
    rivals.push_back({scaling_law::amdahl, loo_amdahl, "no better than linear by the parsimony margin"});
  } else {
    rivals.push_back({scaling_law::linear, loo_linear,
                      std::isnan(loo_amdahl) ? "Amdahl is the base law; too few points to score either"
                                             : "leave-one-out error above Amdahl's"});
  }

  // Coherency (κ) must earn its place: enough distinct N and a margin over Amdahl.
  double loo_usl = not_available;
  if (distinct.size() < options.coherency_min_points) {
    rivals.push_back({scaling_law::usl, not_available,
                      "coherency needs " + std::to_string(options.coherency_min_points) + " distinct N, got " +
                          std::to_string(distinct.size())});
  } else {
    usl = fit_law(points, scaling_law::usl, options.weights);
    loo_usl = leave_one_out(points, scaling_law::usl, options.weights);
    const double base_loo = chosen == scaling_law::linear ? loo_linear : loo_amdahl;
    if (!usl->physical) {
      rivals.push_back({scaling_law::usl, loo_usl, usl->why_not});
    } else if (!std::isnan(loo_usl) && !std::isnan(base_loo) && loo_usl <= (1 - options.coherency_margin) * base_loo) {
      rivals.push_back(
          {chosen, base_loo, "leave-one-out " + loo_text(base_loo) + " against USL's " + loo_text(loo_usl)});
      chosen = scaling_law::usl;
    } else if (std::isnan(loo_usl)) {
      rivals.push_back(
          {scaling_law::usl, loo_usl, "leave-one-out not scored: a fit without one of the points has σ or κ < 0"});
    } else {
      rivals.push_back({scaling_law::usl, loo_usl,
                        "leave-one-out " + loo_text(loo_usl) + " not " + loo_text(options.coherency_margin) +
                            " below the simpler law's " + loo_text(base_loo)});
    }
  }
  if (chosen == scaling_law::usl) return finish(usl->fit, loo_usl, std::move(rivals));
  if (chosen == scaling_law::linear) return finish(linear.fit, loo_linear, std::move(rivals));
  return finish(amdahl.fit, loo_amdahl, std::move(rivals));
}

scaling_prediction predict_scaling(const scaling_fit& fit, double n) {
  if (!std::isfinite(n) || n < 1) throw std::invalid_argument("scaling law: N must be >= 1, got " + std::to_string(n));
  scaling_prediction p;
  p.value = fit.at(n);
  p.extrapolation = fit.n_max > 0 ? std::max(1.0, n / fit.n_max) : 1;
  if (!(fit.df > 0) || !fit.covariance.allFinite()) {
    p.lo = p.hi = not_available;
    p.no_interval = "no interval: " + std::to_string(fit.points) + " points fit " + std::string(name(fit.law)) +
                    "'s coefficients exactly (df = 0)";
    return p;
  }
  // dX/dγ, dX/dσ, dX/dκ at n.
  const double d = slowdown(n, fit.sigma, fit.kappa);
  const Eigen::Vector3d g(n / d, -fit.gamma * n * (n - 1) / (d * d), -fit.gamma * n * n * (n - 1) / (d * d));
  const double scatter =
      fit.weights == scaling_options::weighting::relative ? fit.residual_sd * p.value : fit.residual_sd;
  const double var = g.dot(fit.covariance * g) + scatter * scatter;
  const boost::math::students_t t(fit.df);
  const double half = boost::math::quantile(t, 0.975) * std::sqrt(std::max(0.0, var));
  p.lo = std::max(0.0, p.value - half);
  p.hi = p.value + half;
  p.has_interval = true;
  return p;
}

}  // namespace pollscale::model
