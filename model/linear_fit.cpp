#include "model/linear_fit.hpp"
#include "model/model_set.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace pollscale::model {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

void check_problem(const linear_problem& p) {
  const auto m = p.x.rows();
  if (m < 1 || p.x.cols() < 1) throw std::invalid_argument("linear fit: empty design matrix");
  if (p.y.size() != m) throw std::invalid_argument("linear fit: x and y differ in length");
  if (p.w.size() != 0 && p.w.size() != m) throw std::invalid_argument("linear fit: x and w differ in length");
  if (!p.x.allFinite() || !p.y.allFinite()) throw std::invalid_argument("linear fit: non-finite data");
  if (p.w.size() != 0 && !(p.w.array() > 0).all()) throw std::invalid_argument("linear fit: weights must be positive");
  if (!p.w.allFinite()) throw std::invalid_argument("linear fit: non-finite weight");
  for (const auto& pr : p.priors)
    if (pr.index >= static_cast<std::size_t>(p.x.cols()) || !(pr.sd > 0) || !std::isfinite(pr.mean))
      throw std::invalid_argument("linear fit: malformed prior");
  if (!identifiable(p.x, p.priors)) throw std::invalid_argument("linear fit: the terms are collinear on these points");
}

// The augmented system A beta ~ b: data rows scaled by sqrt(w / sigma²), then one row per
// prior scaled by 1/sd, so that both are in units of standard deviations.
struct augmented {
  MatrixXd a;
  VectorXd b;
};

augmented augment(const linear_problem& p, const VectorXd& w, double sigma2) {
  const auto m = p.x.rows();
  const auto np = static_cast<Eigen::Index>(p.priors.size());
  augmented s{MatrixXd::Zero(m + np, p.x.cols()), VectorXd::Zero(m + np)};
  const VectorXd sw = (w.array() / sigma2).sqrt();
  s.a.topRows(m) = sw.asDiagonal() * p.x;
  s.b.head(m) = sw.cwiseProduct(p.y);
  for (Eigen::Index r = 0; r < np; ++r) {
    const auto& pr = p.priors[static_cast<std::size_t>(r)];
    s.a(m + r, static_cast<Eigen::Index>(pr.index)) = 1 / pr.sd;
    s.b(m + r) = pr.mean / pr.sd;
  }
  return s;
}

// Least squares on the columns flagged in `passive`, the others held at 0.
VectorXd solve_passive(const augmented& s, const std::vector<bool>& passive) {
  std::vector<Eigen::Index> cols;
  for (std::size_t j = 0; j < passive.size(); ++j)
    if (passive[j]) cols.push_back(static_cast<Eigen::Index>(j));
  VectorXd beta = VectorXd::Zero(s.a.cols());
  if (cols.empty()) return beta;
  const MatrixXd sub = s.a(Eigen::all, cols);
  const VectorXd z = sub.colPivHouseholderQr().solve(s.b);
  for (std::size_t c = 0; c < cols.size(); ++c) beta(cols[c]) = z(static_cast<Eigen::Index>(c));
  return beta;
}

// Lawson-Hanson active set; unconstrained columns stay passive throughout.
VectorXd active_set(const augmented& s, const std::vector<bool>& nonneg, std::vector<bool>& passive) {
  const auto p = static_cast<std::size_t>(s.a.cols());
  for (std::size_t j = 0; j < p; ++j) passive[j] = !nonneg[j];
  VectorXd beta = solve_passive(s, passive);
  // Columns differ by many orders of magnitude (a per-call cost in seconds next to a
  // dimensionless prior term): compare each gradient with its own column's scale.
  VectorXd tol(s.a.cols());
  for (Eigen::Index j = 0; j < s.a.cols(); ++j) tol(j) = 1e-10 * s.a.col(j).norm() * std::max(s.b.norm(), 1e-300);
  for (std::size_t outer = 0; outer < 3 * p + 3; ++outer) {
    const VectorXd grad = s.a.transpose() * (s.b - s.a * beta);
    std::size_t best = p;
    for (std::size_t j = 0; j < p; ++j) {
      const auto i = static_cast<Eigen::Index>(j);
      if (!passive[j] && grad(i) > tol(i) &&
          (best == p ||
           grad(i) / tol(i) > grad(static_cast<Eigen::Index>(best)) / tol(static_cast<Eigen::Index>(best))))
        best = j;
    }
    if (best == p) break;
    passive[best] = true;
    for (std::size_t inner = 0; inner < 3 * p + 3; ++inner) {
      const VectorXd trial = solve_passive(s, passive);
      double alpha = 1;
      for (std::size_t j = 0; j < p; ++j) {
        const auto i = static_cast<Eigen::Index>(j);
        if (passive[j] && nonneg[j] && trial(i) <= 0)
          alpha = std::min(alpha, beta(i) / std::max(beta(i) - trial(i), 1e-300));
      }
      beta += alpha * (trial - beta);
      if (alpha >= 1) break;
      for (std::size_t j = 0; j < p; ++j)
        if (passive[j] && nonneg[j] && beta(static_cast<Eigen::Index>(j)) <= 1e-15) {
          passive[j] = false;
          beta(static_cast<Eigen::Index>(j)) = 0;
        }
    }
  }
  return beta;
}

