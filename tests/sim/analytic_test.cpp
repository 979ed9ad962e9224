#include "sim/analytic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace pollscale::sim::analytic {
namespace {

constexpr double tol = 1e-12;

// Hand-checked values: each comment gives the arithmetic.
TEST(AnalyticTest, MM1MatchesHandComputedValues) {
  // lambda 1, mu 2: rho 1/2, W = 1/(2-1), Wq = rho W, L = rho/(1-rho), Lq = rho^2/(1-rho).
  const queue_metrics m = mm1(1, 2);
  EXPECT_NEAR(m.utilisation, 0.5, tol);
  EXPECT_NEAR(m.mean_response_s, 1.0, tol);
  EXPECT_NEAR(m.mean_wait_s, 0.5, tol);
  EXPECT_NEAR(m.mean_in_system, 1.0, tol);
  EXPECT_NEAR(m.mean_in_queue, 0.5, tol);
  // lambda 3, mu 4: W = 1, Wq = 3/4, L = 3, Lq = 9/4.
  const queue_metrics n = mm1(3, 4);
  EXPECT_NEAR(n.mean_response_s, 1.0, tol);
  EXPECT_NEAR(n.mean_wait_s, 0.75, tol);
  EXPECT_NEAR(n.mean_in_system, 3.0, tol);
  EXPECT_NEAR(n.mean_in_queue, 2.25, tol);
  EXPECT_NEAR(n.throughput, 3.0, tol);
}

TEST(AnalyticTest, MM1ResponseQuantileIsTheExponentialOne) {
  // Response ~ Exp(mu - lambda = 1): median ln 2, p99 ln 100.
  EXPECT_NEAR(mm1_response_quantile(1, 2, 0.5), 0.69314718055994531, tol);
  EXPECT_NEAR(mm1_response_quantile(1, 2, 0.99), 4.6051701859880914, tol);
  EXPECT_NEAR(mm1_response_quantile(1, 3, 0.0), 0.0, tol);
}

TEST(AnalyticTest, ErlangBAndCMatchHandComputedValues) {
  // B(1,1) = 1/2, B(2,1) = (1/2)/(2+1/2) = 1/5; C(2,1) = (1/5)/(1 - (1/2)(4/5)) = 1/3.
  EXPECT_NEAR(erlang_b(2, 1), 0.2, tol);
  EXPECT_NEAR(erlang_c(2, 1), 1.0 / 3, tol);
  // c 3, a 2: B = 2/3, 2/5, 4/19; C = (4/19)/(1 - (2/3)(15/19)) = 4/9.
  EXPECT_NEAR(erlang_b(3, 2), 4.0 / 19, tol);
  EXPECT_NEAR(erlang_c(3, 2), 4.0 / 9, tol);
  // One server: C equals the utilisation.
  EXPECT_NEAR(erlang_c(1, 0.5), 0.5, tol);
}

TEST(AnalyticTest, MMcMatchesHandComputedValues) {
  // lambda 1, mu 1, c 2: Wq = C/(c mu - lambda) = 1/3, W = 4/3, Lq = 1/3, L = 4/3.
  const queue_metrics m = mmc(1, 1, 2);
  EXPECT_NEAR(m.p_wait, 1.0 / 3, tol);
  EXPECT_NEAR(m.mean_wait_s, 1.0 / 3, tol);
  EXPECT_NEAR(m.mean_response_s, 4.0 / 3, tol);
  EXPECT_NEAR(m.mean_in_queue, 1.0 / 3, tol);
  EXPECT_NEAR(m.mean_in_system, 4.0 / 3, tol);
  EXPECT_NEAR(m.utilisation, 0.5, tol);
  // c = 1 reduces to M/M/1.
  const queue_metrics one = mmc(1, 2, 1);
  EXPECT_NEAR(one.mean_response_s, mm1(1, 2).mean_response_s, tol);
}

TEST(AnalyticTest, MD1AndMG1MatchHandComputedValues) {
  // M/D/1, lambda 1/2, S 1: Wq = rho/(2 mu (1-rho)) = 1/2, W = 3/2, L = 3/4, Lq = 1/4.
  const queue_metrics d = md1(0.5, 1);
  EXPECT_NEAR(d.mean_wait_s, 0.5, tol);
  EXPECT_NEAR(d.mean_response_s, 1.5, tol);
  EXPECT_NEAR(d.mean_in_system, 0.75, tol);
  EXPECT_NEAR(d.mean_in_queue, 0.25, tol);
  // M/G/1 with exponential moments (E[S] 1/2, E[S^2] 2/4) is M/M/1 with mu 2.
  const queue_metrics g = mg1(1, 0.5, 0.5);
  EXPECT_NEAR(g.mean_wait_s, mm1(1, 2).mean_wait_s, tol);
  EXPECT_NEAR(g.mean_response_s, 1.0, tol);
  // Uniform(0,2) service, lambda 1/4: E[S] 1, E[S^2] 4/3, rho 1/4,
  // Wq = (1/4)(4/3) / (2 (3/4)) = 2/9.
  EXPECT_NEAR(mg1(0.25, 1, 4.0 / 3).mean_wait_s, 2.0 / 9, tol);
}

TEST(AnalyticTest, MachineRepairmanMatchesHandComputedValues) {
  // N 2, c 1, think 1, service 1: p = (1, 2, 2)/5; L = 6/5, X = 4/5, W = 3/2,
  // Lq = 2/5, Wq = 1/2; an arrival sees N-1 = 1 customer's chain (1, 1)/2: waits w.p. 1/2.
  const queue_metrics m = machine_repairman(2, 1, 1, 1);
  EXPECT_NEAR(m.mean_in_system, 1.2, tol);
  EXPECT_NEAR(m.throughput, 0.8, tol);
  EXPECT_NEAR(m.mean_response_s, 1.5, tol);
  EXPECT_NEAR(m.mean_in_queue, 0.4, tol);
  EXPECT_NEAR(m.mean_wait_s, 0.5, tol);
  EXPECT_NEAR(m.p_wait, 0.5, tol);
  EXPECT_NEAR(m.utilisation, 0.8, tol);
  // N 3, c 2, think 2, service 1: ratios 3/2, 1/2, 1/4 -> p = (16, 24, 12, 3)/55;
  // L = 57/55, busy = 54/55 = X, W = 57/54, Lq = 3/55, Wq = 1/18.
  const queue_metrics n = machine_repairman(3, 2, 1, 2);
  EXPECT_NEAR(n.mean_in_system, 57.0 / 55, tol);
  EXPECT_NEAR(n.throughput, 54.0 / 55, tol);
  EXPECT_NEAR(n.mean_response_s, 57.0 / 54, tol);
  EXPECT_NEAR(n.mean_wait_s, 1.0 / 18, tol);
  EXPECT_NEAR(n.utilisation, 27.0 / 55, tol);
}

TEST(AnalyticTest, MachineRepairmanSatisfiesTheResponseTimeLawForLargePopulations) {
  // Interactive response time law: W = N/X - Z, whatever N (no overflow at N = 100000).
  // Far beyond the saturation point N* = (Z + S)/S = 10001 the server never idles.
  const queue_metrics m = machine_repairman(100000, 1.0, 1e-4, 1);
  EXPECT_NEAR(m.mean_response_s, 100000 / m.throughput - 1.0, 1e-9);
  EXPECT_NEAR(m.utilisation, 1.0, 1e-12);
  EXPECT_NEAR(m.mean_response_s, 100000 * 1e-4 - 1.0, 1e-9);
}

TEST(AnalyticTest, RejectsBadParameters) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(mm1(2, 2), std::invalid_argument);  // rho = 1
  EXPECT_THROW(mm1(nan, 2), std::invalid_argument);
  EXPECT_THROW(mm1(-1, 2), std::invalid_argument);
  EXPECT_THROW(mmc(3, 1, 2), std::invalid_argument);
  EXPECT_THROW(mmc(1, 1, 0), std::invalid_argument);
  EXPECT_THROW(mg1(1, 0.5, 0.1), std::invalid_argument);  // E[S^2] < E[S]^2
  EXPECT_THROW(md1(1, std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(machine_repairman(0, 1, 1), std::invalid_argument);
  EXPECT_THROW(mm1_response_quantile(1, 2, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::sim::analytic
