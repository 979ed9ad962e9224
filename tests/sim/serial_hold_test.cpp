#include "sim/serial_hold.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "sim/event_loop_server.hpp"

namespace pollscale::sim {
namespace {

TEST(SerialHoldTest, OneHolderAtATimeInArrivalOrder) {
  serial_hold h;
  h.reset_statistics(0);
  EXPECT_TRUE(h.take(7, 0));    // free: held at once
  EXPECT_FALSE(h.take(3, 1));   // waits behind 7
  EXPECT_FALSE(h.take(5, 2));   // and behind 3
  EXPECT_EQ(h.release(4), 3U);  // 3 holds from 4 (waited 3 s)
  EXPECT_EQ(h.release(6), 5U);  // 5 from 6 (waited 4 s)
  EXPECT_EQ(h.release(8), std::nullopt);
  EXPECT_EQ(h.passes(), 3U);
  EXPECT_DOUBLE_EQ(h.mean_wait_s(), (0 + 3 + 4) / 3.0);
  EXPECT_DOUBLE_EQ(h.busy_fraction(10), 0.8);  // held 0..8 of 0..10
  EXPECT_TRUE(h.take(1, 10));
  h.reset_statistics(10);  // the holder keeps it; the figures start again
  EXPECT_EQ(h.passes(), 0U);
  EXPECT_DOUBLE_EQ(h.busy_fraction(12), 1.0);
}

// A server whose threads always find work: every client sends again at once, one event per
// call, so each thread loops call (10 s) -> handling (1 s) and never sleeps.
server_config busy_shared(int threads) {
  server_config c = default_server_config("epoll");
  c.cpus = threads;
  c.threads = threads;
  c.sharing = interest_sharing::shared;
  c.wake = wake_policy::one;
  c.max_events_per_call = 1;
  return c;
}

cost_model calls_of(double call, double hold) {
  cost_model m;
  m.wait_call_s = [call](const wait_query&) { return call; };
  m.rescan_s = m.wait_call_s;
  m.handler_s = 1;
  m.shared_set_hold_s = hold;
  return m;
}

workload always_ready() {
  workload w;
  w.active = 64;
  w.think = distribution::constant(0);
  return w;
}

run_options long_run() {
  run_options o;
  o.duration_s = 22'000;  // 2,000 cycles of one thread
  o.warmup_s = 110;
  o.slices = 10;
  return o;
}

// The bottleneck law, exact for constant costs: T threads on T CPUs, each cycle a call of c
// (its last s held alone) and a handling of h, deliver min(T / (c + h), 1 / s) replies per
// second. Held 8 s of a 10-s call, four threads pass one reply per 8 s, not four per 11 s.
TEST(SerialHoldTest, ASharedSetsSerialPartCapsThroughputAtOnePassPerHold) {
  const server_result free = simulate_server(busy_shared(4), always_ready(), calls_of(10, 0), long_run());
  EXPECT_NEAR(free.throughput, 4.0 / 11, 0.01 * 4 / 11);
  EXPECT_DOUBLE_EQ(free.shared_set_busy, 0);
  const server_result held = simulate_server(busy_shared(4), always_ready(), calls_of(10, 8), long_run());
  EXPECT_NEAR(held.throughput, 1.0 / 8, 0.01 / 8);
  EXPECT_GT(held.shared_set_busy, 0.99);
  // Each pass waits for the others' holds: a cycle of 4 × 8 = 32 s is 11 s of its own work.
  EXPECT_NEAR(held.shared_set_wait_s, 32 - 11, 0.5);
  // The hold is part of the call's CPU time, not added to it: a CPU spends 11 s a cycle.
  const double span_cpu_s = 4 * long_run().duration_s;
  EXPECT_NEAR((held.cpu_s[0] + held.cpu_s[4]) / span_cpu_s, 11.0 / 32, 0.01);
}

// Below the cap the threads fall into step and never wait: two threads, hold 4 s of a
// 10-s call: min(2 / 11, 1 / 4) = 2 / 11.
TEST(SerialHoldTest, BelowTheCapTheThreadsDeliverWhatTheirCPUsAllow) {
  const server_result r = simulate_server(busy_shared(2), always_ready(), calls_of(10, 4), long_run());
  EXPECT_NEAR(r.throughput, 2.0 / 11, 0.01 * 2 / 11);
  EXPECT_NEAR(r.shared_set_busy, 4 * 2.0 / 11, 0.01);
}

// One thread never waits for itself: with or without a hold, the same run to the event.
TEST(SerialHoldTest, OneThreadAloneRunsAsIfThereWereNoHold) {
  const server_result without = simulate_server(busy_shared(1), always_ready(), calls_of(10, 0), long_run());
  const server_result with = simulate_server(busy_shared(1), always_ready(), calls_of(10, 8), long_run());
  EXPECT_EQ(with.replies, without.replies);
  EXPECT_EQ(with.calls, without.calls);
  EXPECT_EQ(with.events, without.events);
  EXPECT_DOUBLE_EQ(with.mean_latency_s, without.mean_latency_s);
  EXPECT_DOUBLE_EQ(with.shared_set_busy, 0);
}

// Threads with sets of their own share nothing: the hold is not theirs to pay.
TEST(SerialHoldTest, PerThreadSetsHoldNothing) {
  server_config c = busy_shared(4);
  c.sharing = interest_sharing::per_thread;
  const server_result without = simulate_server(c, always_ready(), calls_of(10, 0), long_run());
  const server_result with = simulate_server(c, always_ready(), calls_of(10, 8), long_run());
  EXPECT_EQ(with.replies, without.replies);
  EXPECT_NEAR(with.throughput, 4.0 / 11, 0.01 * 4 / 11);
}

// A hold longer than the call is the whole call: never more than what one thread pays.
TEST(SerialHoldTest, AHoldLongerThanTheCallHoldsTheWholeCall) {
  const server_result r = simulate_server(busy_shared(4), always_ready(), calls_of(10, 50), long_run());
  EXPECT_NEAR(r.throughput, 1.0 / 10, 0.01 / 10);
}

TEST(SerialHoldTest, ANegativeOrNonFiniteHoldIsRefused) {
  for (const double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    EXPECT_THROW(simulate_server(busy_shared(2), always_ready(), calls_of(10, bad), long_run()), std::invalid_argument)
        << bad;
}

}  // namespace
}  // namespace pollscale::sim
