#include "datasets/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(StatisticsTest, RelativeHalfWidthNeedsSixSamplesAndPositiveMedian) {
  EXPECT_TRUE(std::isinf(relative_median_halfwidth(summarise(std::vector<double>{1, 1, 1}))));
  EXPECT_TRUE(std::isinf(relative_median_halfwidth(summarise(std::vector<double>(10, 0.0)))));
  // n = 10: the interval is x(2)..x(9) (1-based), here 99..101 around a median of 100.
  const std::vector<double> v = {98, 99, 100, 100, 100, 100, 100, 100, 101, 102};
  EXPECT_NEAR(relative_median_halfwidth(summarise(v)), 0.01, 1e-12);
}

}  // namespace
}  // namespace pollscale::datasets
