// The report's threads-or-processes lines (app/study/threads_or_processes.hpp) on planted
// `scale --format json` results: the ratio of the two scenarios' rates at the (C, N) both
// measured, the nanoseconds a call saves on one CPU, tables without a partner left out, and
// nothing said where one of the two was not measured.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "app/study/scaling_section.hpp"
#include "app/study/threads_or_processes.hpp"

namespace pollscale::app {
namespace {

using nlohmann::json;

// One `scale` table of pipes, as scale writes it: its name, its key (scale's "key"), rates at
// N = 1, 2 trained on, N = 3 held out.
json rate_table(const std::string& scenario, const std::string& mechanism, const std::string& variant, int cpus,
                double r1, double r2, double r3) {
  const std::string flavour = mechanism + (variant.empty() ? "" : "/" + variant) + "/pipe";
  const json key = {
      {"scenario", scenario}, {"mechanism", mechanism}, {"variant", variant.empty() ? json() : json(variant)},
      {"fd_kind", "pipe"},    {"blocking", 0},          {"metric", "throughput"},
      {"cpus", cpus}};
  return {{"table", scenario + "/" + flavour + " t0 throughput cpus=" + std::to_string(cpus)},
          {"key", key},
          {"unit", "1/s"},
          {"train", json::array({{{"n", 1}, {"measured", r1}}, {{"n", 2}, {"measured", r2}}})},
          {"held_out", json::array({{{"n", 3}, {"measured", r3}, {"predicted", r3}, {"rel_err", 0.0}}})}};
}

json planted() {
  return {{"tables", json::array({
                         // one CPU: threads 0.25 µs a call (4 M/s), processes 0.2 µs (5 M/s) at every N
                         rate_table("private_sets", "poll", "", 1, 4e6, 4e6, 4e6),
                         rate_table("private_processes", "poll", "", 1, 5e6, 5e6, 5e6),
                         // two CPUs: ratios 1.1, 1.2 and 1.3
                         rate_table("private_sets", "poll", "", 2, 8e6, 8e6, 8e6),
                         rate_table("private_processes", "poll", "", 2, 8.8e6, 9.6e6, 10.4e6),
                         // epoll as threads only: nothing to compare
                         rate_table("private_sets", "epoll", "lt", 1, 3e6, 3e6, 3e6),
                         rate_table("producers", "epoll", "lt", 1, 1e6, 2e6, 3e6),
                     })}};
}

TEST(ThreadsOrProcessesTest, RatioAtEveryPointMeasuredBothWaysAndTheCallSavedOnOneCpu) {
  const auto rows = study::threads_or_processes(planted());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].flavour, "poll/pipe t0 throughput");
  EXPECT_EQ(rows[0].points, 6u);  // three N on each of two CPU counts
  EXPECT_DOUBLE_EQ(rows[0].lowest, 1.1);
  EXPECT_DOUBLE_EQ(rows[0].highest, 1.3);
  EXPECT_NEAR(rows[0].median_ratio, 1.25, 1e-12);      // the median of 1.1, 1.2, 1.25 x 3, 1.3
  EXPECT_NEAR(rows[0].ns_saved_per_call, 50.0, 1e-9);  // 250 ns - 200 ns
  const auto md = study::threads_or_processes_markdown(rows);
  EXPECT_NE(md.find("poll/pipe t0 throughput: processes made 1.25× the calls threads made (6 points, 1.10–1.30), 50 "
                    "ns less a call on one CPU"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("epoll"), std::string::npos) << md;
}

TEST(ThreadsOrProcessesTest, NothingIsSaidWithoutBothScenariosOrWithoutAOneCpuPair) {
  json only_threads = planted();
  only_threads["tables"].erase(1);
  only_threads["tables"].erase(2);  // the processes' two tables gone (indices shift after the first erase)
  EXPECT_TRUE(study::threads_or_processes(only_threads).empty());
  EXPECT_EQ(study::threads_or_processes_markdown({}), "");
  EXPECT_TRUE(study::threads_or_processes(json::object()).empty());
  json two_cpus_only = planted();
  two_cpus_only["tables"].erase(0);  // threads on one CPU gone: the ratio stands, the ns do not
  const auto rows = study::threads_or_processes(two_cpus_only);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].points, 3u);
  EXPECT_TRUE(std::isnan(rows[0].ns_saved_per_call));
  EXPECT_EQ(study::threads_or_processes_markdown(rows).find("ns"), std::string::npos);
}

TEST(ThreadsOrProcessesTest, TheScalingSectionCarriesTheLinesUnderItsRun) {
  const auto s = study::scaling_section({{"This machine", "Fitted on one and two threads.", planted(), "scaling"}});
  EXPECT_NE(s.markdown.find("**Threads or processes.**"), std::string::npos) << s.markdown;
  const auto none = study::scaling_section({{"This machine", "Fitted on one and two threads.",
                                             json{{"tables", json::array({planted()["tables"][0]})}}, "scaling"}});
  EXPECT_EQ(none.markdown.find("Threads or processes"), std::string::npos) << none.markdown;
}

}  // namespace
}  // namespace pollscale::app
