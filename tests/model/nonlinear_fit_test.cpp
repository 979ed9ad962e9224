#include "model/nonlinear_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pollscale::model {
namespace {

// A knee: y = a + b n + c max(0, n - q), smoothed so the Jacobian exists.
double knee(const Eigen::VectorXd& t, double n) {
  const double z = (n - t(3)) / 50.0;
  const double soft = 50.0 * (z > 30 ? z : std::log1p(std::exp(z)));
  return t(0) + t(1) * n + t(2) * soft;
}

TEST(NonlinearFitTest, LevenbergMarquardtRecoversAPlantedKnee) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> e(0.0, 0.005);
  Eigen::VectorXd truth(4);
  truth << 170, 30, 13, 4000;
  std::vector<double> ns;
  for (double n = 100; n <= 10000; n += 300) ns.push_back(n);
  nonlinear_problem p;
  p.y.resize(static_cast<Eigen::Index>(ns.size()));
  p.w.resize(p.y.size());
  for (std::size_t i = 0; i < ns.size(); ++i) {
    const double v = knee(truth, ns[i]);
    p.y(static_cast<Eigen::Index>(i)) = v * (1 + e(rng));
    p.w(static_cast<Eigen::Index>(i)) = 1 / (v * v);
  }
  p.f = [&](const Eigen::VectorXd& t, std::size_t i) { return knee(t, ns[i]); };
  p.start = Eigen::Vector4d(100, 20, 5, 2500);
  const auto s = solve_levenberg_marquardt(p);
  ASSERT_TRUE(s.converged) << s.status;
  EXPECT_NEAR(s.theta(1), 30, 0.5);
  EXPECT_NEAR(s.theta(2), 13, 1.0);
  EXPECT_NEAR(s.theta(3), 4000, 200);
  for (int j = 0; j < 4; ++j) {  // the planted value lies within 4 standard errors
    EXPECT_LE(std::abs(s.theta(j) - truth(j)), 4 * std::sqrt(s.covariance(j, j))) << j;
  }
  EXPECT_DOUBLE_EQ(s.df, static_cast<double>(ns.size()) - 4);
}

TEST(NonlinearFitTest, RejectsTooFewPoints) {
  nonlinear_problem p;
  p.y = Eigen::Vector2d(1, 2);
  p.start = Eigen::Vector3d(0, 0, 0);
  p.f = [](const Eigen::VectorXd& t, std::size_t) { return t(0); };
  EXPECT_THROW(solve_levenberg_marquardt(p), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::model
