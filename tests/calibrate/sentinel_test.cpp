// The drift sentinel: a reading is a real poll over 64 pipes; the stability summary finds
// the slow episodes of a series. The cross-CPU wake sentinel: a reading is a real round trip
// between two CPUs, at most one a second, off with one CPU.

#include "calibrate/sentinel.hpp"

#include <gtest/gtest.h>

#include "calibrate/placement_sentinel.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/wake_sentinel.hpp"

namespace pollscale::calibrate {
namespace {

TEST(SentinelTest, AReadingIsPositiveAndLeavesNoDescriptor) {
  const std::size_t before = sys::open_fd_count();
  sentinel s(10'000);
  const auto a = s.read(0.5);
  ASSERT_TRUE(a.has_value());
  EXPECT_GT(a->ns_per_call, 0.0);
  EXPECT_GT(a->calls, 0);
  EXPECT_DOUBLE_EQ(a->t_s, 0.5);
  const auto b = s.read(1.0);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(a->calls, b->calls);  // the batch size is fixed for the run: readings compare
  EXPECT_EQ(sys::open_fd_count(), before);
}

std::vector<datasets::sentinel_reading> series(const std::vector<double>& ns) {
  std::vector<datasets::sentinel_reading> out;
  for (std::size_t i = 0; i < ns.size(); ++i) out.push_back({0.5 * static_cast<double>(i), ns[i], 100});
  return out;
}

TEST(SentinelTest, AFlatSeriesIsStable) {
  const auto j = stability_of(series(std::vector<double>(40, 1000.0)));
  EXPECT_TRUE(j.stable.value());
  EXPECT_DOUBLE_EQ(j.spread_p90_p10.value(), 1.0);
  EXPECT_EQ(j.worst_episode, "none");
  EXPECT_TRUE(stability_warning(j).empty());
}

TEST(SentinelTest, ASlowEpisodeIsFoundAndWarnedAbout) {
  // 20 readings at 1000 ns, 14 at 1500 ns (t = 10.0 .. 16.5 s), 6 at 1000 ns.
  std::vector<double> ns(20, 1000.0);
  ns.insert(ns.end(), 14, 1500.0);
  ns.insert(ns.end(), 6, 1000.0);
  const auto j = stability_of(series(ns));
  EXPECT_FALSE(j.stable.value());
  EXPECT_DOUBLE_EQ(j.worst_episode_s, 6.5);
  EXPECT_NEAR(j.slow_share.value(), 14.0 / 40, 1e-12);
  EXPECT_NE(j.worst_episode.find("1.5x"), std::string::npos) << datasets::to_json(j).dump();
  EXPECT_NE(stability_warning(j).find("drifted"), std::string::npos);
  // The run's own warning says what to do about it; the cross-CPU one has no such remedy.
  const std::string w = stability_warning(j, "the machine's speed", fast_mode_remedy);
  EXPECT_NE(w.find("--statistic adjusted"), std::string::npos) << w;
  EXPECT_EQ(stability_warning(j).find("--statistic adjusted"), std::string::npos);
}

TEST(WakeSentinelTest, AReadingIsARoundTripAcrossCpusAtMostOnceASecond) {
  selection sel;
  sel.cpus = sys::allowed_cpus();
  if (sel.cpus.size() < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  sel.max_fds = 1000;
  sys::pin_current_thread(sel.cpus[0]);
  const std::size_t before = sys::open_fd_count();
  wake_sentinel w(sel);
  ASSERT_TRUE(w.on());
  const auto a = w.read(2.0);
  ASSERT_TRUE(a.has_value());
  // Two wake-ups of a blocked thread on another CPU: microseconds, never nothing.
  EXPECT_GT(a->ns_per_call, 100.0);
  EXPECT_EQ(a->calls, static_cast<std::int64_t>(wake_sentinel::batches * wake_sentinel::round_trips_per_batch));
  EXPECT_DOUBLE_EQ(a->t_s, 2.0);
  EXPECT_FALSE(w.read(2.5).has_value());  // less than min_interval_s after the last
  EXPECT_TRUE(w.read(3.0).has_value());
  EXPECT_EQ(sys::open_fd_count(), before);  // the eventfds and the partner are gone
  sys::set_current_thread_affinity(sys::allowed_cpus());
}

TEST(PlacementSentinelTest, AReadingIsACacheLineRoundTripBetweenTheFirstTwoCpus) {
  selection sel;
  sel.cpus = sys::allowed_cpus();
  if (sel.cpus.size() < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  sel.max_fds = 1000;
  sys::pin_current_thread(sel.cpus[0]);
  placement_sentinel p(sel);
  ASSERT_TRUE(p.on());
  const auto a = p.read(5.0);
  ASSERT_TRUE(a.has_value());
  // A line's ownership moving to another CPU and back: tens to hundreds of ns, never nothing.
  EXPECT_GT(a->ns_per_call, 5.0);
  EXPECT_LT(a->ns_per_call, 1e6);
  EXPECT_EQ(a->calls,
            static_cast<std::int64_t>(placement_sentinel::batches * placement_sentinel::round_trips_per_batch));
  EXPECT_FALSE(p.read(5.5).has_value());  // less than min_interval_s after the last
  EXPECT_TRUE(p.read(6.0).has_value());
  sys::set_current_thread_affinity(sys::allowed_cpus());
  selection one = sel;
  one.cpus = {sel.cpus.front()};
  EXPECT_FALSE(placement_sentinel(one).on());
}

// The readings of a run whose two vCPUs the host moved: 65 ns near, 460 ns far; the levels,
// the near share and the moves are read off them, and one level is no move at all.
TEST(PlacementSentinelTest, TwoLevelsAreTwoPlacementsAndOneIsNone) {
  std::vector<datasets::sentinel_reading> s;
  for (int i = 0; i < 30; ++i) {
    const bool near = (i >= 10 && i < 20) || i >= 25;  // far, near, far, near: three moves
    s.push_back({static_cast<double>(i), (near ? 65.0 : 460.0) + (i % 3), 1000});
  }
  const auto f = placement_of(s);
  EXPECT_EQ(f.readings, 30u);
  EXPECT_TRUE(f.moved);
  EXPECT_NEAR(f.near_ns.value(), 66, 1.01);
  EXPECT_NEAR(f.far_ns.value(), 461, 1.01);
  EXPECT_NEAR(f.near_share.value(), 15.0 / 30, 1e-12);
  EXPECT_EQ(f.moves, 3u);
  EXPECT_NE(placement_warning(f).find("moved the first two CPUs"), std::string::npos) << placement_warning(f);

  std::vector<datasets::sentinel_reading> steady;
  for (int i = 0; i < 30; ++i) steady.push_back({static_cast<double>(i), 440.0 + 3 * (i % 7), 1000});
  const auto g = placement_of(steady);
  EXPECT_FALSE(g.moved);
  EXPECT_FALSE(g.near_ns.has_value());
  EXPECT_EQ(g.moves, 0u);
  EXPECT_NEAR(g.median_ns.value(), 449, 1.01);
  EXPECT_EQ(placement_warning(g), "");
  EXPECT_EQ(placement_of({}).readings, 0u);
  EXPECT_FALSE(placement_of({}).median_ns.has_value());
}

TEST(WakeSentinelTest, OffWithOneCpu) {
  selection sel;
  sel.cpus = {sys::allowed_cpus().front()};
  sel.max_fds = 1000;
  wake_sentinel w(sel);
  EXPECT_FALSE(w.on());
  EXPECT_FALSE(w.read(0).has_value());
}

TEST(WakeSentinelTest, ItsSeriesIsJudgedLikeTheDriftSentinels) {
  // 1.34x for 60 s then the fast level: the regimes of a KVM guest's cross-CPU wake-ups.
  std::vector<datasets::sentinel_reading> s;
  for (int i = 0; i < 100; ++i) s.push_back({static_cast<double>(i), i < 60 ? 26000.0 : 19400.0, 72});
  const auto j = stability_of(s, wake_sentinel::description());
  EXPECT_FALSE(j.stable.value());
  EXPECT_NE(j.sentinel.find("two CPUs"), std::string::npos);
  const std::string w = stability_warning(j, "cross-CPU wake-ups");
  EXPECT_EQ(w.rfind("cross-CPU wake-ups drifted during the run", 0), 0u) << w;
}

TEST(SentinelTest, NoReadingsNoVerdict) {
  const auto j = stability_of({});
  EXPECT_EQ(j.readings, 0u);
  EXPECT_FALSE(j.stable.has_value());
  EXPECT_FALSE(datasets::to_json(j).contains("stable"));
  EXPECT_TRUE(stability_warning(j).empty());
}

}  // namespace
}  // namespace pollscale::calibrate
