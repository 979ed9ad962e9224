#include "datasets/fast_mode.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "datasets/input_error.hpp"

namespace pollscale::datasets {
namespace {

key point(const char* metric, const char* unit, std::int64_t n) {
  key k;
  k.scenario = "find_active";
  k.mechanism = "poll";
  k.fd_kind = "pipe";
  k.n_fds = n;
  k.metric = metric;
  k.unit = unit;
  return k;
}

// The drift sentinel's correction: the run's fast mode over the reading at the moment; no
// usable reading or reference leaves the value as measured.
TEST(FastModeTest, TheFactorIsTheFastModeOverTheReading) {
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, 4000), 0.5);
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, 2000), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, 1600), 1.25);  // a reading below the p10
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, std::nullopt), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, -5.0), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, std::numeric_limits<double>::quiet_NaN()), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(2000, std::numeric_limits<double>::infinity()), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(0, 4000), 1.0);
  EXPECT_DOUBLE_EQ(fast_mode_factor(std::numeric_limits<double>::quiet_NaN(), 4000), 1.0);
}

// Each visit's samples scaled by p10 / its reading (times up, rates down, counts as they
// were), each summary summarised again from them; a summary without samples kept as it was.
TEST(FastModeTest, SamplesAreScaledAndSummariesSummarisedAgain) {
  dataset d;
  d.context = {{"stability", {{"p10_ns", 1000.0}}}};
  const double slow[] = {1.0, 2.0, 1.25};
  for (const auto& [k, value, scales] :
       {std::tuple{point("time_per_call", "us", 10), 3.0, 1}, std::tuple{point("throughput", "1/s", 10), 600.0, -1},
        std::tuple{point("wakeups", "1", 10), 1.5, 0}})
    for (std::int64_t v = 0; v < 3; ++v)
      for (int b = 0; b < 4; ++b) {
        sample_row r;
        r.k = k;
        r.visit = v;
        r.value = scales > 0 ? value * slow[v] : (scales < 0 ? value / slow[v] : value);
        r.sentinel_ns = 1000.0 * slow[v];
        d.samples.push_back(r);
      }
  d.summaries = summarise_samples(d.samples);
  summary_row unsampled{point("time_per_call", "us", 99), {}};
  unsampled.s.median = 42;
  d.summaries.push_back(unsampled);
  const auto a = adjusted_to_fast_mode(d, "run");
  ASSERT_EQ(a.summaries.size(), 4u);
  for (const auto& r : a.summaries) {
    const double expected =
        r.k.n_fds == 99 ? 42 : (r.k.metric == "time_per_call" ? 3.0 : (r.k.metric == "throughput" ? 600.0 : 1.5));
    EXPECT_NEAR(r.s.median, expected, expected * 1e-12) << r.k.metric;
    if (r.k.n_fds == 10) {
      EXPECT_NEAR(r.s.ci95_hi, expected, expected * 1e-9) << r.k.metric;
    }
  }
  // The raw summaries kept the mix: 1.25x the cost at the median visit.
  EXPECT_NEAR(d.summaries[1].s.median, 3.75, 1e-12);
}

TEST(FastModeTest, ARunWithoutADriftSentinelIsRefusedByName) {
  EXPECT_FALSE(fast_mode_ns(nlohmann::json::object()));
  EXPECT_FALSE(fast_mode_ns({{"stability", {{"p10_ns", -3.0}}}}));
  EXPECT_FALSE(fast_mode_ns({{"stability", {{"p10_ns", "fast"}}}}));
  EXPECT_EQ(*fast_mode_ns({{"stability", {{"p10_ns", 2500.0}}}}), 2500.0);
  try {
    adjusted_to_fast_mode(dataset{}, "some/run");
    ADD_FAILURE() << "adjusted without a sentinel";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("some/run/context.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pollscale::datasets
