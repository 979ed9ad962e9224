// pollscale calibrate end to end: bad input gets one line on stderr and exit 2; a tiny
// real calibration writes a dataset the reader accepts.

#include <gtest/gtest.h>

#include <fstream>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/sys/file_lock.hpp"
#include "datasets/dataset.hpp"
#include "tests/app/cli_fixture.hpp"
#include "tests/app/run_command.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::test {
namespace {

TEST(CalibrateCliTest, BadInputIsOneLineAndExitTwo) {
  for (const char* args : {"calibrate --n 0",
                           "calibrate --n 5,x",
                           "calibrate --bogus",
                           "calibrate --mechanisms kqueue",
                           "calibrate --scenarios nowhere",
                           "calibrate --format xml",
                           "calibrate --quick --full",
                           "calibrate --max-seconds-per-point -1",
                           "calibrate --rounds 0",
                           "calibrate --rounds 101",
                           "calibrate --max-visits 0",
                           "calibrate --max-visits 101",
                           "calibrate --max-visits x",
                           "calibrate --rounds two",
                           "calibrate --n 10,,20",
                           "calibrate --n 10,",
                           "calibrate --mechanisms poll,",
                           "calibrate --scenarios ,find_active",
                           "calibrate --scen find_active",
                           "calibrate --seed -1",
                           "calibrate --seed 18446744073709551616",
                           "nosuchcommand"}) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("pollscale: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(CalibrateCliTest, ErrorsNameTheCulprit) {
  EXPECT_NE(run_pollscale("calibrate --n 5,x").err.find("'x'"), std::string::npos);
  EXPECT_NE(run_pollscale("calibrate --n 10,,20").err.find("--n: an empty item in '10,,20'"), std::string::npos);
  EXPECT_NE(run_pollscale("calibrate --mechanisms poll,kqueue").err.find("'kqueue'"), std::string::npos);
  EXPECT_NE(run_pollscale("calibrate --format xml").err.find("--format"), std::string::npos);
}

TEST(CalibrateCliTest, HelpDescribesEveryOption) {
  const auto r = run_pollscale("calibrate --help");
  EXPECT_EQ(r.rc, 0);
  for (const char* opt : {"--quick", "--full", "--scenarios", "--mechanisms", "--n", "--out", "--seed", "--format",
                          "--list", "--max-seconds-per-point", "--rounds", "--max-visits", "--no-progress"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  EXPECT_NE(run_pollscale("--help").out.find("calibrate"), std::string::npos);
}

TEST(CalibrateCliTest, TinyCalibrationWritesAReadableDataset) {
  const scratch_dir scratch("cal");
  const auto dir = scratch.path() / "out";  // calibrate makes it
  const auto r = run_pollscale(
      "calibrate --scenarios find_active --mechanisms poll,epoll/et --n 1,16 "
      "--max-seconds-per-point 0.02 --format json --out " +
      dir.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  // The last line says where the seconds went.
  EXPECT_NE(r.err.find(" s, set-ups "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s (context.json calibration.time)\n"), std::string::npos) << r.err;
  // A run of a fraction of a second says its fractions, not "of 0 s, set-ups 0 s, ...".
  EXPECT_EQ(r.err.find("pollscale: of 0 s"), std::string::npos) << r.err;
  const auto d = datasets::read_dataset(dir);
  EXPECT_FALSE(d.samples.empty());
  EXPECT_FALSE(d.summaries.empty());
  for (const auto& s : d.summaries) {
    EXPECT_EQ(s.k.scenario, "find_active");
    EXPECT_TRUE(s.k.mechanism == "poll" || s.k.mechanism == "epoll");
    EXPECT_TRUE(*s.k.n_fds == 1 || *s.k.n_fds == 16);
    EXPECT_FALSE(s.k.pinning.empty());
  }
  EXPECT_EQ(d.context["rlimit_nofile"]["soft"], d.context["rlimit_nofile"]["hard"]);
  EXPECT_TRUE(d.context["timer"]["overhead_ns"].get<double>() > 0);
  // --format json on stdout: a calibration_summary document, one row per summary row,
  // counts as integers and an absent column as null.
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "calibration_summary");
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["rows"].size(), d.summaries.size());
  for (const auto& row : j["rows"]) {
    EXPECT_TRUE(row["n_fds"].is_number_integer()) << row.dump();
    EXPECT_TRUE(row["blocking"].is_number_integer()) << row.dump();
    EXPECT_TRUE(row["median"].is_number()) << row.dump();
    if (row["mechanism"] == "poll") {
      EXPECT_TRUE(row["variant"].is_null()) << row.dump();
    }
  }
}

// Every point skipped (here: more descriptors than the limit allows) is not a success: exit
// 1 with one line saying so after the summary line, and the dataset of skips is kept.
TEST(CalibrateCliTest, ACalibrationThatMeasuredNothingFails) {
  const scratch_dir scratch("nothing");
  const auto dir = scratch.path() / "out";  // calibrate makes it
  const auto r = run_pollscale("calibrate --scenarios find_active --mechanisms poll --n 1000000 --out " + dir.string());
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("0 points measured"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pollscale: nothing was measured: every planned point was skipped"), std::string::npos) << r.err;
  const auto d = datasets::read_dataset(dir);
  EXPECT_TRUE(d.summaries.empty());
  EXPECT_FALSE(d.context["skipped"].empty());
}

TEST(CalibrateCliTest, RoundsPoolEachPointsSamplesNumberedOnAcrossRounds) {
  const scratch_dir scratch("rounds");
  const auto dir = scratch.path() / "out";  // calibrate makes it
  const auto r = run_pollscale(
      "calibrate --scenarios find_active --mechanisms poll --n 1,16 --max-seconds-per-point 0.02 --rounds 3 "
      "--max-visits 3 --out " +
      dir.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto d = datasets::read_dataset(dir);
  EXPECT_EQ(d.context["calibration"]["rounds"], 3);
  // --max-visits at the rounds: no settling visits.
  EXPECT_EQ(d.context["calibration"]["settle"]["max_visits"], 3);
  EXPECT_EQ(d.context["calibration"]["settle"]["visits"], 0);
  std::map<std::string, std::vector<std::int64_t>> reps;
  for (const auto& s : d.samples) reps[datasets::describe(s.k)].push_back(s.rep);
  ASSERT_FALSE(reps.empty());
  std::size_t pooled = 0;
  for (auto& [point, v] : reps) {
    SCOPED_TRACE(point);
    std::sort(v.begin(), v.end());
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], static_cast<std::int64_t>(i));  // 0..m-1, no clash
    pooled += v.size();
  }
  // One summary per point, over the samples of all three rounds.
  EXPECT_EQ(d.summaries.size(), reps.size());
  std::size_t summarised = 0;
  for (const auto& s : d.summaries) summarised += s.s.n;
  EXPECT_EQ(summarised, pooled);
  // Each round measured every point at least the runner's minimum number of samples.
  for (const auto& s : d.summaries) EXPECT_GE(s.s.n, 3u * 5u) << datasets::describe(s.k);
}

TEST(CalibrateCliTest, VisitsCarryTheirMomentSentinelReferenceAndConsistency) {
  const scratch_dir scratch("visits");
  const auto dir = scratch.path() / "out";  // calibrate makes it
  const auto r = run_pollscale(
      "calibrate --scenarios find_active --mechanisms poll --n 16,64 --max-seconds-per-point 0.02 --rounds 3 --out " +
      dir.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto d = datasets::read_dataset(dir);
  // Every sample knows its visit, the moment it began and the sentinel read just before.
  std::map<std::string, std::set<std::int64_t>> visits;
  for (const auto& s : d.samples) {
    visits[datasets::describe(s.k)].insert(s.visit);
    ASSERT_TRUE(s.t_s.has_value());
    EXPECT_GE(*s.t_s, 0.0);
    ASSERT_TRUE(s.sentinel_ns.has_value());
    EXPECT_GT(*s.sentinel_ns, 0.0);
  }
  for (const auto& [point, v] : visits) {
    SCOPED_TRACE(point);
    EXPECT_GE(v.size(), 3u);  // three rounds, plus any repair or settling visits
    EXPECT_LE(v.size(), 8u);  // --max-visits' default bounds them all
    EXPECT_EQ(*v.begin(), 0);
    EXPECT_EQ(*v.rbegin(), static_cast<std::int64_t>(v.size()) - 1);
  }
  // One sentinel reading before every visit, summarised in the context.
  ASSERT_FALSE(d.sentinel.empty());
  EXPECT_EQ(d.context["stability"]["readings"], d.sentinel.size());
  EXPECT_GT(d.context["stability"]["spread_p90_p10"].get<double>(), 0.99);
  // The plain poll loop ran after each visit of its twin (poll, pipe, middle, n closest to 1000).
  const auto& loop = d.context["reference"]["poll_loop"];
  ASSERT_TRUE(loop.contains("median_ratio")) << loop.dump();
  EXPECT_GE(loop["readings"].size(), 3u);
  EXPECT_GT(loop["median_ratio"].get<double>(), 0.0);
  EXPECT_NE(loop["point"].get<std::string>().find("n=64"), std::string::npos);
  // The physics check ran; its marks line up with the summaries.
  EXPECT_TRUE(d.context["consistency"].contains("issues"));
  EXPECT_EQ(d.consistency.size(), d.summaries.size());
}

// --out is checked before anything is measured: a dataset already there is not replaced
// without --force, and a place that cannot be a directory fails at once, not at the end.
TEST(CalibrateCliTest, OutIsCheckedBeforeMeasuringAndNeverSilentlyReplaced) {
  const scratch_dir scratch("out");
  const auto dir = scratch.path() / "out";  // calibrate makes it
  const std::string quick =
      "calibrate --scenarios find_active --mechanisms poll --n 4 --max-seconds-per-point 0.005 "
      "--rounds 1 --format csv --out ";
  const auto first = run_pollscale(quick + dir.string());
  ASSERT_EQ(first.rc, 0);
  // --format csv is summary.csv itself: the dataset's columns at full precision.
  EXPECT_EQ(first.out, slurp((dir / "summary.csv").string()));
  const auto again = run_pollscale(quick + dir.string());
  EXPECT_EQ(again.rc, 2);
  EXPECT_NE(again.err.find("already holds a dataset (--force replaces it)"), std::string::npos) << again.err;
  EXPECT_TRUE(again.out.empty());
  EXPECT_EQ(run_pollscale(quick + dir.string() + " --force").rc, 0);
  std::ofstream(dir / "plain-file") << "x";
  const auto under_file = run_pollscale(quick + (dir / "plain-file" / "sub").string());
  EXPECT_EQ(under_file.rc, 2);
  EXPECT_NE(under_file.err.find("--out: cannot create directory"), std::string::npos) << under_file.err;
  EXPECT_EQ(under_file.err.find("calibrating"), std::string::npos) << "measured before checking --out";
}

TEST(CalibrateCliTest, OneWriterPerOutDirectory) {
  const scratch_dir scratch("lock");
  const auto& dir = scratch.path();
  const std::string quick =
      "calibrate --scenarios find_active --mechanisms poll --n 4 --max-seconds-per-point 0.005 "
      "--rounds 1 --format csv --out " +
      dir.string();
  {
    // Another calibration holds the directory (this test process, as it would).
    auto held = calibrate::sys::file_lock::try_acquire(dir / ".pollscale.lock");
    ASSERT_TRUE(held.has_value());
    const auto second = run_pollscale(quick);
    EXPECT_EQ(second.rc, 2);
    EXPECT_NE(second.err.find("is being written by another calibration (pid " + std::to_string(::getpid()) + ")"),
              std::string::npos)
        << second.err;
    EXPECT_EQ(second.err.find("calibrating"), std::string::npos) << "measured although locked out";
    EXPECT_FALSE(std::filesystem::exists(dir / "summary.csv"));
    pid_t holder = 0;
    EXPECT_FALSE(calibrate::sys::file_lock::try_acquire(dir / ".pollscale.lock", &holder).has_value());
    EXPECT_EQ(holder, ::getpid());
  }
  // Released (the holder went away): the next run writes, and leaves no lock file behind.
  EXPECT_EQ(run_pollscale(quick).rc, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / ".pollscale.lock"));
}

TEST(CalibrateCliTest, SameSeedSameOrderOtherSeedOtherOrder) {
  auto first_points = [](const std::string& seed) {
    const scratch_dir scratch("order_" + seed);
    const auto dir = scratch.path() / "out";  // calibrate makes it
    const auto r = run_pollscale(
        "calibrate --scenarios find_active --mechanisms select,poll --n 2,4,8,16 --max-seconds-per-point 0.005 "
        "--rounds 2 --seed " +
        seed + " --out " + dir.string());
    EXPECT_EQ(r.rc, 0) << r.err;
    const auto d = datasets::read_dataset(dir);
    std::map<double, std::string> by_moment;  // visit start -> point
    for (const auto& s : d.samples)
      if (s.visit == 0) by_moment[*s.t_s] = datasets::describe(s.k);
    std::vector<std::string> order;
    for (const auto& [t, point] : by_moment) order.push_back(point);
    return order;
  };
  const auto a = first_points("7"), b = first_points("7"), c = first_points("8");
  ASSERT_GE(a.size(), 8u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

}  // namespace
}  // namespace pollscale::test
