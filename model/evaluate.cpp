#include "model/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace pollscale::model {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

Eigen::VectorXd regressors(const cell_model& m, const point& x) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(m.terms.size()));
  for (std::size_t j = 0; j < m.terms.size(); ++j) v(static_cast<Eigen::Index>(j)) = m.terms[j].b(x);
  return v;
}

double coefficient_dot(const cell_model& m, const Eigen::VectorXd& v) {
  double s = 0;
  for (std::size_t j = 0; j < m.terms.size(); ++j) s += m.terms[j].coefficient * v(static_cast<Eigen::Index>(j));
  return s;
}

bool depends_on_n(basis_kind k) {
  return k == basis_kind::per_fd || k == basis_kind::log_n || k == basis_kind::fd_per_ready ||
         k == basis_kind::power_log || k == basis_kind::working_set || k == basis_kind::overflow ||
         k == basis_kind::per_registered || k == basis_kind::per_word || k == basis_kind::fd_times_ready ||
         k == basis_kind::cycle_set || k == basis_kind::entry_set;
}

// Interval in the response space, [lo, hi] with lo >= 0.
std::pair<double, double> response_interval(const cell_model& m, const Eigen::VectorXd& v, double yhat) {
  if (m.bootstrap.rows() > 0) {
    std::vector<double> draws(static_cast<std::size_t>(m.bootstrap.rows()));
    for (Eigen::Index b = 0; b < m.bootstrap.rows(); ++b) {
      const double e = m.bootstrap_residuals.empty()
                           ? 0.0
                           : m.bootstrap_residuals[static_cast<std::size_t>(b) % m.bootstrap_residuals.size()];
      draws[static_cast<std::size_t>(b)] = m.bootstrap.row(b).dot(v) * (1 + e);
    }
    std::sort(draws.begin(), draws.end());
    const auto at = [&](double q) {
      const double h = q * static_cast<double>(draws.size() - 1);
      const auto i = static_cast<std::size_t>(std::floor(h));
      const std::size_t j = std::min(i + 1, draws.size() - 1);
      return draws[i] + (h - static_cast<double>(i)) * (draws[j] - draws[i]);
    };
    return {std::max(0.0, at(0.025)), at(0.975)};
  }
  // Student t for what the data estimated; the normal quantile for a term a Gaussian
  // prior sets (its variance is known, not estimated from df points).
  Eigen::VectorXd data = v, prior = Eigen::VectorXd::Zero(v.size());
  for (std::size_t j = 0; j < m.terms.size(); ++j)
    if (m.terms[j].from_prior) std::swap(data(static_cast<Eigen::Index>(j)), prior(static_cast<Eigen::Index>(j)));
  const double var_data = data.dot(m.covariance * data) + std::pow(m.stats.sigma_rel * yhat, 2);
  const double var_prior = prior.dot(m.covariance * prior);
  const double half = std::sqrt(std::max(0.0, m.t95 * m.t95 * var_data + 1.96 * 1.96 * var_prior));
  return {std::max(0.0, yhat - half), yhat + half};
}

// "19.7", "250": a ratio for a message, three significant digits.
std::string short_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

}  // namespace

double response_at(const cell_model& m, const point& x) { return coefficient_dot(m, regressors(m, x)); }

double interval_support(const cell_model& m) {
  if (!uses_n(m) || !(m.dom.n_min > 0) || !(m.dom.n_max >= m.dom.n_min)) return inf;
  return m.dom.n_max / m.dom.n_min;
}

bool uses_n(const cell_model& m) {
  return std::any_of(m.terms.begin(), m.terms.end(), [](const term& t) { return depends_on_n(t.b.kind); });
}

point_prediction evaluate(const cell_model& m, const point& x) {
  point_prediction out;
  const Eigen::VectorXd v = regressors(m, x);
  const double yhat = coefficient_dot(m, v);
  const double tol = 1e-9;
  // Outside the measured range of any regressor is extrapolation, even for a term the
  // chosen form left out: that it stays flat there is itself untested.
  auto outside = [&](double x_, double lo, double hi) { return x_ > hi * (1 + tol) || x_ < lo * (1 - tol); };
  out.extrapolated = outside(x.n, m.dom.n_min, m.dom.n_max) || outside(x.k, m.dom.k_min, m.dom.k_max);
  if (std::any_of(m.terms.begin(), m.terms.end(), [](const term& t) { return t.b.kind == basis_kind::per_word; }))
    out.extrapolated |= outside(x.words, m.dom.words_min, m.dom.words_max);
  if (m.dom.n_max > 0) out.extrapolation_factor = x.n / m.dom.n_max;
  if (!(yhat > 0) || !std::isfinite(yhat)) {
    out.value = not_available;
    return out;
  }
  out.value = m.reciprocal ? 1 / yhat : yhat;
  const bool analytic_ok = std::isfinite(m.t95) && std::isfinite(m.stats.sigma_rel) && m.covariance.allFinite();
  // Without residual degrees of freedom the form passes through every point: neither the
  // analytic interval nor a bootstrap (whose replicates would pass through resampled points
  // just as exactly) can say how far a new point lies from it.
  if (m.stats.df == 0 || (m.bootstrap.rows() == 0 && !analytic_ok)) {
    out.no_interval = m.stats.df == 0 ? "too few points: " + std::to_string(m.stats.n_points) + " for " +
                                            std::to_string(m.terms.size()) +
                                            " coefficients leave no degrees of freedom for a spread"
                                      : "the fit gives no estimate of the spread around it";
    return out;
  }
  // One measured point (an interval from its visits, cell_fit.cpp) says nothing about how
  // the cost moves away from it.
  if (m.stats.n_points == 1 && out.extrapolated) {
    out.no_interval = "one point measured: its visits give an interval there, not away from it";
    return out;
  }
  if (const double support = interval_support(m); out.extrapolation_factor > support * (1 + tol)) {
    out.no_interval = "extrapolated " + short_ratio(out.extrapolation_factor) + "x past the largest measured n, " +
                      "further than the data spans (" + short_ratio(support) + "x)";
    return out;
  }
  const auto [lo, hi] = response_interval(m, v, yhat);
  out.has_interval = true;
  if (m.reciprocal) {
    out.lo = hi > 0 ? 1 / hi : 0;
    out.hi = lo > 0 ? 1 / lo : inf;
  } else {
    out.lo = lo;
    out.hi = hi;
  }
  return out;
}

}  // namespace pollscale::model
