#include "model/linear_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pollscale::model {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// y = 150 + 30 n with relative Gaussian noise, on a log-spaced grid of n.
linear_problem planted_line(std::uint64_t seed, double noise, std::size_t points = 12) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> e(0.0, noise);
  linear_problem p;
  p.x.resize(static_cast<Eigen::Index>(points), 2);
  p.y.resize(static_cast<Eigen::Index>(points));
  for (std::size_t i = 0; i < points; ++i) {
    const double n = std::round(std::pow(10.0, 3.0 * static_cast<double>(i) / static_cast<double>(points - 1)));
    const auto r = static_cast<Eigen::Index>(i);
    p.x(r, 0) = 1;
    p.x(r, 1) = n;
    p.y(r) = (150 + 30 * n) * (1 + e(rng));
  }
  p.nonneg = {true, true};
  return p;
}

TEST(LinearFitTest, RecoversPlantedLineWithRelativeWeights) {
  const auto s = solve_robust(planted_line(1, 0.01), {.relative = true, .huber = false});
  EXPECT_NEAR(s.beta(0), 150, 150 * 0.05);
  EXPECT_NEAR(s.beta(1), 30, 30 * 0.01);
  EXPECT_DOUBLE_EQ(s.df, 10);
  EXPECT_NEAR(std::sqrt(s.sigma2), 0.01, 0.006);  // the planted relative spread
}

TEST(LinearFitTest, CoefficientIntervalsCoverThePlantedValueAtLeast90PercentOfTheTime) {
  int covered_fixed = 0, covered_slope = 0;
  const int replications = 300;
  for (int r = 0; r < replications; ++r) {
    const auto s =
        solve_robust(planted_line(1000 + static_cast<std::uint64_t>(r), 0.02), {.relative = true, .huber = false});
    const double t = t975(s.df);
    covered_fixed += std::abs(s.beta(0) - 150) <= t * std::sqrt(s.covariance(0, 0));
    covered_slope += std::abs(s.beta(1) - 30) <= t * std::sqrt(s.covariance(1, 1));
  }
  EXPECT_GE(covered_fixed, replications * 90 / 100);
  EXPECT_GE(covered_slope, replications * 90 / 100);
  EXPECT_LE(covered_slope, replications);  // sanity: counts are counts
}

TEST(LinearFitTest, NonNegativeFitMatchesBestFeasibleSubset) {
  // A decreasing response: unconstrained LS gives a negative slope; NNLS must hold it at
  // zero and be the best fit among all feasible subsets of columns.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  linear_problem p;
  p.x.resize(20, 3);
  p.y.resize(20);
  for (Eigen::Index i = 0; i < 20; ++i) {
    p.x(i, 0) = 1;
    p.x(i, 1) = static_cast<double>(i);
    p.x(i, 2) = u(rng);
    p.y(i) = 100 - 2 * static_cast<double>(i) + 5 * p.x(i, 2) + u(rng);
  }
  p.nonneg = {true, true, true};
  const auto s = solve_linear(p);
  EXPECT_TRUE(s.at_bound[1]);
  EXPECT_EQ(s.beta(1), 0);
  EXPECT_GE(s.beta.minCoeff(), 0);
  double best = 1e300;
  for (int mask = 1; mask < 8; ++mask) {
    std::vector<Eigen::Index> cols;
    for (int j = 0; j < 3; ++j)
      if (mask & (1 << j)) cols.push_back(j);
    const MatrixXd sub = p.x(Eigen::all, cols);
    const VectorXd z = sub.colPivHouseholderQr().solve(p.y);
    if (z.minCoeff() < 0) continue;
    best = std::min(best, (p.y - sub * z).squaredNorm());
  }
  EXPECT_NEAR((p.y - s.fitted).squaredNorm(), best, 1e-9 * best);
}

TEST(LinearFitTest, HuberResistsOutliersThatPullPlainLeastSquares) {
  auto p = planted_line(3, 0.005, 16);
  p.y(5) *= 1.8;  // two wild points, as from a noisy neighbour on a shared machine
  p.y(11) *= 0.5;
  const auto plain = solve_robust(p, {.relative = true, .huber = false});
  const auto robust = solve_robust(p, {.relative = true, .huber = true});
  EXPECT_NEAR(robust.beta(1), 30, 30 * 0.01);
  EXPECT_NEAR(robust.beta(0), 150, 150 * 0.05);
  EXPECT_GT(std::abs(plain.beta(0) - 150) + 5 * std::abs(plain.beta(1) - 30),
            std::abs(robust.beta(0) - 150) + 5 * std::abs(robust.beta(1) - 30));
  EXPECT_LT(robust.weights(5) / plain.weights(5), 0.5);
}

TEST(LinearFitTest, PriorSetsACoefficientTheDataCannotSee) {
  auto p = planted_line(4, 0.01);
  p.x.conservativeResize(Eigen::NoChange, 3);
  p.x.col(2).setZero();  // a term that is zero on every measured point
  p.nonneg = {true, true, true};
  EXPECT_FALSE(identifiable(p.x, {}));
  p.priors = {{2, 2.0, 0.5}};
  EXPECT_TRUE(identifiable(p.x, p.priors));
  const auto s = solve_linear(p);
  EXPECT_NEAR(s.beta(2), 2.0, 1e-9);
  EXPECT_NEAR(std::sqrt(s.covariance(2, 2)), 0.5, 1e-9);
  EXPECT_NEAR(s.df, 10, 1e-9);  // the prior adds no effective parameter
}

TEST(LinearFitTest, RejectsMalformedProblems) {
  auto p = planted_line(5, 0.01);
  p.y(3) = std::nan("");
  EXPECT_THROW(solve_linear(p), std::invalid_argument);
  p = planted_line(5, 0.01);
  p.x.col(1).setConstant(7);  // collinear with the fixed column
  EXPECT_THROW(solve_linear(p), std::invalid_argument);
  p = planted_line(5, 0.01);
  p.w = VectorXd::Constant(p.y.size(), -1);
  EXPECT_THROW(solve_linear(p), std::invalid_argument);
}

TEST(LinearFitTest, StudentQuantileMatchesTables) {
  EXPECT_NEAR(t975(10), 2.228, 1e-3);
  EXPECT_NEAR(t975(1), 12.706, 1e-3);
  EXPECT_TRUE(std::isnan(t975(0)));
  EXPECT_TRUE(std::isnan(t975(1e-6)));  // a fraction of a degree of freedom: no interval
}

}  // namespace
}  // namespace pollscale::model
