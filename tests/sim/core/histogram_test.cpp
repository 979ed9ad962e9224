#include "sim/core/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "datasets/statistics.hpp"
#include "sim/core/random.hpp"

namespace pollscale::sim {
namespace {

TEST(LatencyHistogramTest, EmptyHistogramReportsZero) {
  latency_histogram h;
  EXPECT_EQ(h.count(), 0U);
  EXPECT_EQ(h.quantile(0.5), 0);
}

TEST(LatencyHistogramTest, QuantilesOfSmallIntegersAreWithinResolution) {
  latency_histogram h;
  for (int i = 1; i <= 100; ++i) h.add(i);
  // Type-1 quantiles of 1..100: the ceil(q n)-th value.
  EXPECT_NEAR(h.quantile(0.5), 50, 50 * latency_histogram::relative_resolution);
  EXPECT_NEAR(h.quantile(0.9), 90, 90 * latency_histogram::relative_resolution);
  EXPECT_NEAR(h.quantile(0.99), 99, 99 * latency_histogram::relative_resolution);
  EXPECT_EQ(h.quantile(0), 1);
  EXPECT_EQ(h.quantile(1), 100);
  EXPECT_EQ(h.min(), 1);
  EXPECT_EQ(h.max(), 100);
}

TEST(LatencyHistogramTest, QuantilesOfExponentialSampleMatchTheExactOnes) {
  latency_histogram h;
  std::vector<double> values;
  rng g(11);
  for (int i = 0; i < 100000; ++i) {
    const double v = exponential(g, 1e-4);
    values.push_back(v);
    h.add(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = values[static_cast<std::size_t>(std::ceil(q * 100000)) - 1];
    EXPECT_NEAR(h.quantile(q), exact, exact * latency_histogram::relative_resolution) << q;
  }
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingOnce) {
  latency_histogram a, b, all;
  for (int i = 0; i < 50; ++i) {
    a.add(i * 1e-6);
    all.add(i * 1e-6);
    b.add(i * 3e-6);
    all.add(i * 3e-6);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  for (double q : {0.1, 0.5, 0.9}) EXPECT_EQ(a.quantile(q), all.quantile(q));
  a.clear();
  EXPECT_EQ(a.count(), 0U);
}

TEST(LatencyHistogramTest, ValuesOutsideTheRangeAreClampedToTheEnds) {
  latency_histogram h;
  h.add(0);
  h.add(1e-15);
  h.add(1e9);
  EXPECT_EQ(h.count(), 3U);
  EXPECT_EQ(h.quantile(0), 0);
  EXPECT_EQ(h.quantile(1), 1e9);
}

TEST(LatencyHistogramDeathTest, RejectsNaNAndNegativeValues) {
  latency_histogram h;
  EXPECT_DEATH(h.add(std::nan("")), "invariant broken");
  EXPECT_DEATH(h.add(-1), "invariant broken");
}

}  // namespace
}  // namespace pollscale::sim
