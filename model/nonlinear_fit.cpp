#include "model/nonlinear_fit.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <unsupported/Eigen/LevenbergMarquardt>
#include <unsupported/Eigen/NumericalDiff>

namespace pollscale::model {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Weighted residuals sqrt(w_i) (y_i - f(theta, i)) in the shape Eigen's LM expects.
struct residual_functor : Eigen::DenseFunctor<double> {
  const nonlinear_problem* problem;
  VectorXd sqrt_w;

  residual_functor(const nonlinear_problem& p, VectorXd sw)
      : Eigen::DenseFunctor<double>(static_cast<int>(p.start.size()), static_cast<int>(p.y.size())),
        problem(&p),
        sqrt_w(std::move(sw)) {}

  int operator()(const VectorXd& theta, VectorXd& fvec) const {
    for (Eigen::Index i = 0; i < problem->y.size(); ++i) {
      const double v = problem->f(theta, static_cast<std::size_t>(i));
      // A non-finite model value is a step too far: a huge residual turns LM back.
      fvec(i) = std::isfinite(v) ? sqrt_w(i) * (problem->y(i) - v) : 1e150;
    }
    return 0;
  }
};

const char* status_text(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case RelativeReductionTooSmall: return "relative reduction of the sum of squares below tolerance";
    case RelativeErrorTooSmall: return "relative change of the parameters below tolerance";
    case RelativeErrorAndReductionTooSmall: return "parameters and sum of squares converged";
    case CosinusTooSmall: return "residuals orthogonal to the Jacobian";
    case TooManyFunctionEvaluation: return "too many function evaluations";
    case FtolTooSmall: return "ftol too small";
    case XtolTooSmall: return "xtol too small";
    case GtolTooSmall: return "gtol too small";
    case ImproperInputParameters: return "improper input parameters";
    default: return "not converged";
  }
}

}  // namespace

nonlinear_solution solve_levenberg_marquardt(const nonlinear_problem& p) {
  const auto m = p.y.size(), n = p.start.size();
  if (!p.f) throw std::invalid_argument("levenberg-marquardt: no model function");
  if (n < 1 || m < n) throw std::invalid_argument("levenberg-marquardt: fewer points than parameters");
  if (p.w.size() != 0 && p.w.size() != m) throw std::invalid_argument("levenberg-marquardt: y and w differ in length");
  if (!p.y.allFinite() || !p.start.allFinite() || !p.w.allFinite())
    throw std::invalid_argument("levenberg-marquardt: non-finite data");
  if (p.w.size() != 0 && !(p.w.array() > 0).all())
    throw std::invalid_argument("levenberg-marquardt: weights must be positive");
  const VectorXd sw = p.w.size() ? VectorXd(p.w.array().sqrt()) : VectorXd::Ones(m);

  residual_functor functor(p, sw);
  Eigen::NumericalDiff<residual_functor, Eigen::Central> numdiff(functor);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<residual_functor, Eigen::Central>> lm(numdiff);
  lm.setMaxfev(static_cast<Eigen::Index>(p.max_evaluations));
  lm.setXtol(1e-12);
  lm.setFtol(1e-12);
  nonlinear_solution out;
  out.theta = p.start;
  const auto status = lm.minimize(out.theta);
  out.status = status_text(status);
  using namespace Eigen::LevenbergMarquardtSpace;
  out.converged = status == RelativeReductionTooSmall || status == RelativeErrorTooSmall ||
                  status == RelativeErrorAndReductionTooSmall || status == CosinusTooSmall;

  VectorXd r(m);
  functor(out.theta, r);
  MatrixXd jac(m, n);
  numdiff.df(out.theta, jac);  // d(residual)/d(theta) = -sqrt(w) df/dtheta
  out.df = static_cast<double>(m - n);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.sigma2 = out.df > 0 ? r.squaredNorm() / out.df : nan;
  if (out.df > 0) {
    const MatrixXd info = jac.transpose() * jac;
    out.covariance = out.sigma2 * info.completeOrthogonalDecomposition().pseudoInverse();
  } else {
    out.covariance = MatrixXd::Constant(n, n, nan);
  }
  return out;
}

}  // namespace pollscale::model
