// The study's CPU-scaling lines (app/study/verdict_lines.hpp, scaling_section.hpp) on planted
// `scale --format json` results: the verdict names both of the checks with their aim
// and says which is missed, and the report's section lists the wider series predicted from
// one CPU row by row (and, where the corpus's capacity efficiency priced them, by what factor);
// neither says anything about a check that did not run.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "app/study/scaling_section.hpp"
#include "app/study/verdict_lines.hpp"

namespace pollscale::app {
namespace {

using nlohmann::json;

json summary(double median, int n, int with_interval, double coverage) {
  return {{"median_rel_err", median}, {"n", n}, {"n_with_interval", with_interval}, {"coverage", coverage}};
}

// A `scale --from-cpus 1` result: one family, its two-CPU series of two rows.
json planted_wider() {
  const json rows = json::array({{{"n", 2},
                                  {"measured", 27000},
                                  {"predicted", 20000},
                                  {"lo", 14000},
                                  {"hi", 34000},
                                  {"rel_err", -0.259},
                                  {"limited_by", "one_in_flight"},
                                  {"upper_bound", false}},
                                 {{"n", 3},
                                  {"measured", 4.0e6},
                                  {"predicted", 5.0e6},
                                  {"lo", 3.4e6},
                                  {"hi", 6.6e6},
                                  {"rel_err", 0.25},
                                  {"limited_by", "cpu_capacity"},
                                  {"upper_bound", true}}});
  return {{"families", json::array({{{"table", "accept_herd/epoll/exclusive/tcp k=1 blocking throughput"},
                                     {"unit", "1/s"},
                                     {"series", json::array({{{"cpus", 2}, {"measured", true}, {"rows", rows}}})}}})},
          {"summary", summary(0.254, 2, 2, 1.0)}};
}

TEST(ScalingReportTest, TheVerdictNamesBothChecksAndWhichIsMissed) {
  const json threads = {{"summary", summary(0.041, 80, 80, 0.9125)}};
  const std::string both = study::scaling_verdict(threads, planted_wider());
  EXPECT_NE(both.find("the 2-CPU series predicted within 25.4% median (2 rows; aim ≤ 15%: **not met**), 2 of 2 inside"),
            std::string::npos)
      << both;
  EXPECT_NE(both.find("more threads predicted within 4.10% median (80 rows; aim ≤ 15%: met), 73 of 80 inside"),
            std::string::npos)
      << both;
  // One check alone, a row with no interval, and nothing when neither ran.
  const std::string one = study::scaling_verdict(json(), {{"summary", summary(0.12, 5, 4, 0.75)}});
  EXPECT_EQ(one.find("threads"), std::string::npos) << one;
  EXPECT_NE(one.find("aim ≤ 15%: met), 3 of 4 inside their 95% intervals, 1 with no interval"), std::string::npos)
      << one;
  EXPECT_EQ(study::scaling_verdict(json(), json()), "");
  EXPECT_EQ(study::scaling_verdict({{"summary", json::object()}}, json()), "");  // no rows judged: nothing to say
}

TEST(ScalingReportTest, TheSectionListsTheWiderSeriesRowByRow) {
  const auto with = study::scaling_section({}, planted_wider());
  EXPECT_NE(with.markdown.find("### Wider machines from one CPU"), std::string::npos) << with.markdown;
  EXPECT_NE(with.markdown.find("| #1 | 2 | 2 | 27000 | 20000 [14000 – 34000] | one in flight | -25.9% |"),
            std::string::npos)
      << with.markdown;
  EXPECT_NE(with.markdown.find("cpu capacity (upper bound)"), std::string::npos) << with.markdown;
  EXPECT_EQ(with.markdown.find("No CPU-scaling rows were measured"), std::string::npos);
  // Only a result priced by the corpus's capacity efficiency says so, with its factor and spread.
  EXPECT_EQ(with.markdown.find("capacity_efficiency.json"), std::string::npos) << with.markdown;
  json priced = planted_wider();
  priced["capacity_efficiency"] = {{"log_mean", -0.038},
                                   {"log_sd", 0.0403},
                                   {"rows", 109},
                                   {"runs", 19},
                                   {"hosts", 5},
                                   {"estimated", "2026-12-08"},
                                   {"source", "datasets/machines/capacity_efficiency.json"}};
  const auto carried = study::scaling_section({}, priced);
  EXPECT_NE(carried.markdown.find("the bound as the machine corpus's hosts deliver it: ×0.963 a doubling of the CPUs, "
                                  "log sd 0.040 (5 hosts, `datasets/machines/capacity_efficiency.json`)"),
            std::string::npos)
      << carried.markdown;
  const auto without = study::scaling_section({}, json());
  EXPECT_EQ(without.markdown.find("### Wider machines"), std::string::npos);
  EXPECT_NE(without.markdown.find("No CPU-scaling rows were measured"), std::string::npos);
}

}  // namespace
}  // namespace pollscale::app
