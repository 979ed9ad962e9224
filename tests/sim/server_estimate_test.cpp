#include "sim/server_estimate.hpp"
#include "sim/costs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/call_variation.hpp"
#include "sim/server_experiment.hpp"

namespace pollscale::sim {
namespace {

// poll-like (1 us a call, 40 ns a registered fd, 60 ns a blocking registration) and
// epoll-like (1.5 us a call, 100 ns a ready event) costs, 20 us to handle an event.
cost_model linear_costs(double call, double per_fd, double per_fd_blocking, double per_ready) {
  cost_table t;  // one entry, as a costs file would give it (its name matters only for rtsig)
  t.wait["linear"] = {call, per_fd, per_ready, per_fd_blocking};
  t.rearm_s["linear"] = 0;
  t.handler_s = 20e-6;
  t.wakeup_same_cpu_s = 3e-6;
  t.wakeup_cross_cpu_s = 30e-6;
  return make_cost_model(t, "linear");
}
cost_model poll_like() { return linear_costs(1e-6, 40e-9, 60e-9, 0); }
cost_model epoll_like() { return linear_costs(1.5e-6, 0, 0, 100e-9); }

server_estimate estimate(const server_config& c, const workload& w, const cost_model& m) {
  const estimate_result r = estimate_server(c, w, m);
  EXPECT_TRUE(r.estimate) << r.not_covered;
  return r.estimate.value_or(server_estimate{});
}

TEST(ServerEstimateTest, AClosedLoopWithoutThinkingServesEveryClientEachCycle) {
  // 100 clients answering at once: every cycle is one call over 100 + idle fds with 100
  // ready (a blocking registration on 1/101 of the fds on average) and 100 handlings, and
  // every response is exactly that cycle. The estimate takes the ready count at the call's
  // start as the arrivals during the handling (83 of 100 here), 1.2 us dearer a call: 0.05%.
  workload w;
  w.active = 100;
  w.idle = 10000;
  const double cycle = 1e-6 + 40e-9 * 10100 + 60e-9 * 10100.0 / 101 + 100 * 20e-6;
  const server_estimate e = estimate(default_server_config("poll"), w, poll_like());
  EXPECT_NEAR(e.throughput, 100 / cycle, 1e-3 * e.throughput);
  EXPECT_NEAR(e.latency_mean_s, cycle, 1e-3 * cycle);
  EXPECT_NEAR(e.latency_p99_s, cycle, 1e-3 * cycle);
  EXPECT_NEAR(e.cpu_utilisation, 1, 1e-9);
  EXPECT_NEAR(e.events_per_call, 100, 1e-6);
  EXPECT_FALSE(e.saturated);
}

// On a machine wider than its costs' own the estimate charges every CPU cost at the width's
// multiple, as the simulation does (cost_model::width): measured on one CPU at half a CPU's
// worth a doubling, one thread on two CPUs runs the closed loop above at twice its cycle.
TEST(ServerEstimateTest, AWiderMachineThanTheCostsOwnTakesTheWidthsMultipleOfEveryCost) {
  workload w;
  w.active = 100;
  w.idle = 10000;
  cost_model m = poll_like();
  m.width = cpu_width_pricing{1, std::log(0.5), 0.0, 0.0};
  server_config two = default_server_config("poll");
  two.cpus = 2;
  const server_estimate narrow = estimate(default_server_config("poll"), w, m);
  const server_estimate wide = estimate(two, w, m);
  EXPECT_NEAR(wide.throughput, narrow.throughput / 2, 1e-3 * narrow.throughput);
  EXPECT_NEAR(wide.latency_mean_s, 2 * narrow.latency_mean_s, 2e-3 * narrow.latency_mean_s);
  EXPECT_NEAR(wide.cpu_utilisation, narrow.cpu_utilisation / 2, 1e-6);  // one thread busy of two CPUs
}

// The estimate asks its calls with the server's threads as the process's threads, as the
// simulation does (wait_query::process_threads).
TEST(ServerEstimateTest, CallsAreAskedWithTheServersThreads) {
  cost_model m = poll_like();
  std::vector<std::int64_t> asked;
  const auto call = m.wait_call_s;
  m.wait_call_s = [&asked, call](const wait_query& q) {
    asked.push_back(q.process_threads);
    return call(q);
  };
  workload w;
  w.active = 100;
  w.idle = 1000;
  server_config c = default_server_config("poll");
  c.threads = 2;
  c.cpus = 2;
  estimate(c, w, m);
  ASSERT_FALSE(asked.empty());
  for (auto t : asked) EXPECT_EQ(t, 2);
  c.workers = worker_kind::processes;  // two processes of one thread each
  asked.clear();
  estimate(c, w, m);
  ASSERT_FALSE(asked.empty());
  for (auto t : asked) EXPECT_EQ(t, 1);
}

// The estimate against the simulator it summarises, over loads from light to near
// saturation. Measured over bench/sim_estimate_accuracy's 39 configurations (docs/sim.md):
// throughput within 10.1%, mean latency 22.4%, p99 39.8%, utilisation 0.02; the bounds below
// leave room for the shorter runs here.
TEST(ServerEstimateTest, AgreesWithTheSimulationFromLightLoadToNearSaturation) {
  struct one_case {
    const char* mechanism;
    std::int64_t idle;
    int load;  // 0: closed 20 clients thinking exp 1 ms; 1: Poisson 10 000/s; 2: Poisson 40 000/s
  };
  const one_case cases[] = {{"poll", 0, 0},     {"poll", 0, 2},      {"poll", 1000, 0},
                            {"poll", 1000, 1},  {"poll", 10000, 0},  {"poll", 10000, 2},
                            {"poll", 50000, 1}, {"epoll", 50000, 0}, {"epoll", 50000, 2}};
  for (const auto& k : cases) {
    workload w;
    w.idle = k.idle;
    if (k.load == 0) {
      w.active = 20;
      w.think = distribution::exponential(1e-3);
    } else {
      w.active = 100;
      w.arrivals = arrival_kind::poisson;
      w.rate_per_s = k.load == 1 ? 10000 : 40000;
    }
    const server_config c = default_server_config(k.mechanism);
    const cost_model m = std::string(k.mechanism) == "poll" ? poll_like() : epoll_like();
    const server_estimate e = estimate(c, w, m);
    run_options o;
    o.duration_s = 1;
    o.warmup_s = 0.1;
    o.seed = 11;
    const experiment_result s = run_server_experiment(c, w, m, o, stopping_rule{});
    const std::string what =
        std::string(k.mechanism) + " idle " + std::to_string(k.idle) + " load " + std::to_string(k.load);
    EXPECT_NEAR(e.throughput / s.throughput.mean, 1, 0.12) << what;
    EXPECT_NEAR(e.cpu_utilisation, s.cpu_utilisation.mean, 0.03) << what;
    EXPECT_NEAR(e.latency_mean_s / s.latency_mean_s.mean, 1, 0.25) << what;
    EXPECT_NEAR(e.latency_p99_s / s.latency_p99_s.mean, 1, 0.45) << what;
    double by_use = 0;
    for (const double share : e.cpu_share) by_use += share;
    EXPECT_NEAR(by_use, e.cpu_utilisation, 0.03) << what;
  }
}

// Single calls that vary (a call spread) leave the estimate's throughput and mean where they
// were, widen its p99, and keep it as close to the simulation's (which varies every call)
// as the fixed-cost check above asks.
TEST(ServerEstimateTest, ACallSpreadWidensTheP99AsTheSimulationDoes) {
  datasets::spread_shape tail;
  tail.point = "planted";
  tail.mean_ns = 20000;
  tail.ratios = {0.7, 0.75, 0.8, 0.82, 0.86, 0.9, 0.95, 1.05, 1.2, 3.0, 6.0, 8.0};
  tail.samples = 3000;
  tail.visits = 3;
  datasets::call_spread spread;
  spread.wait_calls = spread.handlers = spread.wakeups_same_cpu = spread.wakeups_cross_cpu = {tail};
  for (const int open : {0, 1}) {
    workload w;
    w.idle = 1000;
    if (open) {
      w.active = 100;
      w.arrivals = arrival_kind::poisson;
      w.rate_per_s = 10000;
    } else {
      w.active = 20;
      w.think = distribution::exponential(1e-3);
    }
    const server_config c = default_server_config("poll");
    const cost_model fixed = poll_like();
    cost_model varied = fixed;
    varied.variation = std::make_shared<const call_variation>(spread);
    const server_estimate a = estimate(c, w, fixed), b = estimate(c, w, varied);
    EXPECT_NEAR(b.throughput / a.throughput, 1, 0.01) << open;
    EXPECT_NEAR(b.latency_mean_s / a.latency_mean_s, 1, 0.01) << open;
    EXPECT_GT(b.latency_p99_s, 1.05 * a.latency_p99_s) << open;
    run_options o;
    o.duration_s = 1;
    o.warmup_s = 0.1;
    o.seed = 12;
    const experiment_result s = run_server_experiment(c, w, varied, o, stopping_rule{});
    EXPECT_NEAR(b.latency_p99_s / s.latency_p99_s.mean, 1, 0.45) << open;
  }
}

TEST(ServerEstimateTest, OpenArrivalsPastWhatTheLoopServesSaturate) {
  // Each connection is handled once a cycle: 100 connections over 50 100 fds serve at most
  // 100 / (W(100) + 100 x 20 us) = about 25 000 requests/s, whatever arrives.
  workload w;
  w.active = 100;
  w.idle = 50000;
  w.arrivals = arrival_kind::poisson;
  w.rate_per_s = 40000;
  const server_estimate e = estimate(default_server_config("poll"), w, poll_like());
  EXPECT_TRUE(e.saturated);
  EXPECT_TRUE(std::isinf(e.latency_p99_s));
  const double cycle = 1e-6 + 40e-9 * 50100 + 60e-9 * 50100.0 / 101 + 100 * 20e-6;
  EXPECT_NEAR(e.throughput, 100 / cycle, 0.01 * e.throughput);
  // The CPU's split then is that cycle's: the call's share of it in wait calls, the rest in
  // handlers (poll over 50 100 fds: about half and half), not all in handlers.
  const double call = cycle - 100 * 20e-6;
  EXPECT_NEAR(e.cpu_share[static_cast<std::size_t>(cpu_use::wait_calls)], call / cycle, 0.01);
  EXPECT_NEAR(e.cpu_share[static_cast<std::size_t>(cpu_use::handlers)], 100 * 20e-6 / cycle, 0.01);
  w.rate_per_s = 10000;  // well within: a steady state
  EXPECT_FALSE(estimate(default_server_config("poll"), w, poll_like()).saturated);
}

TEST(ServerEstimateTest, ThreadsOnTheirOwnCpusEachTakeTheirShare) {
  workload w;
  w.active = 200;
  w.idle = 20000;
  server_config one = default_server_config("poll");
  server_config two = one;
  two.cpus = two.threads = 2;
  workload half = w;
  half.active = 100;
  half.idle = 10000;
  const server_estimate a = estimate(two, w, poll_like()), b = estimate(one, half, poll_like());
  EXPECT_NEAR(a.throughput, 2 * b.throughput, 1e-6 * a.throughput);
  EXPECT_NEAR(a.cpu_utilisation, b.cpu_utilisation, 1e-9);
}

TEST(ServerEstimateTest, SaysWhatItDoesNotCover) {
  workload w;
  const auto why = [&](const server_config& c, const workload& x) {
    return estimate_server(c, x, poll_like()).not_covered;
  };
  EXPECT_NE(why(default_server_config("rtsig"), w).find("signal queue"), std::string::npos);
  server_config herd = default_server_config("poll");
  herd.cpus = 2;
  herd.threads = 2;
  herd.sharing = interest_sharing::shared;
  EXPECT_NE(why(herd, w).find("sharing one interest set"), std::string::npos);
  server_config crowded = default_server_config("poll");
  crowded.threads = 2;
  EXPECT_NE(why(crowded, w).find("more threads than CPUs"), std::string::npos);
  workload bursts;
  bursts.arrivals = arrival_kind::on_off;
  bursts.rate_per_s = 1000;
  EXPECT_NE(why(default_server_config("poll"), bursts).find("on/off"), std::string::npos);
  EXPECT_EQ(why(default_server_config("poll"), w), "");
}

TEST(ServerEstimateTest, TheSameInputsGiveTheSameEstimate) {
  workload w;
  w.active = 20;
  w.idle = 5000;
  w.think = distribution::exponential(1e-3);
  const server_estimate a = estimate(default_server_config("poll"), w, poll_like());
  const server_estimate b = estimate(default_server_config("poll"), w, poll_like());
  EXPECT_EQ(a.throughput, b.throughput);
  EXPECT_EQ(a.latency_p99_s, b.latency_p99_s);
}

}  // namespace
}  // namespace pollscale::sim