// Residual variance and effective parameters (trace of the hat matrix of the data rows).
void finish(const linear_problem& p, const VectorXd& w, const std::vector<bool>& passive, linear_solution& out) {
  const auto m = p.x.rows();
  out.fitted = p.x * out.beta;
  // A coefficient held at 0 has no spread from the data, but one with a prior keeps the
  // prior's: it stays in the covariance.
  std::vector<Eigen::Index> cols;
  for (std::size_t j = 0; j < passive.size(); ++j) {
    const bool has_prior = std::any_of(p.priors.begin(), p.priors.end(), [&](const auto& pr) { return pr.index == j; });
    if (passive[j] || has_prior) cols.push_back(static_cast<Eigen::Index>(j));
  }
  const auto pc = static_cast<Eigen::Index>(cols.size());
  MatrixXd xtwx = MatrixXd::Zero(pc, pc), prior = MatrixXd::Zero(pc, pc);
  const MatrixXd xs = p.x(Eigen::all, cols);
  xtwx = xs.transpose() * w.asDiagonal() * xs;
  for (const auto& pr : p.priors)
    for (Eigen::Index c = 0; c < pc; ++c)
      if (cols[static_cast<std::size_t>(c)] == static_cast<Eigen::Index>(pr.index)) prior(c, c) += 1 / (pr.sd * pr.sd);
  const VectorXd r = p.y - out.fitted;
  const double rss = (w.array() * r.array().square()).sum();
  // edf = tr((X'WX/s2)(X'WX/s2 + P)^-1) with s2 the variance the priors were weighed with.
  const double s2 = out.sigma2;
  const MatrixXd info = xtwx / s2 + prior;
  const Eigen::LDLT<MatrixXd> ldlt(info);
  const double edf = pc == 0 ? 0 : (ldlt.solve(xtwx / s2)).trace();
  out.df = static_cast<double>(m) - edf;
  out.sigma2 = out.df > 0.5 ? rss / out.df : not_available;
  // Covariance: data term scaled by the estimated variance, prior term absolute.
  const double s2_hat = std::isfinite(out.sigma2) ? std::max(out.sigma2, 1e-300) : s2;
  const MatrixXd cov_sub = (MatrixXd)(xtwx / s2_hat + prior).ldlt().solve(MatrixXd::Identity(pc, pc));
  out.covariance = MatrixXd::Zero(p.x.cols(), p.x.cols());
  out.covariance(cols, cols) = cov_sub;
  out.weights = w;
}

}  // namespace

bool identifiable(const MatrixXd& x, const std::vector<coefficient_prior>& priors) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    const bool has_prior = std::any_of(priors.begin(), priors.end(),
                                       [&](const auto& pr) { return static_cast<Eigen::Index>(pr.index) == j; });
    if (!has_prior) cols.push_back(j);
  }
  if (cols.empty()) return true;
  if (x.rows() < static_cast<Eigen::Index>(cols.size())) return false;
  MatrixXd sub = x(Eigen::all, cols);
  for (Eigen::Index c = 0; c < sub.cols(); ++c) {  // scale columns so rank is about shape
    const double norm = sub.col(c).norm();
    if (norm == 0) return false;
    sub.col(c) /= norm;
  }
  Eigen::ColPivHouseholderQR<MatrixXd> qr(sub);
  qr.setThreshold(1e-9);
  return qr.rank() == sub.cols();
}

