#include "datasets/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace pollscale::datasets {
namespace {

TEST(StatisticsTest, SummariseHandCheckedVector) {
  // 2 4 4 4 5 5 7 9: mean 5, sum of squares 32, sample variance 32/7.
  const std::vector<double> v = {9, 4, 2, 4, 5, 4, 7, 5};
  const summary s = summarise(v);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(s.stderr_mean, std::sqrt(32.0 / 7.0) / std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  // n = 8: P(B<=0) = 1/256, coverage 0.992; P(B<=1) = 9/256, coverage 0.930 < 0.95.
  EXPECT_DOUBLE_EQ(s.ci95_lo, 2.0);
  EXPECT_DOUBLE_EQ(s.ci95_hi, 9.0);
}

TEST(StatisticsTest, MedianOddAndEven) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{7}), 7.0);
}

TEST(StatisticsTest, QuantileMatchesType7) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 10.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 5.5);
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 9.1);    // R: quantile(1:10, 0.9) = 9.1
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 3.25);  // R: 3.25
}

TEST(StatisticsTest, MedianIntervalRanksMatchBinomialTables) {
  // Classic table of distribution-free median intervals (e.g. Conover): for n = 20 the
  // 95% interval is x(6)..x(15) (1-based), coverage 0.9586; n = 100: x(40)..x(61).
  EXPECT_EQ(median_ci_ranks(20, 0.95), (std::pair<std::size_t, std::size_t>{5, 14}));
  EXPECT_EQ(median_ci_ranks(100, 0.95), (std::pair<std::size_t, std::size_t>{39, 60}));
  // n = 6 is the smallest sample with a 95% interval: min..max, coverage 1 - 2/64.
  EXPECT_EQ(median_ci_ranks(6, 0.95), (std::pair<std::size_t, std::size_t>{0, 5}));
  EXPECT_EQ(median_ci_ranks(3, 0.95), (std::pair<std::size_t, std::size_t>{0, 2}));
}

// Counts may be 0 in a visit (no log scale): the interval spans the visits and stays finite.
TEST(StatisticsTest, VisitsOfACountThatIsZeroInSomeSpanTheirMedians) {
  const std::vector<std::vector<double>> visits = {
      {0, 0, 0, 0, 0, 0}, {0.02, 0.03, 0.02, 0.03, 0.02, 0.03}, {0, 0, 0, 0, 0, 0}};
  const summary s = summarise_visits(visits);
  EXPECT_EQ(s.median, 0.0);
  EXPECT_EQ(s.ci95_lo, 0.0);
  EXPECT_GE(s.ci95_hi, 0.02);
  EXPECT_LE(s.ci95_hi, 0.03);
  EXPECT_TRUE(std::isfinite(s.ci95_hi));
  const std::vector<std::vector<double>> never = {std::vector<double>(6, 0.0), std::vector<double>(6, 0.0)};
  const summary z = summarise_visits(never);
  EXPECT_EQ(z.median, 0.0);
  EXPECT_EQ(z.ci95_hi, 0.0);
}

TEST(StatisticsTest, RelativeHalfWidthNeedsSixSamplesAndPositiveMedian) {
  EXPECT_TRUE(std::isinf(relative_median_halfwidth(summarise(std::vector<double>{1, 1, 1}))));
  // A count that never happened is known exactly; one that happened in a few samples is not.
  EXPECT_EQ(relative_median_halfwidth(summarise(std::vector<double>(10, 0.0))), 0.0);
  EXPECT_TRUE(std::isinf(relative_median_halfwidth(summarise(std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 0.5, 1}))));
  // n = 10: the interval is x(2)..x(9) (1-based), here 99..101 around a median of 100.
  const std::vector<double> v = {98, 99, 100, 100, 100, 100, 100, 100, 101, 102};
  EXPECT_NEAR(relative_median_halfwidth(summarise(v)), 0.01, 1e-12);
}

TEST(StatisticsTest, OneVisitIsThePooledSummary) {
  const std::vector<std::vector<double>> one = {{9, 4, 2, 4, 5, 4, 7, 5}};
  const summary a = summarise_visits(one), b = summarise(one[0]);
  EXPECT_DOUBLE_EQ(a.median, b.median);
  EXPECT_DOUBLE_EQ(a.ci95_lo, b.ci95_lo);
  EXPECT_DOUBLE_EQ(a.ci95_hi, b.ci95_hi);
  // Empty visits are ignored.
  const std::vector<std::vector<double>> with_empty = {{}, {9, 4, 2, 4, 5, 4, 7, 5}, {}};
  EXPECT_DOUBLE_EQ(summarise_visits(with_empty).median, b.median);
}

