// cold_scan: its grid (poll over pipes and eventfds at two n, warm and cold), its eviction
// size from the listed L2, points that run at small n and report none ready, the limit and
// malformed keys refused, and the eviction size written to context.json by a calibration.
// (Timings are not asserted.)

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "calibrate/calibration.hpp"
#include "calibrate/context.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "tests/calibrate/probe_test_support.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::calibrate {
namespace {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

datasets::cache_facts cache(int level, std::uint64_t bytes) {
  datasets::cache_facts c;
  c.level = level;
  c.type = level == 1 ? "Data" : "Unified";
  c.size_bytes = bytes;
  return c;
}

TEST(ColdScanTest, GridIsPollOverPipesAndEventfdsAtTwoNWarmAndCold) {
  const auto* probe = find_probe("cold_scan");
  ASSERT_NE(probe, nullptr);
  for (auto profile : {profile_kind::quick, profile_kind::full}) {
    selection sel = test::small_selection();
    sel.profile = profile;
    const auto points = probe->points(sel, {});  // measured whatever mechanisms were chosen
    ASSERT_EQ(points.size(), 8u);
    std::set<std::tuple<std::string, std::int64_t, std::string>> seen;
    for (const auto& k : points) {
      EXPECT_EQ(k.mechanism, "poll");
      EXPECT_EQ(k.metric, "time_per_call");
      EXPECT_EQ(k.unit, "ns");
      EXPECT_EQ(k.n_active, 0);
      EXPECT_EQ(k.blocking, 0);
      EXPECT_EQ(k.threads, 1);
      seen.insert({k.fd_kind, *k.n_fds, k.variant});
    }
    for (const char* kind : {"pipe", "eventfd"})
      for (std::int64_t n : {500, 1000})
        for (const char* variant : {"", "cold"}) EXPECT_EQ(seen.count({kind, n, variant}), 1u) << kind << n << variant;
  }
  const auto over = probe->points(test::small_selection({16, 64, 256}), {});
  EXPECT_EQ(over.size(), 12u);  // --n replaces the two n
}

TEST(ColdScanTest, EvictsFourTimesTheLargestL2WithinTwoToSixtyFourMib) {
  using probes::cold_evict_bytes;
  EXPECT_EQ(cold_evict_bytes({}), 4 * mib);                                        // none listed
  EXPECT_EQ(cold_evict_bytes({cache(1, 48 << 10), cache(3, 32 * mib)}), 4 * mib);  // no L2 either
  EXPECT_EQ(cold_evict_bytes({cache(1, 48 << 10), cache(2, mib), cache(3, 508 * mib)}), 4 * mib);
  EXPECT_EQ(cold_evict_bytes({cache(2, 2 * mib)}), 8 * mib);
  EXPECT_EQ(cold_evict_bytes({cache(2, 256 << 10)}), 2 * mib);               // at least 2 MiB
  EXPECT_EQ(cold_evict_bytes({cache(2, 32 * mib)}), 64 * mib);               // at most 64 MiB
  EXPECT_EQ(cold_evict_bytes({cache(2, mib), cache(2, 2 * mib)}), 8 * mib);  // the largest
}

TEST(ColdScanTest, PointsRunAtSmallNAndFindNoneReady) {
  const auto* probe = find_probe("cold_scan");
  const selection sel = test::small_selection({4, 32});
  const std::size_t before = sys::open_fd_count();
  for (const auto& k : probe->points(sel, {})) {
    SCOPED_TRACE(datasets::describe(k));
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(3), 0u);
    datasets::key annotated = k;
    inst->annotate(annotated);
    ASSERT_TRUE(annotated.max_fd.has_value());
    EXPECT_GE(*annotated.max_fd, *k.n_fds);  // the n watched ends sit above stdin..stderr
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(ColdScanTest, RefusesWhatCannotRunHere) {
  const auto* probe = find_probe("cold_scan");
  auto k = probe->points(test::small_selection(), {}).front();
  EXPECT_THROW(probe->make(k, test::small_selection({}, 100)), probe_skipped);  // 500 channels, 100 fds
  k.n_fds.reset();
  EXPECT_THROW(probe->make(k, test::small_selection()), std::invalid_argument);
}

TEST(ColdScanTest, ACalibrationRecordsTheEvictionSize) {
  namespace fs = std::filesystem;
  const pollscale::test::scratch_dir scratch("cold_scan");
  const fs::path out = scratch.path() / "out";  // the calibration makes it
  const calibration_outcome o =
      run_calibration(test::small_request({"cold_scan"}, {8, 16}, 1, out), nlohmann::json::object());
  ASSERT_EQ(o.planned, 8u);
  const auto& facts = o.data.context["cold_scan"];
  ASSERT_TRUE(facts.is_object());
  EXPECT_EQ(facts["evict_bytes"].get<std::uint64_t>(), probes::cold_evict_bytes(host_caches()));
  EXPECT_FALSE(facts["rule"].get<std::string>().empty());
}

}  // namespace
}  // namespace pollscale::calibrate