linear_solution solve_linear(const linear_problem& p) {
  check_problem(p);
  const auto m = p.x.rows();
  const VectorXd w = p.w.size() ? p.w : VectorXd::Ones(m);
  std::vector<bool> nonneg = p.nonneg;
  nonneg.resize(static_cast<std::size_t>(p.x.cols()), false);
  linear_solution out;
  // Priors are weighed against the data's own spread; estimate it first without them.
  double sigma2 = p.sigma_guess * p.sigma_guess;
  std::vector<bool> passive(nonneg.size(), true);
  if (!p.priors.empty() && !p.sigma_known && identifiable(p.x, {})) {
    linear_problem bare = p;
    bare.priors.clear();
    const auto first = solve_linear(bare);
    if (std::isfinite(first.sigma2) && first.sigma2 > 0) sigma2 = first.sigma2;
  }
  const augmented s = augment(p, w, sigma2);
  out.beta = active_set(s, nonneg, passive);
  out.at_bound.assign(nonneg.size(), false);
  for (std::size_t j = 0; j < nonneg.size(); ++j) out.at_bound[j] = !passive[j];
  out.sigma2 = sigma2;
  finish(p, w, passive, out);
  return out;
}

namespace {

VectorXd relative_weights(const VectorXd& base, const VectorXd& yhat, const VectorXd& y) {
  VectorXd w = base;
  for (Eigen::Index i = 0; i < w.size(); ++i) {
    const double scale = yhat(i) > 0 ? yhat(i) : std::max(std::abs(y(i)), 1e-300);
    w(i) /= scale * scale;
  }
  return w;
}

// Replaces the Huber-weighted spread by the plain one around the same fit.
void unweighted_spread(const linear_problem& p, const VectorXd& w_plain, linear_solution& s) {
  if (!(s.df > 0.5) || !std::isfinite(s.sigma2) || s.sigma2 <= 0) return;
  const VectorXd r = p.y - s.fitted;
  const double plain = (w_plain.array() * r.array().square()).sum() / s.df;
  if (plain > s.sigma2) {
    s.covariance *= plain / s.sigma2;
    s.sigma2 = plain;
  }
}

}  // namespace

linear_solution solve_robust(const linear_problem& problem, const robust_options& o) {
  linear_problem p = problem;
  const auto m = p.x.rows();
  const VectorXd base = p.w.size() ? p.w : VectorXd::Ones(m);
  VectorXd yhat = p.y.cwiseAbs();
  VectorXd huber = VectorXd::Ones(m);
  linear_solution s;
  for (std::size_t it = 0; it < o.max_iterations; ++it) {
    const VectorXd plain = o.relative ? relative_weights(base, yhat, p.y) : base;
    p.w = plain.cwiseProduct(huber);
    const VectorXd previous = s.beta;
    s = solve_linear(p);
    s.iterations = it + 1;
    if (!p.priors.empty() && !p.sigma_known) {  // weigh priors with the first estimate from now on
      p.sigma_known = true;
      p.sigma_guess = std::sqrt(s.sigma2 > 0 && std::isfinite(s.sigma2) ? s.sigma2 : p.sigma_guess * p.sigma_guess);
    }
    for (Eigen::Index i = 0; i < m; ++i) yhat(i) = s.fitted(i) > 0 ? s.fitted(i) : std::abs(p.y(i));
    if (o.huber && m > 2) {
      // Standardised residuals under the current weights, scaled by their MAD.
      VectorXd z = plain.array().sqrt() * (p.y - s.fitted).array();
      std::vector<double> a(z.data(), z.data() + m);
      for (auto& v : a) v = std::abs(v);
      std::nth_element(a.begin(), a.begin() + m / 2, a.end());
      const double mad = a[static_cast<std::size_t>(m / 2)] / 0.6745;
      for (Eigen::Index i = 0; i < m; ++i)
        huber(i) = mad > 0 && std::abs(z(i)) > o.huber_c * mad ? o.huber_c * mad / std::abs(z(i)) : 1.0;
    }
    if (previous.size() && (s.beta - previous).norm() <= o.tolerance * std::max(1e-300, s.beta.norm())) break;
  }
  if (o.huber) unweighted_spread(p, o.relative ? relative_weights(base, yhat, p.y) : base, s);
  return s;
}

double t975(double df) {
  // Below one residual degree of freedom (a prior can leave a fraction) the quantile is
  // astronomically large or overflows: no interval is more honest.
  if (!(df >= 1)) return not_available;
  const boost::math::students_t dist(df);
  return boost::math::quantile(dist, 0.975);
}

}  // namespace pollscale::model