TEST(StatisticsTest, VisitsThatDisagreeWidenTheInterval) {
  // Three visits, each tight (±0.1%) but at 100, 130 and 105: the batches alone would give
  // a narrow interval; the visits say "measured again, anything from ~100 to ~130".
  std::vector<std::vector<double>> visits;
  for (double level : {100.0, 130.0, 105.0}) {
    std::vector<double> v;
    for (int i = 0; i < 11; ++i) v.push_back(level * (1 + 0.001 * (i - 5) / 5));
    visits.push_back(v);
  }
  const summary s = summarise_visits(visits);
  EXPECT_DOUBLE_EQ(s.median, 105.0);  // the median of the visit medians
  EXPECT_EQ(s.n, 33u);                // the pooled samples
  EXPECT_DOUBLE_EQ(s.min, 99.9);
  EXPECT_DOUBLE_EQ(s.max, 130.13);
  // t(2) = 4.303 on sd(log) of the three medians / sqrt(3): a factor of about 1.4, clamped
  // into [min, max].
  EXPECT_LT(s.ci95_lo, 101.0);
  EXPECT_GE(s.ci95_lo, s.min);
  EXPECT_DOUBLE_EQ(s.ci95_hi, s.max);
  const summary pooled = summarise(std::vector<double>(visits[0]));
  EXPECT_GT(relative_median_halfwidth(s), 10 * relative_median_halfwidth(pooled));
}

// The named statistic behind every visits' interval (the summary's, a one-point cell's, a
// scaling law's): checked by hand on three visit medians, and 0 where it cannot be said.
TEST(StatisticsTest, VisitMedianLogStandardErrorByHand) {
  const std::vector<double> medians = {100, 130, 105};
  const double l0 = std::log(100.0), l1 = std::log(130.0), l2 = std::log(105.0);
  const double mean = (l0 + l1 + l2) / 3;
  const double sd = std::sqrt(((l0 - mean) * (l0 - mean) + (l1 - mean) * (l1 - mean) + (l2 - mean) * (l2 - mean)) / 2);
  EXPECT_NEAR(visit_median_log_se(medians), std::sqrt(std::acos(-1.0) / 2) * sd / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(visit_median_log_se(medians), 0.101, 0.0005);  // about 10%: visits 30% apart
  EXPECT_EQ(visit_median_log_se(std::vector<double>{100, 100, 100}), 0);
  EXPECT_EQ(visit_median_log_se(std::vector<double>{100}), 0);
  EXPECT_EQ(visit_median_log_se(std::vector<double>{100, 0, 105}), 0);
  EXPECT_EQ(visit_median_log_se(std::vector<double>{100, std::nan(""), 105}), 0);
  EXPECT_EQ(visit_median_log_se(std::vector<double>{}), 0);
}

TEST(StatisticsTest, VisitsThatAgreeKeepThePooledFloor) {
  // Identical visits: the between-visit spread is zero, the batches' own interval remains.
  std::vector<double> v;
  for (int i = 0; i < 15; ++i) v.push_back(200 + i);
  const std::vector<std::vector<double>> visits = {v, v, v};
  const summary s = summarise_visits(visits);
  std::vector<double> all;
  for (int r = 0; r < 3; ++r) all.insert(all.end(), v.begin(), v.end());
  const summary pooled = summarise(all);
  EXPECT_DOUBLE_EQ(s.median, 207.0);
  EXPECT_DOUBLE_EQ(s.ci95_lo, pooled.ci95_lo);
  EXPECT_DOUBLE_EQ(s.ci95_hi, pooled.ci95_hi);
}

TEST(StatisticsTest, VisitIntervalsCoverAPlantedMedianAboutNinetyFivePercent) {
  // Each visit meets the machine in a random state (log-normal level, sd 0.15) and takes
  // 11 tight batches there; the true typical cost is 1000. Over 2000 planted points of 5
  // visits the 95% interval must hold 1000 about 95% of the time: not 70% (batches alone),
  // not 100% (useless). The median of five visit medians is not the mean of their logs, so
  // allow 91-99%.
  std::mt19937_64 rng(42);
  std::normal_distribution<double> level(0.0, 0.15), batch(0.0, 0.002);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<std::vector<double>> visits(5);
    for (auto& v : visits) {
      const double l = 1000 * std::exp(level(rng));
      for (int i = 0; i < 11; ++i) v.push_back(l * (1 + batch(rng)));
    }
    const summary s = summarise_visits(visits);
    covered += (s.ci95_lo <= 1000 && 1000 <= s.ci95_hi) ? 1 : 0;
  }
  EXPECT_GT(covered, trials * 91 / 100);
  EXPECT_LT(covered, trials * 99 / 100);
}

}  // namespace
}  // namespace pollscale::datasets
