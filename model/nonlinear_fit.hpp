// Nonlinear weighted least squares by Levenberg-Marquardt (Eigen's unsupported
// LevenbergMarquardt module, numerical Jacobian), with the covariance of the estimates
// from the Jacobian at the optimum. Used for parameters that enter a model nonlinearly:
// the per-fd kernel footprint that places a cache knee, the RT-signal queue threshold.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <Eigen/Dense>

namespace pollscale::model {

struct nonlinear_problem {
  /// The model: predicted response of point i (0 <= i < y.size()) at parameters theta.
  std::function<double(const Eigen::VectorXd& theta, std::size_t i)> f;
  Eigen::VectorXd y;      ///< responses
  Eigen::VectorXd w;      ///< positive weights (Var(y_i) = sigma²/w_i); empty means all 1
  Eigen::VectorXd start;  ///< initial parameters; LM finds the nearest local minimum
  std::size_t max_evaluations = 2000;
};

struct nonlinear_solution {
  Eigen::VectorXd theta;
  Eigen::MatrixXd covariance;  ///< sigma² (J'WJ)^-1; NaN-filled when df <= 0
  double sigma2 = 0;           ///< weighted residual variance, NaN when df <= 0
  double df = 0;               ///< points - parameters
  bool converged = false;
  std::string status;  ///< Eigen's termination reason, in words
};

/// Minimises sum w_i (y_i - f(theta, i))². Throws std::invalid_argument when there are
/// fewer points than parameters, non-finite data or weights, or f is empty.
nonlinear_solution solve_levenberg_marquardt(const nonlinear_problem& problem);

}  // namespace pollscale::model
