// The two placements of a run's CPUs read off its sentinels (datasets/placement_states.hpp):
// planted series whose near and far levels, shares and wake-up costs are known.

#include "datasets/placement_states.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>

namespace pollscale::datasets {
namespace {

// A run of `seconds` readings, one a second: the placement sentinel at 60 ns near and 420 ns
// far, the wake sentinel read 0.1 s after it at `near_wake` and `far_wake` ns (a little
// scatter on both), far while `far(i)`.
struct planted {
  std::vector<sentinel_reading> placement, wake;
};

template <typename Far>
planted run_of(int seconds, Far far, double near_wake, double far_wake) {
  planted p;
  for (int i = 0; i < seconds; ++i) {
    const double t = static_cast<double>(i);
    const double scatter = 1 + 0.01 * (i % 5 - 2);
    p.placement.push_back({t, (far(i) ? 420.0 : 60.0) * scatter, 1000});
    p.wake.push_back({t + 0.1, (far(i) ? far_wake : near_wake) * scatter, 72});
  }
  return p;
}

TEST(PlacementStatesTest, TheWakeSentinelsFarOverNearAndTheShareNear) {
  const auto p = run_of(
      100, [](int i) { return i % 4 == 0 || (i >= 40 && i < 50); }, 15000, 21000);
  const auto s = estimate_placement_states(p.placement, p.wake);
  ASSERT_TRUE(s.has_value());
  const double far_count = 25 + 7;  // every fourth second, and 40-49 less the three fourths among them
  EXPECT_NEAR(s->near_share, 1 - far_count / 100, 1e-12);
  EXPECT_EQ(s->far_readings, 32u);
  EXPECT_EQ(s->near_readings, 68u);
  EXPECT_NEAR(s->far_over_near, 21000.0 / 15000, 0.02);
  EXPECT_GT(s->split_ns, 60 * 1.03);
  EXPECT_LT(s->split_ns, 420 * 0.97);
  EXPECT_FALSE(s->far_usual());
  // The placement sentinel's own round trip in each state (the median of its ±2% scatter).
  EXPECT_NEAR(s->near_line_ns, 60, 60 * 0.021);
  EXPECT_NEAR(s->far_line_ns, 420, 420 * 0.021);
  EXPECT_DOUBLE_EQ(s->usual_line_ns(), s->near_line_ns);

  // The same run mostly far: the far placement is the usual one.
  const auto f = run_of(
      100, [](int i) { return i % 4 != 0; }, 15000, 21000);
  const auto fs = estimate_placement_states(f.placement, f.wake);
  ASSERT_TRUE(fs.has_value());
  EXPECT_NEAR(fs->near_share, 0.25, 1e-12);
  EXPECT_TRUE(fs->far_usual());
  EXPECT_NEAR(fs->far_over_near, 1.4, 0.02);
  EXPECT_DOUBLE_EQ(fs->usual_line_ns(), fs->far_line_ns);
}

TEST(PlacementStatesTest, NoStatesWithoutTwoLevelsOrEnoughWakeReadingsOnEach) {
  // One level: the host never moved the CPUs.
  const auto steady = run_of(
      60, [](int) { return false; }, 15000, 21000);
  EXPECT_FALSE(placement_split_ns(steady.placement).has_value());
  EXPECT_FALSE(estimate_placement_states(steady.placement, steady.wake).has_value());
  // Six far placement readings in sixty, but only two far wake readings: too few to say
  // what the far placement costs; a third is enough.
  const auto brief = run_of(
      60, [](int i) { return i % 10 == 5; }, 15000, 21000);
  ASSERT_TRUE(placement_split_ns(brief.placement).has_value());
  std::vector<sentinel_reading> two, three;
  for (const auto& r : brief.wake) {
    const int i = static_cast<int>(r.t_s);
    if (i % 10 != 5 || i >= 45) two.push_back(r);
    if (i % 10 != 5 || i >= 35) three.push_back(r);
  }
  EXPECT_FALSE(estimate_placement_states(brief.placement, two).has_value());
  const auto enough = estimate_placement_states(brief.placement, three);
  ASSERT_TRUE(enough.has_value());
  EXPECT_EQ(enough->far_readings, 3u);
  EXPECT_NEAR(enough->near_share, 0.9, 1e-12);
  // No wake sentinel; a wake reading is paired with the placement reading nearest in time.
  const auto moved = run_of(
      60, [](int i) { return i % 2 == 0; }, 15000, 21000);
  EXPECT_FALSE(estimate_placement_states(moved.placement, {}).has_value());
  auto late = moved.wake;
  for (auto& r : late) r.t_s += 0.45;  // 0.55 s after its own reading, 0.45 s before the next, of the other level
  const auto shifted = estimate_placement_states(moved.placement, late);
  ASSERT_TRUE(shifted.has_value());
  EXPECT_NEAR(shifted->far_over_near, 15000.0 / 21000, 0.02);
  // Placement read every other second: the wake readings between lie 0.9 s from any and pair with none.
  std::vector<sentinel_reading> sparse;
  for (std::size_t i = 0; i < moved.placement.size(); i += 2) sparse.push_back(moved.placement[i]);
  sparse[1].ns_per_call = 60;  // a near level among them (every kept reading was far)
  sparse[2].ns_per_call = 61;
  sparse[3].ns_per_call = 62;
  const auto half = estimate_placement_states(sparse, moved.wake);
  ASSERT_TRUE(half.has_value());
  EXPECT_EQ(half->near_readings + half->far_readings, sparse.size());
  EXPECT_FALSE(estimate_placement_states({}, moved.wake).has_value());
}

TEST(PlacementStatesTest, UnusableReadingsAreIgnored) {
  auto p = run_of(
      60, [](int i) { return i % 3 == 0; }, 15000, 21000);
  const auto clean = estimate_placement_states(p.placement, p.wake);
  ASSERT_TRUE(clean.has_value());
  p.placement.push_back({70, std::numeric_limits<double>::quiet_NaN(), 1000});
  p.placement.push_back({71, -5, 1000});
  p.wake.push_back({70.1, std::numeric_limits<double>::infinity(), 72});
  p.wake.push_back({5.1, 0, 72});
  const auto dirty = estimate_placement_states(p.placement, p.wake);
  ASSERT_TRUE(dirty.has_value());
  EXPECT_DOUBLE_EQ(dirty->near_share, clean->near_share);
  EXPECT_DOUBLE_EQ(dirty->far_over_near, clean->far_over_near);
  EXPECT_EQ(dirty->near_readings + dirty->far_readings, clean->near_readings + clean->far_readings);
}

// A real run of the machine corpus (the ninth host's quick of 10:55 UTC, 2026-12-07): 95
// placement readings, 8 of them far; its wake sentinel's far readings 1.32 times its near
// ones (docs/sim.md, "Where the host puts the two CPUs").
TEST(PlacementStatesTest, TheNinthHostsQuickRun) {
  const auto d = read_dataset(std::filesystem::path(POLLSCALE_SOURCE_DIR) /
                              "datasets/machines/amd-epyc_l2-1m_l3-32m_2cpu_6.18.44-fc-v1300/quick-20261207T105542Z");
  const auto s = estimate_placement_states(d.placement_sentinel, d.wake_sentinel);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->near_share, 87.0 / 95, 1e-9);
  EXPECT_EQ(s->near_readings, 87u);
  EXPECT_EQ(s->far_readings, 8u);
  EXPECT_NEAR(s->far_over_near, 1.3207, 0.0005);
  EXPECT_FALSE(s->far_usual());
}

}  // namespace
}  // namespace pollscale::datasets
