#include "sim/core/output_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/core/accumulators.hpp"
#include "sim/core/random.hpp"
#include "sim/core/stop.hpp"

namespace pollscale::sim {
namespace {

TEST(OutputAnalysisTest, TIntervalMatchesHandComputedValue) {
  // 1..5: mean 3, s^2 = 10/4, stderr = sqrt(1/2), t_{4, 0.975} = 2.7764451051977987.
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const interval i = t_interval(v);
  EXPECT_DOUBLE_EQ(i.mean, 3);
  EXPECT_NEAR(i.half_width, 2.7764451051977987 * std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(i.lo, 3 - i.half_width, 1e-15);
  EXPECT_EQ(i.n, 5U);
  EXPECT_NEAR(i.relative_half_width(), i.half_width / 3, 1e-15);
  EXPECT_TRUE(i.contains(3));
  EXPECT_FALSE(i.contains(6));
}

TEST(OutputAnalysisTest, TIntervalOfOneValueIsUnbounded) {
  const std::vector<double> v = {7};
  EXPECT_TRUE(std::isinf(t_interval(v).half_width));
  EXPECT_TRUE(std::isinf(t_interval(v).relative_half_width()));
}

TEST(OutputAnalysisTest, BatchMeansDropsTheRemainderAtTheStart) {
  // 5 values in 2 batches of 2: the leading value is dropped, batches {1,1}, {3,3}: mean 2.
  const std::vector<double> v = {100, 1, 1, 3, 3};
  const interval i = batch_means(v, 2);
  EXPECT_DOUBLE_EQ(i.mean, 2);
  EXPECT_EQ(i.n, 2U);
}

TEST(OutputAnalysisTest, Lag1AutocorrelationOfKnownSeries) {
  // Alternating: sum of products of neighbours -4 * 1 over squares 5 * 1 -> -0.8.
  const std::vector<double> alternating = {1, -1, 1, -1, 1};
  EXPECT_NEAR(lag1_autocorrelation(alternating), -0.8, 1e-15);
  const std::vector<double> flat = {2, 2, 2, 2};
  EXPECT_EQ(lag1_autocorrelation(flat), 0);
  // An AR(1) series with coefficient 0.9 shows strong positive correlation.
  std::vector<double> ar;
  rng g(9);
  double x = 0;
  for (int i = 0; i < 5000; ++i) ar.push_back(x = 0.9 * x + uniform01(g) - 0.5);
  EXPECT_NEAR(lag1_autocorrelation(ar), 0.9, 0.03);
}

TEST(OutputAnalysisTest, Mser5RemovesAnInitialTransient) {
  // 100 observations far above the steady level, then 900 noisy steady ones.
  std::vector<double> v;
  rng g(3);
  for (int i = 0; i < 100; ++i) v.push_back(50.0 - 0.4 * i);
  for (int i = 0; i < 900; ++i) v.push_back(10.0 + uniform01(g));
  const std::size_t d = mser5_truncation(v);
  EXPECT_EQ(d % 5, 0U);
  EXPECT_GE(d, 95U);
  EXPECT_LE(d, 150U);
}

TEST(OutputAnalysisTest, Mser5KeepsAStationarySeries) {
  std::vector<double> v;
  rng g(4);
  for (int i = 0; i < 1000; ++i) v.push_back(uniform01(g));
  EXPECT_LE(mser5_truncation(v), 100U);
}

TEST(OutputAnalysisTest, ReplicateStopsOnceTheIntervalIsTightEnough) {
  rng g(5);
  const stopping_rule rule{0.03, 5, 1000, 0.95};
  // Values 10 +- uniform noise: half-width falls below 0.3 after a few dozen runs.
  const replication_run run = replicate(rule, [&](std::size_t) { return 10 + 2 * (uniform01(g) - 0.5); });
  EXPECT_TRUE(run.converged);
  EXPECT_LE(run.estimate.relative_half_width(), 0.03);
  EXPECT_GE(run.values.size(), 5U);
  EXPECT_LT(run.values.size(), 1000U);
}

TEST(OutputAnalysisTest, ReplicateGivesUpAtTheMaximum) {
  rng g(6);
  const stopping_rule rule{1e-6, 2, 7, 0.95};
  const replication_run run = replicate(rule, [&](std::size_t) { return uniform01(g); });
  EXPECT_FALSE(run.converged);
  EXPECT_EQ(run.values.size(), 7U);
}

TEST(OutputAnalysisTest, AStoppedReplicationEndsTheRunWithTheCompletedOnes) {
  const stopping_rule rule{1e-9, 2, 100, 0.95};
  const replication_run run = replicate(rule, [](std::size_t i) {
    if (i == 3) throw stopped();
    return 10.0 + static_cast<double>(i);
  });
  EXPECT_TRUE(run.stopped);
  EXPECT_FALSE(run.converged);
  ASSERT_EQ(run.values.size(), 3U);
  EXPECT_DOUBLE_EQ(run.estimate.mean, 11.0);  // the interval of the three completed
  // Stopped before one was complete: nothing to report, the stop goes on up.
  EXPECT_THROW(replicate(rule, [](std::size_t) -> double { throw stopped(); }), stopped);
}

TEST(OutputAnalysisTest, PredictionIntervalIsWiderByTheRootOfOnePlusN) {
  // 1..5: s = sqrt(2.5); one more value lies within 3 +- t_{4, 0.975} * s * sqrt(1 + 1/5).
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const interval p = prediction_interval(v);
  EXPECT_DOUBLE_EQ(p.mean, 3);
  EXPECT_NEAR(p.half_width, 2.7764451051977987 * std::sqrt(2.5 * 1.2), 1e-12);
  EXPECT_NEAR(p.half_width, t_interval(v).half_width * std::sqrt(6.0), 1e-12);
  EXPECT_TRUE(std::isinf(prediction_interval(std::vector<double>{7}).half_width));
}

// What the interval promises: a fresh value from the same law falls inside 95% of the time
// (normal values, 20 per interval as a drawn simulation has, 4000 intervals).
TEST(OutputAnalysisTest, PredictionIntervalHoldsTheNextValueNinetyFivePercentOfTheTime) {
  rng g(17);
  auto normal = [&] { return standard_normal(g); };
  int inside = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(20);
    for (double& x : v) x = 10 + normal();
    inside += prediction_interval(v).contains(10 + normal()) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(inside) / trials, 0.95, 0.012);
}

// Values from two states of the machine (a far placement of the CPUs 0.3 above the usual
// one on the log scale, a fifth of the draws): a fresh value drawn the same way — its state
// by chance, then its scatter — falls inside the stratified interval about 95% of the time,
// which is narrower than the plain one, symmetric about the mean, and yet holds fewer; its
// centre is the mean of the state most values met. One stratum is the plain interval exactly.
TEST(OutputAnalysisTest, StratifiedPredictionIntervalHoldsAMixtureOfStates) {
  rng g(23);
  auto draw = [&](int& state) {
    state = uniform01(g) < 0.2 ? 1 : 0;
    return 0.3 * state + 0.04 * standard_normal(g);
  };
  int inside = 0, plain_inside = 0;
  double width = 0, plain_width = 0;
  const int trials = 1500;  // coverage se 0.006
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(40);
    std::vector<int> strata(40);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = draw(strata[i]);
    int state = 0;
    const double next = draw(state);
    const interval s = stratified_prediction_interval(v, strata), p = prediction_interval(v);
    inside += s.contains(next) ? 1 : 0;
    plain_inside += p.contains(next) ? 1 : 0;
    width += s.hi - s.lo;
    plain_width += p.hi - p.lo;
    double usual = 0, count = 0, far = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      far += strata[i];
      if (strata[i] == 0) {
        usual += v[i];
        ++count;
      }
    }
    if (far < 20) {
      ASSERT_NEAR(s.mean, usual / count, 1e-12);  // the centre: the state most values met
    }
  }
  EXPECT_NEAR(static_cast<double>(inside) / trials, 0.95, 0.015);
  EXPECT_LT(width, 0.9 * plain_width);
  EXPECT_LT(plain_inside, inside);  // wider, and still short of the far state's upper side

