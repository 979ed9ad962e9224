// A calibration tells its reporter of every visit, in order, with the count so far, and of
// its end; it writes nothing to stderr itself; its settling visits go where visits disagree.

#include "calibrate/calibration.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "calibrate/mechanism.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/reporter.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/statistics.hpp"
#include "tests/calibrate/probe_test_support.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::calibrate {
namespace {

struct recording_reporter final : reporter {
  std::vector<std::size_t> done, total;
  std::vector<double> eta;
  std::vector<std::string> failures;
  int finished_calls = 0;
  void visit_started(std::size_t d, std::size_t t, double e, const datasets::key&) override {
    done.push_back(d);
    total.push_back(t);
    eta.push_back(e);
  }
  void probe_failed(const std::string& what) override { failures.push_back(what); }
  void finished() override { ++finished_calls; }
};

TEST(CalibrationTest, TellsItsReporterOfEveryVisitAndTheEnd) {
  namespace fs = std::filesystem;
  const pollscale::test::scratch_dir scratch("calibration");
  const fs::path out = scratch.path() / "out";  // the calibration makes it
  calibration_request req = test::small_request({"memory_latency"}, {64, 1024}, 2, out);
  recording_reporter r;
  req.report = &r;
  testing::internal::CaptureStderr();
  const calibration_outcome o = run_calibration(req, nlohmann::json::object());
  const std::string said = testing::internal::GetCapturedStderr();
  ASSERT_EQ(o.planned, 2u);
  ASSERT_EQ(r.done.size(), 4u);  // two points, two rounds
  for (std::size_t i = 0; i < r.done.size(); ++i) {
    EXPECT_EQ(r.done[i], i);
    EXPECT_EQ(r.total[i], 4u);
  }
  EXPECT_TRUE(std::isnan(r.eta.front()));  // no pace before the first visit
  EXPECT_GE(r.eta.back(), 0.0);
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.finished_calls, 1);
  EXPECT_EQ(said, "");  // the library itself is silent
  // Which definition of its operation each probe of the plan measured (compare reads it).
  EXPECT_EQ(o.data.context["calibration"]["probe_revisions"], (nlohmann::json{{"memory_latency", 1}}));
  EXPECT_EQ(find_probe("private_sets")->revision, 2);
  // Where the time went: the probe's four visits, the run's other work, and the rest.
  const auto& time = o.data.context["calibration"]["time"];
  ASSERT_TRUE(time.contains("probes"));
  const auto& ml = time["probes"]["memory_latency"];
  EXPECT_EQ(ml["visits"].get<int>(), 4);
  double sum = 0;
  for (const char* part : {"setup_s", "prepare_s", "measure_s"}) {
    EXPECT_GE(ml[part].get<double>(), 0.0) << part;
    sum += ml[part].get<double>();
  }
  for (const char* part : {"sentinels_s", "release_s", "writes_s", "references_s"}) {
    EXPECT_GE(time[part].get<double>(), 0.0) << part;
    sum += time[part].get<double>();
  }
  EXPECT_GT(time["sentinels_s"].get<double>(), 0.0);  // read before every visit
  EXPECT_NEAR(sum + time["unaccounted_s"].get<double>(), o.wall_s, 1e-9);
  EXPECT_GE(time["unaccounted_s"].get<double>(), 0.0);
}

// The settling tests' run: three memory-latency sizes, two rounds, into `out`.
calibration_request three_sizes_twice(const std::filesystem::path& out) {
  return test::small_request({"memory_latency"}, {64, 1024, 16384}, 2, out);
}

