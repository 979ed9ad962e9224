#include "sim/token_ring.hpp"

#include <gtest/gtest.h>

namespace pollscale::sim {
namespace {

cost_model ring_costs(double call, double handler, double same, double cross) {
  cost_model m;
  m.wait_call_s = [call](const wait_query&) { return call; };
  m.rescan_s = [call](const wait_query&) { return call; };
  m.handler_s = handler;
  m.wakeup_same_cpu_s = same;
  m.wakeup_cross_cpu_s = cross;
  return m;
}

run_options span(double duration) {
  run_options o;
  o.duration_s = duration;
  o.warmup_s = 0;
  return o;
}

TEST(TokenRingTest, OneThreadOneTokenPassesOncePerCallAndHandling) {
  // Each pass: a 1 s call that finds the token, 2 s to read it and write it on.
  const token_ring_config c{10, 1, 1, 1};
  const token_ring_result r = simulate_token_ring(c, ring_costs(1, 2, 3, 5), span(30));
  EXPECT_EQ(r.passes, 10U);  // at 3, 6, ..., 30
  EXPECT_DOUBLE_EQ(r.passes_per_s, 10.0 / 30);
  EXPECT_EQ(r.wakeups, 0U);
}

TEST(TokenRingTest, PassingToAnotherThreadsSegmentWakesIt) {
  // 4 pipes, threads own {0,1} and {2,3} on two CPUs. Passes at 3, 6 (thread 0), then the
  // token crosses: thread 1 wakes at 6 + 5, rescans to 12, passes at 14 and 17; thread 0
  // wakes at 22, passes at 25, 28; thread 1 at 36, 39.
  const token_ring_config c{4, 1, 2, 2};
  const token_ring_result r = simulate_token_ring(c, ring_costs(1, 2, 3, 5), span(40));
  EXPECT_EQ(r.passes, 8U);
  EXPECT_EQ(r.wakeups, 4U);
}

TEST(TokenRingTest, PerPassCostGrowsWithTheRingForAScanningMechanism) {
  // wait call = 1 us + 10 ns per pipe; handler 2 us: passes/s = 1 / (3 us + 10 ns n).
  cost_model m = ring_costs(0, 2e-6, 0, 0);
  m.wait_call_s = [](const wait_query& q) { return 1e-6 + 10e-9 * static_cast<double>(q.registered); };
  for (std::int64_t n : {10, 1000, 16000}) {
    const token_ring_result r = simulate_token_ring({n, 1, 1, 1}, m, span(0.05));
    const double expected = 1 / (3e-6 + 10e-9 * static_cast<double>(n));
    EXPECT_NEAR(r.passes_per_s, expected, 1 / 0.05 + 1e-9 * expected) << n;  // +-1 pass
  }
}

TEST(TokenRingTest, RejectsBadConfigurations) {
  const cost_model m = ring_costs(1, 1, 1, 1);
  EXPECT_THROW(simulate_token_ring({1, 1, 1, 1}, m, span(1)), std::invalid_argument);
  EXPECT_THROW(simulate_token_ring({10, 11, 1, 1}, m, span(1)), std::invalid_argument);
  EXPECT_THROW(simulate_token_ring({10, 1, 11, 1}, m, span(1)), std::invalid_argument);
  EXPECT_THROW(simulate_token_ring({10, 1, 1, 1}, m, span(0)), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::sim
