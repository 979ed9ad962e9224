// The run's facts typed: the stability block written by calibrate reads back by field, and a
// damaged or older context keeps what is readable.

#include "datasets/run_facts.hpp"

#include <gtest/gtest.h>

namespace pollscale::datasets {
namespace {

TEST(RunFactsTest, StabilityRoundTripsWithItsCrossCpuBlock) {
  stability_facts drift{"poll over 64 pipes", 2349, 2820.5, 2737.75, 2935.5, 1.07, 1.30, 0.005, "none", 0, true};
  stability_facts wake{"round trip", 106,  19865.6, 19418.5, 26268.8, 1.35, 1.4, 0.6, "t = 0-54.8 s at 1.35x p10",
                       54.8,         false};
  nlohmann::json context = {{"warnings", {"w1"}},
                            {"failures", nlohmann::json::array()},
                            {"skipped", {{{"point", "p"}, {"reason", "r"}}}},
                            {"reference",
                             {{"poll_loop", {{"median_ratio", 1.004}, {"point", "find_active/poll"}}},
                              {"perf_pipe", {{"missing", "perf is not installed"}}}}}};
  write_stability(context, drift, wake);
  const run_facts f = read_run_facts(context);
  ASSERT_TRUE(f.drift && f.cross_cpu);
  EXPECT_EQ(f.drift->readings, 2349u);
  EXPECT_EQ(f.drift->median_ns, 2820.5);
  EXPECT_EQ(f.drift->stable, true);
  EXPECT_EQ(f.cross_cpu->worst_episode, "t = 0-54.8 s at 1.35x p10");
  EXPECT_EQ(f.cross_cpu->worst_episode_s, 54.8);
  EXPECT_EQ(f.cross_cpu->stable, false);
  EXPECT_EQ(to_json(*f.cross_cpu), context["stability"]["cross_cpu"]);
  ASSERT_EQ(f.references.size(), 2u);  // in key order
  EXPECT_EQ(f.references[0].name, "perf_pipe");
  EXPECT_FALSE(f.references[0].median_ratio.has_value());
  EXPECT_EQ(f.references[0].missing, "perf is not installed");
  EXPECT_EQ(f.references[1].median_ratio, 1.004);
  EXPECT_EQ(f.warnings, std::vector<std::string>{"w1"});
  ASSERT_EQ(f.skipped.size(), 1u);
  EXPECT_EQ(f.skipped[0].second, "r");
}

TEST(RunFactsTest, PlacementRoundTripsInsideTheStabilityBlock) {
  nlohmann::json context;
  write_stability(context, stability_facts{}, std::nullopt);
  placement_facts p{"cache line", 118, 455.2, true, 66.1, 461.0, 0.33, 2};
  write_placement(context, p);
  const run_facts f = read_run_facts(context);
  ASSERT_TRUE(f.placement.has_value());
  EXPECT_EQ(f.placement->readings, 118u);
  EXPECT_TRUE(f.placement->moved);
  EXPECT_EQ(f.placement->near_ns, 66.1);
  EXPECT_EQ(f.placement->far_ns, 461.0);
  EXPECT_EQ(f.placement->near_share, 0.33);
  EXPECT_EQ(f.placement->moves, 2u);
  EXPECT_EQ(to_json(*f.placement), context["stability"]["placement"]);
  // Older contexts have none; a damaged one keeps what is readable.
  EXPECT_FALSE(read_run_facts(nlohmann::json{{"stability", nlohmann::json::object()}}).placement.has_value());
  const auto damaged =
      read_run_facts({{"stability", {{"placement", {{"moved", "yes"}, {"moves", -1}, {"near_ns", "x"}}}}}});
  ASSERT_TRUE(damaged.placement.has_value());
  EXPECT_FALSE(damaged.placement->moved);
  EXPECT_EQ(damaged.placement->moves, 0u);
  EXPECT_FALSE(damaged.placement->near_ns.has_value());
}

TEST(RunFactsTest, ADamagedOrOlderContextKeepsWhatIsReadable) {
  EXPECT_FALSE(read_run_facts(nlohmann::json::array()).drift.has_value());
  EXPECT_EQ(read_run_facts({{"stability", {{"readings", 1e300}}}}).drift->readings, 0u);  // no cast of 1e300
  const nlohmann::json older = {{"warnings", {"w", 3, nullptr}},
                                {"skipped", {"not an object", {{"point", 5}, {"reason", "r"}}}},
                                {"stability", {{"readings", 0}, {"sentinel", "s"}, {"stable", "yes"}}},
                                {"reference", {{"poll_loop", 1.0}, {"perf_pipe", {{"tool", "perf"}}}}}};
  const run_facts f = read_run_facts(older);
  EXPECT_EQ(f.warnings, std::vector<std::string>{"w"});
  ASSERT_EQ(f.skipped.size(), 1u);
  EXPECT_EQ(f.skipped[0].first, "");  // a number is no point's name
  ASSERT_TRUE(f.drift.has_value());
  EXPECT_FALSE(f.drift->median_ns.has_value());
  EXPECT_FALSE(f.drift->stable.has_value());  // "yes" is not a verdict
  EXPECT_FALSE(f.cross_cpu.has_value());
  ASSERT_EQ(f.references.size(), 1u);
  EXPECT_EQ(f.references[0].missing, "no readings");
}

}  // namespace
}  // namespace pollscale::datasets