// After the rounds, the points whose visits disagree are visited again (settle.hpp): with
// a target of 0 every point whose two visits differ at all gets a third, none a fourth
// (max_visits 3), and the context says how many visits that took.
TEST(CalibrationTest, SettlingVisitsGoToThePointsWhoseVisitsDisagreeUpToTheMaximum) {
  const pollscale::test::scratch_dir scratch("calibration_settle");
  const std::filesystem::path out = scratch.path() / "out";  // the calibration makes it
  calibration_request req = three_sizes_twice(out);
  req.settle = {0.0, 3, 100.0};
  const calibration_outcome o = run_calibration(req, nlohmann::json::object());
  std::map<std::int64_t, std::map<std::int64_t, std::vector<double>>> visits;  // n -> visit -> values
  for (const auto& s : o.data.samples) visits[*s.k.n_fds][s.visit].push_back(s.value);
  ASSERT_EQ(visits.size(), o.planned);
  std::size_t third_visits = 0;
  for (const auto& [n, by_visit] : visits) {
    ASSERT_GE(by_visit.size(), 2u) << n;
    ASSERT_LE(by_visit.size(), 3u) << n;
    const double m0 = datasets::median(by_visit.at(0)), m1 = datasets::median(by_visit.at(1));
    EXPECT_EQ(by_visit.size() == 3, m0 != m1) << n << ": " << m0 << " " << m1;
    third_visits += by_visit.size() - 2;
  }
  EXPECT_EQ(o.settle_visits, third_visits);
  const auto& settle = o.data.context["calibration"]["settle"];
  EXPECT_EQ(settle["visits"].get<std::size_t>(), third_visits);
  EXPECT_EQ(settle["points"].get<std::size_t>(), third_visits);
  EXPECT_EQ(settle["max_visits"].get<int>(), 3);
}

// Stops the run (as Ctrl-C does) when the visit numbered `at` (counting every visit the
// reporter is told of from 0) starts.
struct stopping_reporter final : reporter {
  std::size_t at, seen = 0;
  explicit stopping_reporter(std::size_t a) : at(a) {}
  void visit_started(std::size_t, std::size_t, double, const datasets::key&) override {
    if (seen++ == at) sys::stop_requested = true;
  }
  void probe_failed(const std::string&) override {}
  void finished() override {}
};

// Interrupted in its settling visits, a run keeps every round's samples and says that the
// rounds were complete (not that points went unmeasured).
TEST(CalibrationTest, AnInterruptionInTheSettlingVisitsSaysTheRoundsWereComplete) {
  const pollscale::test::scratch_dir scratch("calibration_stop");
  const std::filesystem::path out = scratch.path() / "out";  // the calibration makes it
  calibration_request req = three_sizes_twice(out);
  req.settle = {0.0, 3, 100.0};
  stopping_reporter stop(3 * 2);  // the first visit after two rounds of three points
  req.report = &stop;
  const calibration_outcome o = run_calibration(req, nlohmann::json::object());
  sys::stop_requested = false;
  ASSERT_TRUE(o.interrupted);
  EXPECT_EQ(o.measured, 3u);
  std::map<std::int64_t, std::set<std::int64_t>> visits;
  for (const auto& s : o.data.samples) visits[*s.k.n_fds].insert(s.visit);
  for (const auto& [n, v] : visits) EXPECT_EQ(v, (std::set<std::int64_t>{0, 1})) << n;
  const std::string warnings = o.data.context["warnings"].dump();
  EXPECT_NE(warnings.find("interrupted after the 2 rounds, in the repair or settling visits"), std::string::npos)
      << warnings;
  EXPECT_EQ(warnings.find("were not measured"), std::string::npos) << warnings;
}

// A run that has used its profile's budget makes no settling visits, whatever their share.
TEST(CalibrationTest, NoSettlingVisitsPastTheProfilesBudget) {
  const pollscale::test::scratch_dir scratch("calibration_budget");
  const std::filesystem::path out = scratch.path() / "out";  // the calibration makes it
  calibration_request req = three_sizes_twice(out);
  req.settle = {0.0, 3, 100.0, 1e-6};
  const calibration_outcome o = run_calibration(req, nlohmann::json::object());
  EXPECT_EQ(o.settle_visits, 0u);
  for (const auto& s : o.data.samples) EXPECT_LT(s.visit, 2);
  EXPECT_EQ(o.data.context["calibration"]["settle"]["budget_s"].get<double>(), 1e-6);
  EXPECT_EQ(profile_budget_s(profile_kind::quick), 180.0);
  EXPECT_EQ(profile_budget_s(profile_kind::full), 1800.0);
}

}  // namespace
}  // namespace pollscale::calibrate
