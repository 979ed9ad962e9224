// Visits until the visits agree (calibrate/settle.hpp): the points chosen for another
// visit are those whose visit medians disagree beyond the target and that have visits left,
// in the sweep's order; samples find their point by the key they carry.

#include "calibrate/settle.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace pollscale::calibrate {
namespace {

datasets::key settle_point(std::int64_t n) {
  datasets::key k;
  k.scenario = "find_active";
  k.n_fds = n;
  k.metric = "time_per_call";
  k.unit = "ns";
  return k;
}

/// The key a probe would give point n's samples: the planned key with max_fd filled in.
datasets::key settle_measured(std::int64_t n) {
  datasets::key k = settle_point(n);
  k.max_fd = n + 3;
  return k;
}

/// Five samples in each visit, about the visit's value in `medians`.
void add_settle_visits(std::vector<datasets::sample_row>& rows, std::int64_t n, const std::vector<double>& medians) {
  const datasets::key k = settle_measured(n);
  for (std::size_t v = 0; v < medians.size(); ++v)
    for (int i = 0; i < 5; ++i) {
      datasets::sample_row r;
      r.k = k;
      r.value = medians[v] * (1 + 0.001 * (i - 2));  // the batches of a visit agree
      r.visit = static_cast<std::int64_t>(v);
      rows.push_back(r);
    }
}

struct settle_fixture {
  std::vector<datasets::key> keys;  // per planned point, its samples' key
  std::vector<datasets::sample_row> rows;
  settle_fixture() {
    for (std::int64_t n : {10, 20, 30, 40}) keys.push_back(settle_measured(n));
    keys.emplace_back();                                                    // 50: not measured (skipped here)
    add_settle_visits(rows, 10, {100, 101, 99});                            // agree: se about 0.7%
    add_settle_visits(rows, 20, {100, 250, 140});                           // disagree: se about 33%
    add_settle_visits(rows, 30, {100, 130, 110, 120});                      // disagree: se about 7%
    add_settle_visits(rows, 40, {100, 300, 100, 300, 100, 300, 100, 300});  // disagree, at the maximum
    add_settle_visits(rows, 60, {100, 200, 400});                           // a point of another plan: ignored
  }
};

TEST(SettleTest, AgreementIsTheVisitMediansRelativeStandardError) {
  const settle_fixture f;
  const auto a = agreement_of(f.keys, f.rows);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].visits, 3u);
  EXPECT_EQ(a[3].visits, 8u);
  EXPECT_EQ(a[4].visits, 0u);
  EXPECT_EQ(a[4].se, 0);
  // sqrt(pi/2) x sd(ln medians) / sqrt(R), recomputed here.
  const double l[] = {std::log(100.0), std::log(250.0), std::log(140.0)};
  const double mean = (l[0] + l[1] + l[2]) / 3;
  double ss = 0;
  for (double x : l) ss += (x - mean) * (x - mean);
  EXPECT_NEAR(a[1].se, std::sqrt(M_PI / 2) * std::sqrt(ss / 2) / std::sqrt(3.0), 1e-12);
  EXPECT_LT(a[0].se, 0.01);
  EXPECT_GT(a[2].se, 0.04);
}

TEST(SettleTest, OnlyDisagreeingPointsWithVisitsLeftAreVisitedInTheSweepsOrder) {
  const settle_fixture f;
  const auto a = agreement_of(f.keys, f.rows);
  const settle_options o{0.04, 8, 0.25};
  EXPECT_EQ(points_to_settle(a, {4, 3, 2, 1, 0}, o), (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(points_to_settle(a, {1, 2}, o), (std::vector<std::size_t>{1, 2}));
  // A looser target keeps only the worst; max_visits at the rounds turns settling off.
  EXPECT_EQ(points_to_settle(a, {0, 1, 2, 3, 4}, {0.2, 8, 0.25}), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(points_to_settle(a, {0, 1, 2, 3, 4}, {0.04, 3, 0.25}).empty());
  // The point at its maximum is visited once the maximum is raised.
  EXPECT_EQ(points_to_settle(a, {3}, {0.04, 9, 0.25}), (std::vector<std::size_t>{3}));
  // Counted whatever their visits: the three that disagree, not the unmeasured one.
  EXPECT_EQ(disagreeing(a, 0.04), 3u);
  EXPECT_EQ(disagreeing(a, 0.2), 2u);
}

}  // namespace
}  // namespace pollscale::calibrate
