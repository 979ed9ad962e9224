// Linear least squares for cost models, all solved with Eigen: weighted (WLS), with
// non-negative coefficients (Lawson-Hanson active set), robust (Huber IRLS) and with
// Gaussian priors on chosen coefficients (extra rows, i.e. Tikhonov regularisation).
//
// Error model: Var(y_i) = sigma² / w_i. With w_i = 1/ŷ_i² (relative_weights), sigma is the
// relative spread of a point around the model, which is what MAPE-style targets measure.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Dense>

namespace pollscale::model {

/// A Gaussian prior on one coefficient: beta[index] ~ N(mean, sd²), sd > 0.
struct coefficient_prior {
  std::size_t index = 0;
  double mean = 0;
  double sd = 1;
};

struct linear_problem {
  Eigen::MatrixXd x;         ///< m x p design matrix
  Eigen::VectorXd y;         ///< m responses
  Eigen::VectorXd w;         ///< m positive weights; empty means all 1
  std::vector<bool> nonneg;  ///< per column: constrain >= 0; empty means none
  std::vector<coefficient_prior> priors;
  /// Relative spread assumed when the data cannot estimate one (df = 0), used only to
  /// weigh priors against data.
  double sigma_guess = 0.05;
  /// When true, priors are weighed with sigma_guess as the data's spread; otherwise a fit
  /// without the priors estimates that spread first (one extra solve).
  bool sigma_known = false;
};

struct linear_solution {
  Eigen::VectorXd beta;
  std::vector<bool> at_bound;  ///< per column: held at 0 by its constraint
  /// Covariance of beta (zero rows/columns for coefficients at a bound).
  Eigen::MatrixXd covariance;
  double sigma2 = 0;        ///< weighted residual variance, NaN when df <= 0
  double df = 0;            ///< m - effective parameters (ridge trace for priors)
  Eigen::VectorXd fitted;   ///< x * beta
  Eigen::VectorXd weights;  ///< final weights (w times robustness weights)
  std::size_t iterations = 0;
};

/// True when the data rows of `x` (columns without a prior) have full column rank.
bool identifiable(const Eigen::MatrixXd& x, const std::vector<coefficient_prior>& priors);

/// Weighted least squares honouring `nonneg` (Lawson-Hanson when any column is
/// constrained) and `priors`. Preconditions: x.rows() == y.size() >= 1, weights > 0 and
/// finite, identifiable(x, priors). Throws std::invalid_argument otherwise.
linear_solution solve_linear(const linear_problem& problem);

struct robust_options {
  bool relative = true;  ///< reweight by 1/ŷ² each iteration (relative error model)
  bool huber = true;     ///< downweight outliers (Huber, c = 1.345 robust sigmas)
  double huber_c = 1.345;
  std::size_t max_iterations = 30;
  double tolerance = 1e-7;  ///< relative change of beta that ends the iteration
};

/// Iteratively reweighted least squares: relative weights and/or Huber weights on top of
/// problem.w, each step solved by solve_linear. Same preconditions. The reported sigma2
/// (and covariance) use the residuals without the Huber downweighting, so that an
/// outlier widens the intervals instead of vanishing from them.
linear_solution solve_robust(const linear_problem& problem, const robust_options& options = {});

/// Student t quantile t_{0.975, df}; NaN when df < 1.
double t975(double df);

}  // namespace pollscale::model