  const std::vector<double> v = {1, 2, 3, 4, 5};
  const std::vector<int> one(5, 0);
  const interval a = stratified_prediction_interval(v, one), b = prediction_interval(v);
  EXPECT_DOUBLE_EQ(a.lo, b.lo);
  EXPECT_DOUBLE_EQ(a.hi, b.hi);
  // Every value its own stratum: no degree of freedom left, the plain interval again.
  const interval c = stratified_prediction_interval(v, std::vector<int>{0, 1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(c.hi, b.hi);
  // Two states with no scatter within either: the interval lands on them.
  const interval d =
      stratified_prediction_interval(std::vector<double>{1, 1, 1, 2, 2, 2}, std::vector<int>{0, 0, 0, 1, 1, 1});
  EXPECT_NEAR(d.lo, 1, 1e-9);
  EXPECT_NEAR(d.hi, 2, 1e-9);
}

// Draws of uncertain inputs: their spread does not shrink, so the run stops at the count the
// rule names, converged, however wide the values scatter.
TEST(OutputAnalysisTest, ReplicateStopsAtTheSpreadCountForDraws) {
  rng g(8);
  stopping_rule rule{0.03, 5, 100, 0.95};
  rule.spread_replications = 20;
  const replication_run run = replicate(rule, [&](std::size_t) { return 10 * uniform01(g); });
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.values.size(), 20U);
}

TEST(OutputAnalysisTest, ReplicateRejectsABadRule) {
  auto one = [](std::size_t) { return 1.0; };
  EXPECT_THROW(replicate({0.03, 1, 10, 0.95}, one), std::invalid_argument);
  EXPECT_THROW(replicate({0.03, 5, 4, 0.95}, one), std::invalid_argument);
  EXPECT_THROW(replicate({std::nan(""), 5, 10, 0.95}, one), std::invalid_argument);
}

TEST(AccumulatorsTest, RunningStatsMatchesTheTwoPassFormulas) {
  running_stats s;
  for (double x : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) s.add(x);
  EXPECT_EQ(s.count(), 8U);
  EXPECT_DOUBLE_EQ(s.mean(), 5);
  EXPECT_DOUBLE_EQ(s.variance(), 32.0 / 7);
  EXPECT_EQ(s.min(), 2);
  EXPECT_EQ(s.max(), 9);
}

TEST(AccumulatorsTest, TimeWeightedAverageOfAStepFunction) {
  // Value 0 on [0,2), 3 on [2,3), 1 on [3,6): area 0 + 3 + 3 = 6 over 6 s.
  time_weighted w;
  w.reset(0);
  w.set(2, 3);
  w.add(3, -2);
  EXPECT_DOUBLE_EQ(w.mean(6), 1.0);
  EXPECT_DOUBLE_EQ(w.value(), 1.0);
  w.reset(6);  // keeps the value: average over [6, 8] is 1
  EXPECT_DOUBLE_EQ(w.mean(8), 1.0);
}

}  // namespace
}  // namespace pollscale::sim
