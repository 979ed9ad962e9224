#include "datasets/call_spread.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "datasets/vocabulary.hpp"

namespace pollscale::datasets {
namespace {

key spread_key(metric m, std::int64_t n) {
  key k;
  k.scenario = text(scenario::call_spread);
  k.mechanism = m == metric::time_per_call ? text(mechanism::poll) : "";
  k.fd_kind = m == metric::time_per_call ? "pipe" : "tcp";
  if (m == metric::time_per_call) k.n_fds = n;
  k.metric = text(m);
  k.unit = "us";
  return k;
}

// Visits at different speeds (2 µs, 3 µs, 2.5 µs means), each call log-normal with sd 0.3
// around its visit's mean: the shape must be the log-normal's, whatever the visits' speeds.
std::vector<sample_row> planted_calls(const key& k, std::size_t per_visit, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<sample_row> rows;
  const double visit_means[] = {2.0, 3.0, 2.5};
  for (std::int64_t v = 0; v < 3; ++v)
    for (std::size_t i = 0; i < per_visit; ++i) {
      sample_row r;
      r.k = k;
      r.value = visit_means[v] * std::exp(0.3 * z(g) - 0.045);  // mean exp(-0.045 + 0.09/2) = 1
      r.visit = v;
      r.rep = static_cast<std::int64_t>(i);
      rows.push_back(r);
    }
  return rows;
}

TEST(CallSpreadTest, RecoversAPlantedShapeWhateverTheVisitsSpeeds) {
  const auto rows = planted_calls(spread_key(metric::time_per_call, 256), 20000, 1);
  const auto s = estimate_call_spread(rows);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->wait_calls.size(), 1U);
  EXPECT_TRUE(s->handlers.empty());
  const spread_shape& w = s->wait_calls[0];
  EXPECT_EQ(w.samples, 60000U);
  EXPECT_EQ(w.visits, 3U);
  EXPECT_NEAR(w.mean_ns, 2500, 15);  // the visits' means 2, 3, 2.5 µs in us, kept in ns
  // Quantiles of exp(0.3 z - 0.045): z = -2.326 at 1%, 0 at 50%, 2.326 at 99%.
  EXPECT_NEAR(w.ratio_at(0.01), std::exp(-0.3 * 2.3263 - 0.045), 0.01);
  EXPECT_NEAR(w.ratio_at(0.5), std::exp(-0.045), 0.01);
  EXPECT_NEAR(w.ratio_at(0.99), std::exp(0.3 * 2.3263 - 0.045), 0.03);
  EXPECT_NEAR(w.mean_ratio(), 1.0, 0.02);
  EXPECT_TRUE(shape_problem(w).empty());
}

TEST(CallSpreadTest, IgnoresBatchesOtherScenariosAndShortPoints) {
  auto rows = planted_calls(spread_key(metric::time_per_op, 0), 1000, 2);  // the handler
  auto few = planted_calls(spread_key(metric::time_per_call, 16), spread_min_samples / 3 - 1, 3);
  rows.insert(rows.end(), few.begin(), few.end());
  auto batched = planted_calls(spread_key(metric::time_per_call, 4096), 1000, 4);
  for (auto& r : batched) r.batch = 100;
  rows.insert(rows.end(), batched.begin(), batched.end());
  auto other = planted_calls(spread_key(metric::time_per_call, 1024), 1000, 5);
  for (auto& r : other) r.k.scenario = text(scenario::find_active);
  rows.insert(rows.end(), other.begin(), other.end());
  rows.front().value = std::nan("");
  rows[1].value = -1;
  const auto s = estimate_call_spread(rows);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->wait_calls.empty());
  ASSERT_EQ(s->handlers.size(), 1U);
  EXPECT_EQ(s->handlers[0].samples, 2998U);
  EXPECT_FALSE(estimate_call_spread(few));
  EXPECT_FALSE(estimate_call_spread({}));
}

TEST(CallSpreadTest, ShapesAreKeptInOrderOfLengthAndBlendedBetween) {
  auto rows = planted_calls(spread_key(metric::time_per_call, 4096), 1000, 6);
  for (auto& r : rows) r.value *= 40;  // a 100-µs call
  const auto short_calls = planted_calls(spread_key(metric::time_per_call, 16), 1000, 7);
  rows.insert(rows.end(), short_calls.begin(), short_calls.end());
  const auto s = estimate_call_spread(rows);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->wait_calls.size(), 2U);
  EXPECT_LT(s->wait_calls[0].mean_ns, s->wait_calls[1].mean_ns);
  const auto& a = s->wait_calls[0];
  const auto& b = s->wait_calls[1];
  const double middle = std::sqrt(a.mean_ns * b.mean_ns);
  const spread_shape m = shape_for_mean(s->wait_calls, middle);
  EXPECT_DOUBLE_EQ(m.mean_ns, middle);
  for (std::size_t i = 0; i < m.ratios.size(); ++i) EXPECT_NEAR(m.ratios[i], (a.ratios[i] + b.ratios[i]) / 2, 1e-12);
  EXPECT_EQ(shape_for_mean(s->wait_calls, 1).ratios, a.ratios);
  EXPECT_EQ(shape_for_mean(s->wait_calls, 1e12).ratios, b.ratios);
}

TEST(CallSpreadTest, WakeUpRoundTripsAreSortedByPlacement) {
  auto same = spread_key(metric::round_trip, 1);
  same.cpus = 1;
  auto cross = same;
  cross.cpus = 2;
  auto rows = planted_calls(same, 500, 8);
  const auto other = planted_calls(cross, 500, 9);
  rows.insert(rows.end(), other.begin(), other.end());
  const auto s = estimate_call_spread(rows);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->wakeups_same_cpu.size(), 1U);
  EXPECT_EQ(s->wakeups_cross_cpu.size(), 1U);
  EXPECT_TRUE(s->wait_calls.empty());
  EXPECT_TRUE(s->handlers.empty());
}

TEST(CallSpreadTest, QuantileFunctionIsLinearBetweenKnots) {
  spread_shape s;
  s.mean_ns = 1;
  for (std::size_t i = 0; i < s.ratios.size(); ++i) s.ratios[i] = 1 + spread_probabilities[i];  // uniform on [1, 2]
  EXPECT_DOUBLE_EQ(s.ratio_at(0), 1);
  EXPECT_DOUBLE_EQ(s.ratio_at(1), 2);
  EXPECT_NEAR(s.ratio_at(0.3), 1.3, 1e-12);
  EXPECT_NEAR(s.ratio_at(0.995), 1.995, 1e-12);
  EXPECT_NEAR(s.mean_ratio(), 1.5, 1e-12);
  EXPECT_NEAR(s.second_moment(), 7.0 / 3, 1e-12);  // E[U²] for U uniform on [1, 2]
  s.ratios[4] = 0.5;
  EXPECT_EQ(shape_problem(s), "ratios must not decrease");
}

}  // namespace
}  // namespace pollscale::datasets
