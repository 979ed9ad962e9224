// A calibration tells its reporter of every visit, in order, with the count so far, and of
// its end; it writes nothing to stderr itself.

#include "calibrate/calibration.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "calibrate/mechanism.hpp"
#include "calibrate/reporter.hpp"
#include "tests/calibrate/probe_test_support.hpp"

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
  const fs::path out = fs::temp_directory_path() / ("pollscale_calibration_" + std::to_string(::getpid()));
  fs::remove_all(out);
  calibration_request req = test::small_request({"memory_latency"}, {64, 1024}, 2, out);
  recording_reporter r;
  req.report = &r;
  testing::internal::CaptureStderr();
  const calibration_outcome o = run_calibration(req, nlohmann::json::object());
  const std::string said = testing::internal::GetCapturedStderr();
  fs::remove_all(out);
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

}  // namespace
}  // namespace pollscale::calibrate
