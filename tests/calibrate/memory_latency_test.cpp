// memory_latency: the chase follows one seeded cycle through every line, the grid spans
// 16 KiB..256 MiB, points run and say which page size backed them, bad sizes are refused.
// (Timings are not asserted.)

#include <gtest/gtest.h>

#include <set>

#include "calibrate/probes/memory_latency.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"

namespace pollscale::calibrate {
namespace {

datasets::key lines_key(std::int64_t n) {
  datasets::key k;
  k.scenario = "memory_latency";
  k.n_fds = n;
  k.metric = "latency";
  k.unit = "ns";
  return k;
}

TEST(RandomCycleTest, VisitsEveryLineOnceBeforeReturning) {
  for (std::size_t n : {1u, 2u, 3u, 64u, 1000u, 65536u}) {
    const auto next = probes::random_cycle(n, 42);
    ASSERT_EQ(next.size(), n);
    std::vector<bool> seen(n, false);
    std::uint32_t p = 0;
    for (std::size_t step = 0; step < n; ++step) {
      ASSERT_LT(p, n);
      EXPECT_FALSE(seen[p]) << "line " << p << " visited twice, n=" << n;
      seen[p] = true;
      p = next[p];
    }
    EXPECT_EQ(p, 0u) << "n=" << n;  // back at the start after exactly n loads
  }
}

TEST(RandomCycleTest, SameSeedSameCycleOtherSeedOtherCycle) {
  EXPECT_EQ(probes::random_cycle(5000, 7), probes::random_cycle(5000, 7));
  EXPECT_NE(probes::random_cycle(5000, 7), probes::random_cycle(5000, 8));
  const auto next = probes::random_cycle(5000, 7);
  std::size_t sequential = 0;  // a random cycle rarely steps to the adjacent line
  for (std::size_t i = 0; i < next.size(); ++i) sequential += next[i] == (i + 1) % next.size();
  EXPECT_LT(sequential, 10u);
}

TEST(MemoryLatencyTest, GridSpansSixteenKibToQuarterGib) {
  const auto* probe = find_probe("memory_latency");
  ASSERT_NE(probe, nullptr);
  selection sel;
  sel.cpus = {0};
  for (auto [profile, count] : {std::pair{profile_kind::quick, 25u}, {profile_kind::full, 25u}}) {
    sel.profile = profile;
    const auto points = probe->points(sel, {});  // no mechanism needed
    ASSERT_EQ(points.size(), count);
    EXPECT_EQ(*points.front().n_fds * 64, 16 << 10);
    EXPECT_EQ(*points.back().n_fds * 64, 256 << 20);
    for (const auto& k : points) {
      EXPECT_EQ(k.mechanism, "");
      EXPECT_EQ(k.fd_kind, "");
      EXPECT_EQ(k.metric, "latency");
      EXPECT_EQ(k.unit, "ns");
      EXPECT_EQ(k.pinning, "0");
    }
  }
}

TEST(MemoryLatencyTest, PointsRunAndNameThePageSize) {
  const auto* probe = find_probe("memory_latency");
  selection sel;
  sel.cpus = sys::allowed_cpus();
  sel.n_override = {2, 7, 256, 40000, 600000};  // the last (37 MiB) warms in chunks
  const std::size_t before = sys::open_fd_count();
  for (const auto& k : probe->points(sel, {})) {
    SCOPED_TRACE(datasets::describe(k));
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(10000), 0u);
    datasets::key annotated = k;
    inst->annotate(annotated);
    EXPECT_TRUE(annotated.variant == "thp" || annotated.variant == "4k") << annotated.variant;
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

// A size outside the range (say a --n of 10^9 meant for the descriptor probes) is skipped
// with the reason before anything is allocated; a key without a size is malformed.
TEST(MemoryLatencyTest, SizesOutsideTheRangeAreSkipped) {
  const auto* probe = find_probe("memory_latency");
  const selection sel;
  for (std::int64_t n : {std::int64_t{-5}, std::int64_t{0}, std::int64_t{1}, std::int64_t{1} << 40})
    EXPECT_THROW(probe->make(lines_key(n), sel), probe_skipped) << n;
  auto k = lines_key(10);
  k.n_fds.reset();
  EXPECT_THROW(probe->make(k, sel), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::calibrate
