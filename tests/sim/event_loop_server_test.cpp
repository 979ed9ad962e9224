#include "sim/event_loop_server.hpp"

#include <gtest/gtest.h>

#include <limits>

#include <cmath>
#include <vector>

#include "sim/analytic.hpp"
#include "sim/core/output_analysis.hpp"
#include "sim/core/random.hpp"
#include "sim/server_experiment.hpp"

namespace pollscale::sim {
namespace {

// Integer costs so that every simulated time below can be checked by hand.
cost_model integer_costs(double call, double rescan, double handler, double same, double cross) {
  cost_model m;
  m.wait_call_s = [call](const wait_query&) { return call; };
  m.rescan_s = [rescan](const wait_query&) { return rescan; };
  m.overflow_poll_s = [rescan](const wait_query&) { return rescan; };
  m.handler_s = handler;
  m.wakeup_same_cpu_s = same;
  m.wakeup_cross_cpu_s = cross;
  return m;
}

workload closed_clients(std::int64_t active, double think) {
  workload w;
  w.active = active;
  w.think = distribution::constant(think);
  return w;
}

run_options run_for(double duration, double warmup = 0) {
  run_options o;
  o.duration_s = duration;
  o.warmup_s = warmup;
  o.slices = 10;
  return o;
}

TEST(EventLoopServerTest, BusyLoopServesOneRequestPerCallAndHandling) {
  // t=0: the thread's call (1 s) starts; the request arrives at 0 and is claimed at 1,
  // handled 1..3, replied at 3; the next call 3..4 finds the next request (sent at 3):
  // a reply every 3 s, each 3 s after its request.
  const server_result r =
      simulate_server(default_server_config("epoll"), closed_clients(1, 0), integer_costs(1, 1, 2, 3, 5), run_for(30));
  EXPECT_EQ(r.replies, 10U);
  EXPECT_DOUBLE_EQ(r.throughput, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.mean_latency_s, 3);
  EXPECT_DOUBLE_EQ(r.latency.quantile(0.99), 3);
  EXPECT_EQ(r.calls, 11U);  // calls start at 0, 3, ..., 30
  EXPECT_EQ(r.wakeups, 0U);
  ASSERT_EQ(r.cpu_utilisation.size(), 1U);
  EXPECT_DOUBLE_EQ(r.cpu_utilisation[0], 1.0);
}

// A server on a machine wider than the one its costs were measured on (cost_model::width):
// every CPU burst takes time_factor(cpus) times its cost. Measured on one CPU, priced at half
// a CPU's worth a doubling, the busy loop above on two CPUs takes 2 s a call and 4 s a
// handling: a reply every 6 s. On the CPUs measured nothing moves.
TEST(EventLoopServerTest, AWiderMachineThanTheCostsOwnRunsEveryBurstAtItsWidth) {
  cost_model m = integer_costs(1, 1, 2, 3, 5);
  m.width = cpu_width_pricing{1, std::log(0.5), 0.0, 0.0};
  server_config two = default_server_config("epoll");
  two.cpus = 2;
  const server_result r = simulate_server(two, closed_clients(1, 0), m, run_for(30));
  EXPECT_EQ(r.replies, 5U);
  EXPECT_DOUBLE_EQ(r.throughput, 1.0 / 6);
  EXPECT_DOUBLE_EQ(r.mean_latency_s, 6);
  const server_result same = simulate_server(default_server_config("epoll"), closed_clients(1, 0), m, run_for(30));
  EXPECT_DOUBLE_EQ(same.throughput, 1.0 / 3);
}

TEST(EventLoopServerTest, TheWidthFactorIsTheCorpussPerDoublingWithItsDraw) {
  const cpu_width_pricing w{2, -0.1, 0.05, 1.0};
  EXPECT_DOUBLE_EQ(w.time_factor(1), 1);
  EXPECT_DOUBLE_EQ(w.time_factor(2), 1);
  EXPECT_NEAR(w.time_factor(8), std::exp(-(-0.1 * 2 + 0.05 * std::sqrt(2.0) * 1.0)), 1e-15);
  EXPECT_NEAR(w.time_factor(16) / w.time_factor(4), std::exp(0.2 - 0.05 * (std::sqrt(3.0) - 1)), 1e-12);
  EXPECT_DOUBLE_EQ(cpu_width_pricing{}.time_factor(128), 1);  // nothing known: the measured speed
}

// Every call is asked with the server's threads as the process's (a scan costs more once
// the descriptor table is shared): a one-thread server asks with 1 and keeps its 1-s call,
// a server of three threads asks with 3.
TEST(EventLoopServerTest, CallsAreAskedWithTheServersThreadsAsTheProcesss) {
  cost_model m = integer_costs(1, 1, 2, 3, 5);
  std::vector<std::int64_t> asked;
  m.wait_call_s = [&asked](const wait_query& q) {
    asked.push_back(q.process_threads);
    return q.process_threads > 1 ? 2.0 : 1.0;
  };
  server_config one = default_server_config("epoll");
  const server_result alone = simulate_server(one, closed_clients(1, 0), m, run_for(30));
  EXPECT_DOUBLE_EQ(alone.throughput, 1.0 / 3);
  ASSERT_FALSE(asked.empty());
  for (auto t : asked) EXPECT_EQ(t, 1);
  server_config three = one;
  three.threads = 3;
  three.cpus = 3;
  asked.clear();
  simulate_server(three, closed_clients(1, 0), m, run_for(30));
  ASSERT_FALSE(asked.empty());
  for (auto t : asked) EXPECT_EQ(t, 3);
}

// Three processes of one thread each ask as one-thread processes do, and keep the 1-s call
// a server of three threads pays 2 s for: one client's loop of call + handling (2 s) answers
// every 3 s as processes (replies at 3, 6, ..., 30: ten in the 30-s run) and every 4 s as
// threads (at 4, 8, ..., 28: seven).
TEST(EventLoopServerTest, WorkersThatAreProcessesAskAsProcessesOfOneThread) {
  cost_model m = integer_costs(1, 1, 2, 3, 5);
  std::vector<std::int64_t> asked;
  m.wait_call_s = [&asked](const wait_query& q) {
    asked.push_back(q.process_threads);
    return q.process_threads > 1 ? 2.0 : 1.0;
  };
  server_config threads = default_server_config("epoll");
  threads.threads = 3;
  threads.cpus = 3;
  server_config processes = threads;
  processes.workers = worker_kind::processes;
  EXPECT_EQ(threads.process_threads(), 3);
  EXPECT_EQ(processes.process_threads(), 1);
  const server_result as_processes = simulate_server(processes, closed_clients(1, 0), m, run_for(30));
  ASSERT_FALSE(asked.empty());
  for (auto t : asked) EXPECT_EQ(t, 1);
  const server_result as_threads = simulate_server(threads, closed_clients(1, 0), m, run_for(30));
  EXPECT_DOUBLE_EQ(as_processes.throughput, 10.0 / 30);
  EXPECT_DOUBLE_EQ(as_threads.throughput, 7.0 / 30);
}

// rtsig's signal queue belongs to one process: its workers cannot be processes. The field
// reads back from its text, and refuses any other.
TEST(EventLoopServerTest, WorkersAreThreadsOrProcessesAndRtsigKeepsThreads) {
  EXPECT_EQ(parse_worker_kind("threads"), worker_kind::threads);
  EXPECT_EQ(parse_worker_kind("processes"), worker_kind::processes);
  EXPECT_EQ(to_string(worker_kind::processes), "processes");
  EXPECT_THROW(parse_worker_kind("forks"), std::invalid_argument);
  server_config rtsig = default_server_config("rtsig");
  rtsig.workers = worker_kind::processes;
  try {
    rtsig.validate();
    ADD_FAILURE() << "rtsig accepted processes";
  } catch (const field_error& e) {
    EXPECT_EQ(e.key, "workers");
  }
  server_config poll = default_server_config("poll");
  poll.workers = worker_kind::processes;
  EXPECT_NO_THROW(poll.validate());
}

TEST(EventLoopServerTest, RequestsLeftUnansweredCountAtTheirAgeWhenOlderThanEveryReply) {
  // A handling of 100 s in a 30-s run after a 5-s warm-up: the first request (sent at 0,
  // claimed at 1) is still being handled when the run ends at 35, so nothing is answered.
  // It must not read as a latency of 0: it counts at its age, 35 s.
  const server_result none = simulate_server(default_server_config("epoll"), closed_clients(1, 0),
                                             integer_costs(1, 1, 100, 3, 5), run_for(30, 5));
  EXPECT_EQ(none.replies, 0U);
  EXPECT_EQ(none.unanswered, 1U);
  EXPECT_DOUBLE_EQ(none.mean_latency_s, 35);
  EXPECT_DOUBLE_EQ(none.latency.quantile(0.99), 35);
  // The busy loop of the test above: the request in flight at the end (sent at 30) is
  // younger than every reply (3 s), so the figures are the replies' alone.
  const server_result some =
      simulate_server(default_server_config("epoll"), closed_clients(1, 0), integer_costs(1, 1, 2, 3, 5), run_for(30));
  EXPECT_EQ(some.unanswered, 0U);
  EXPECT_DOUBLE_EQ(some.mean_latency_s, 3);
}

TEST(EventLoopServerTest, SleepingThreadPaysTheWakeUpAndTheRescan) {
  // Call 0..1 finds nothing and sleeps; the request at 10 wakes it (same CPU, 3 s), the
  // rescan runs 13..14, handling 14..16: latency 6. Next call 16..17, sleep; request at 26.
  const server_result r =
      simulate_server(default_server_config("epoll"), closed_clients(1, 10), integer_costs(1, 1, 2, 3, 5), run_for(40));
  EXPECT_EQ(r.replies, 2U);  // replies at 16 and 32
  EXPECT_DOUBLE_EQ(r.mean_latency_s, 6);
  EXPECT_EQ(r.wakeups, 2U);
  EXPECT_EQ(r.calls, 3U);  // at 0, 16, 32
}

double cpu_s(const server_result& r, cpu_use u) { return r.cpu_s[static_cast<std::size_t>(u)]; }

TEST(EventLoopServerTest, CpuTimeIsSplitByWhatItWasSpentOn) {
  // The busy loop above: calls 0..1, 3..4, ..., 30..31 (11 started in the span, 11 s) and
  // handlings 1..3, ..., 28..30 (10, 20 s); nothing sleeps, so no rescan.
  const server_result busy =
      simulate_server(default_server_config("epoll"), closed_clients(1, 0), integer_costs(1, 1, 2, 3, 5), run_for(30));
  EXPECT_DOUBLE_EQ(cpu_s(busy, cpu_use::wait_calls), 11);
  EXPECT_DOUBLE_EQ(cpu_s(busy, cpu_use::handlers), 20);
  EXPECT_DOUBLE_EQ(cpu_s(busy, cpu_use::rescans), 0);
  EXPECT_DOUBLE_EQ(cpu_s(busy, cpu_use::overflow_polls), 0);
  EXPECT_DOUBLE_EQ(cpu_s(busy, cpu_use::rearms), 0);
  // The sleeping thread: calls at 0, 16, 32 (3 s), rescans 13..14 and 29..30 (2 s),
  // handlings 14..16 and 30..32 (4 s).
  const server_result sleepy =
      simulate_server(default_server_config("epoll"), closed_clients(1, 10), integer_costs(1, 1, 2, 3, 5), run_for(40));
  EXPECT_DOUBLE_EQ(cpu_s(sleepy, cpu_use::wait_calls), 3);
  EXPECT_DOUBLE_EQ(cpu_s(sleepy, cpu_use::rescans), 2);
  EXPECT_DOUBLE_EQ(cpu_s(sleepy, cpu_use::handlers), 4);
  // A one-shot re-arm (0.5 s) is its own use, out of the handling burst: calls 0..1,
  // 3.5..4.5, ... every 3.5 s (9 in 30 s), handlings of 2 + 0.5 s (8 complete + the one
  // started at 29: 9).
  cost_model oneshot = integer_costs(1, 1, 2, 3, 5);
  oneshot.rearm_s = [](std::int64_t) { return 0.5; };
  const server_result rearmed =
      simulate_server(default_server_config("epoll"), closed_clients(1, 0), oneshot, run_for(30));
  EXPECT_DOUBLE_EQ(cpu_s(rearmed, cpu_use::wait_calls), 9);
  EXPECT_DOUBLE_EQ(cpu_s(rearmed, cpu_use::rearms), 4.5);
  EXPECT_DOUBLE_EQ(cpu_s(rearmed, cpu_use::handlers), 18);
  // rtsig's full poll after an overflow (the test below): one second of it, six of handling.
  server_config c = default_server_config("rtsig");
  c.signal_queue_limit = 1;
  const server_result overflowed = simulate_server(c, closed_clients(3, 0), integer_costs(1, 1, 2, 3, 5), run_for(7));
  EXPECT_DOUBLE_EQ(cpu_s(overflowed, cpu_use::overflow_polls), 1);
  EXPECT_DOUBLE_EQ(cpu_s(overflowed, cpu_use::handlers), 6);
}

TEST(EventLoopServerTest, CrossCpuWakeUpCostsTheCrossCpuLatency) {
  server_config c = default_server_config("epoll");
  c.cpus = 2;
  c.irq_cpu = 1;  // the thread sits on CPU 0
  const server_result r = simulate_server(c, closed_clients(1, 10), integer_costs(1, 1, 2, 3, 5), run_for(40));
  EXPECT_DOUBLE_EQ(r.mean_latency_s, 8);  // 5 + 1 + 2
}

// Two threads on two CPUs share one set; both sleep at 1. The request at 10 wakes both
// (herd): thread 0 (same CPU as the interrupt) at 13, thread 1 at 15. Thread 0 rescans
// 13..14 and handles 14..16; thread 1 rescans 15..16, finds nothing and calls again.
// Exclusive wake-ups wake thread 0 alone.
TEST(EventLoopServerTest, HerdVersusExclusiveWakeUps) {
  server_config c = default_server_config("poll");
  c.cpus = 2;
  c.threads = 2;
  c.sharing = interest_sharing::shared;
  c.wake = wake_policy::all;
  const cost_model m = integer_costs(1, 1, 2, 3, 5);
  const server_result herd = simulate_server(c, closed_clients(1, 10), m, run_for(20));
  EXPECT_EQ(herd.replies, 1U);  // at 16
  EXPECT_DOUBLE_EQ(herd.mean_latency_s, 6);
  EXPECT_EQ(herd.wakeups, 2U);
  EXPECT_EQ(herd.futile_wakeups, 1U);
  EXPECT_EQ(herd.calls, 4U);  // two at 0, thread 1's again at 16, thread 0's at 16
  c.wake = wake_policy::one;
  const server_result exclusive = simulate_server(c, closed_clients(1, 10), m, run_for(20));
  EXPECT_EQ(exclusive.replies, 1U);
  EXPECT_EQ(exclusive.wakeups, 1U);
  EXPECT_EQ(exclusive.futile_wakeups, 0U);
  EXPECT_EQ(exclusive.calls, 3U);
}

// The same two threads, level-triggered sharing: the request at 10 wakes thread 0 alone
// (13); when its rescan hands the event out (14) the item stays on the ready list, and the
// next waiter is woken for it: thread 1, across CPUs, at 17. Thread 0 handles 14..16 (the
// reply at 16); thread 1 rescans 17..18, finds it taken (futile) and calls again.
TEST(EventLoopServerTest, LevelTriggeredSharingWakesASecondWaiterPerHandOut) {
  server_config c = default_server_config("epoll");
  c.cpus = 2;
  c.threads = 2;
  c.sharing = interest_sharing::shared;
  c.wake = wake_policy::level;
  const server_result r = simulate_server(c, closed_clients(1, 10), integer_costs(1, 1, 2, 3, 5), run_for(20));
  EXPECT_EQ(r.replies, 1U);
  EXPECT_DOUBLE_EQ(r.mean_latency_s, 6);  // as with one woken: the second waiter is not in the way
  EXPECT_EQ(r.wakeups, 2U);
  EXPECT_EQ(r.futile_wakeups, 1U);
  EXPECT_EQ(r.calls, 4U);  // two at 0, thread 0's at 16, thread 1's at 18
  EXPECT_EQ(parse_wake_policy("level"), wake_policy::level);
  EXPECT_EQ(to_string(wake_policy::level), "level");
  EXPECT_THROW(parse_wake_policy("two"), std::invalid_argument);
}

TEST(EventLoopServerTest, MaxEventsPerCallLimitsWhatOneCallReturns) {
  // Three clients send at 0. One event per call: handled 1..3, 4..6, 7..9 (a 1 s call
  // before each). No limit: the call ending at 1 returns all three, handled 1..3, 3..5, 5..7.
  server_config c = default_server_config("epoll");
  c.max_events_per_call = 1;
  const cost_model m = integer_costs(1, 1, 2, 3, 5);
  const server_result one = simulate_server(c, closed_clients(3, 0), m, run_for(9));
  EXPECT_EQ(one.replies, 3U);               // at 3, 6, 9
  EXPECT_DOUBLE_EQ(one.mean_latency_s, 6);  // (3 + 6 + 9) / 3
  EXPECT_EQ(one.calls, 4U);                 // at 0, 3, 6 and 9
  EXPECT_DOUBLE_EQ(one.events_per_call, 0.75);
  c.max_events_per_call = 0;
  const server_result all = simulate_server(c, closed_clients(3, 0), m, run_for(9));
  EXPECT_EQ(all.replies, 3U);  // at 3, 5, 7
  EXPECT_DOUBLE_EQ(all.mean_latency_s, 5);
}

TEST(EventLoopServerTest, LoadGeneratorSerialisesRepliesAndSleepsBetweenThem) {
  // Reply at 3; the sleeping generator wakes at 9 (6 s), reads it (round trip 9 s) and
  // writes the next request at 13 (4 s). The server, asleep since 4, wakes at 16, rescans
  // to 17, replies at 19; the generator reads at 25 (12 s), and so on: 9, 12, 12.
  workload w = closed_clients(1, 0);
  w.generator = load_generator{distribution::constant(4), distribution::constant(6)};
  const server_result r = simulate_server(default_server_config("epoll"), w, integer_costs(1, 1, 2, 3, 5), run_for(42));
  EXPECT_EQ(r.replies, 3U);
  EXPECT_DOUBLE_EQ(r.mean_latency_s, 11);
  // Two clients: the generator, awake for the first reply, takes the second without waking.
  workload two = closed_clients(2, 0);
  two.generator = w.generator;
  const server_result q =
      simulate_server(default_server_config("epoll"), two, integer_costs(1, 1, 2, 3, 5), run_for(14));
  // Replies at 3 and 5; the generator wakes at 9 and reads them at 9 and 13.
  EXPECT_EQ(q.replies, 2U);
  EXPECT_DOUBLE_EQ(q.mean_latency_s, (9.0 + 13.0) / 2);
}

// A replication in another placement of the two CPUs (cost_model::cross_cpu_factor 1.5):
// the generator's given costs are 6 and 9 s, the server's own costs (already priced by
// whoever set the factor) as they are. Reply at 3; the generator wakes at 12, reads it
// (12 s) and writes at 18; the server wakes at 21, rescans to 22, replies at 24; the
// generator reads at 33 (15 s): 12, 15.
TEST(EventLoopServerTest, TheLoadGeneratorsCostsMoveWithThePlacementOfTheCpus) {
  workload w = closed_clients(1, 0);
  w.generator = load_generator{distribution::constant(4), distribution::constant(6)};
  cost_model m = integer_costs(1, 1, 2, 3, 5);
  m.cross_cpu_factor = 1.5;
  const server_result r = simulate_server(default_server_config("epoll"), w, m, run_for(42));
  EXPECT_EQ(r.replies, 2U);
  EXPECT_DOUBLE_EQ(r.mean_latency_s, (12.0 + 15.0) / 2);
  m.cross_cpu_factor = 0;  // not a factor: refused like a negative cost
  EXPECT_THROW(simulate_server(default_server_config("epoll"), w, m, run_for(42)), std::invalid_argument);
}

// A replication on a machine in another state (cost_model::machine_factor, the between-runs
// spread) in another placement: the generator, on the same machine, pays its given costs
// times both factors — 1.25 x 1.2 = 1.5, the same timeline as the placement alone above.
TEST(EventLoopServerTest, TheLoadGeneratorsCostsMoveWithTheMachineToo) {
  workload w = closed_clients(1, 0);
  w.generator = load_generator{distribution::constant(4), distribution::constant(6)};
  cost_model m = integer_costs(1, 1, 2, 3, 5);
  m.cross_cpu_factor = 1.2;
  m.machine_factor = 1.25;
  const server_result r = simulate_server(default_server_config("epoll"), w, m, run_for(42));
  EXPECT_EQ(r.replies, 2U);
  EXPECT_DOUBLE_EQ(r.mean_latency_s, (12.0 + 15.0) / 2);
  m.machine_factor = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(simulate_server(default_server_config("epoll"), w, m, run_for(42)), std::invalid_argument);
}

TEST(EventLoopServerTest, TellsTheCostModelWhereTheActiveConnectionsSit) {
  // Records every blocking query with something ready; three clients keep the loop busy.
  for (const auto& [pos, expected] : {std::pair{ready_position::first, 0.0}, std::pair{ready_position::last, -2.0},
                                      std::pair{ready_position::random, -1.0}}) {
    std::vector<wait_query> seen;
    cost_model m = integer_costs(1, 1, 2, 3, 5);
    m.wait_call_s = [&seen](const wait_query& q) {
      if (q.blocking && q.ready > 0) seen.push_back(q);
      return 1.0;
    };
    server_config c = default_server_config("poll");
    c.active_pos = pos;
    workload w = closed_clients(3, 0);
    w.idle = 100;
    simulate_server(c, w, m, run_for(30));
    ASSERT_FALSE(seen.empty());
    for (const wait_query& q : seen) {
      // last: every idle fd and the non-ready active ones come first (n - k);
      // random: unknown, the cost model assumes n / (k + 1).
      const double want = expected == -2.0 ? static_cast<double>(q.registered - q.ready) : expected;
      EXPECT_EQ(q.before_first_ready, want);
    }
  }
  EXPECT_DOUBLE_EQ(fds_before_first_ready({1000, 0, true, 5}), 1000);  // none ready: all of them
  EXPECT_DOUBLE_EQ(fds_before_first_ready({1000, 3, true, -1}), 250);  // random: n / (k + 1)
  EXPECT_DOUBLE_EQ(fds_before_first_ready({1000, 3, true, 997}), 997);
  EXPECT_EQ(parse_ready_position("last"), ready_position::last);
  EXPECT_THROW(parse_ready_position("middle"), std::invalid_argument);
}

TEST(EventLoopServerTest, SignalQueueOverflowFallsBackToAFullPoll) {
  // Three clients send at 0 into a queue of one signal: the second overflows it. The
  // thread's first call (0..1) sees the overflow, polls every fd (1..2), claims all three
  // and handles them 2..4, 4..6, 6..8: latencies 4, 6, 8.
  server_config c = default_server_config("rtsig");
  c.signal_queue_limit = 1;
  const server_result s = simulate_server(c, closed_clients(3, 0), integer_costs(1, 1, 2, 3, 5), run_for(8));
  EXPECT_EQ(s.replies, 3U);
  EXPECT_DOUBLE_EQ(s.mean_latency_s, 6);
  EXPECT_GE(s.overflows, 1U);
  // With room for every signal there is no overflow and one event per call.
  c.signal_queue_limit = 1024;
  const server_result roomy = simulate_server(c, closed_clients(3, 0), integer_costs(1, 1, 2, 3, 5), run_for(30));
  EXPECT_EQ(roomy.overflows, 0U);
  EXPECT_GT(roomy.replies, 3U);
  EXPECT_LE(roomy.events_per_call, 1.0);
}

TEST(EventLoopServerTest, SameSeedGivesIdenticalResultsWithEitherScheduler) {
  workload w;
  w.active = 20;
  w.idle = 100;
  w.think = distribution::exponential(1e-3);
  w.app_work = distribution::exponential(2e-5);
  w.idle_activity = distribution::exponential(0.05);
  server_config c = default_server_config("poll");
  c.cpus = 2;
  c.threads = 3;
  cost_model m = integer_costs(1e-6, 1e-6, 5e-6, 2e-6, 2e-5);
  run_options o = run_for(1, 0.1);
  o.seed = 77;
  const server_result a = simulate_server(c, w, m, o);
  const server_result b = simulate_server(c, w, m, o);
  o.scheduler = scheduler_kind::calendar_queue;
  const server_result d = simulate_server(c, w, m, o);
  EXPECT_EQ(a.replies, b.replies);
  EXPECT_EQ(a.mean_latency_s, b.mean_latency_s);
  EXPECT_EQ(a.replies, d.replies);
  EXPECT_EQ(a.mean_latency_s, d.mean_latency_s);
  EXPECT_EQ(a.events, d.events);
  EXPECT_GT(a.keepalives, 0U);
  o.seed = 78;
  EXPECT_NE(simulate_server(c, w, m, o).mean_latency_s, a.mean_latency_s);
}

// With free wait calls and wake-ups a one-thread server is a FIFO single server: closed
// clients make it the machine-repairman model, open Poisson requests M/M/1.
cost_model free_calls() { return integer_costs(0, 0, 0, 0, 0); }

TEST(EventLoopServerValidationTest, ClosedClientsMatchTheMachineRepairmanModel) {
  workload w = closed_clients(8, 0);
  w.think = distribution::exponential(4e-3);
  w.app_work = distribution::exponential(5e-4);
  std::vector<double> means, rates;
  for (std::uint64_t rep = 0; rep < 10; ++rep) {
    run_options o = run_for(20, 1);
    o.seed = derive_seed(31, rep);
    const server_result r = simulate_server(default_server_config("epoll"), w, free_calls(), o);
    means.push_back(r.mean_latency_s);
    rates.push_back(r.throughput);
  }
  const analytic::queue_metrics exact = analytic::machine_repairman(8, 4e-3, 5e-4, 1);
  EXPECT_TRUE(t_interval(means).contains(exact.mean_response_s)) << t_interval(means).mean;
  EXPECT_TRUE(t_interval(rates).contains(exact.throughput)) << t_interval(rates).mean;
}

// Each replication on its own cost draw: a handler cost log-normal with sd 0.2 on one
// saturated thread moves the throughput by the same factor, so the answer's interval spans
// about exp(±1.96 · 0.2) around it — where a fixed-cost run's interval is the simulation's
// noise alone, orders of magnitude narrower; the answer is the centre of that log-scale
// interval. Same seed, same draws.
TEST(EventLoopServerTest, DrawnCostsWidenTheIntervalToTheAnswersSpread) {
  const workload w = closed_clients(4, 0);
  run_options o = run_for(0.05, 0.005);
  o.seed = 3;
  stopping_rule rule{0.03, 5, 40, 0.95};
  rule.spread_replications = 20;
  const cost_draw draw = [](std::uint64_t seed) {
    rng g(seed);
    return integer_costs(1e-6, 1e-6, 100e-6 * std::exp(0.2 * standard_normal(g)), 0, 0);
  };
  const experiment_result drawn = run_server_experiment(default_server_config("epoll"), w, draw, o, rule);
  EXPECT_TRUE(drawn.costs_drawn);
  EXPECT_TRUE(drawn.converged);
  EXPECT_EQ(drawn.replications, 20U);
  const double spread = drawn.throughput.ci95_hi / drawn.throughput.ci95_lo;  // exp(2 · 1.96 · 0.2) = 2.19
  EXPECT_GT(spread, 1.6);
  EXPECT_LT(spread, 3.2);
  EXPECT_GT(drawn.throughput.ci95_lo, 0);
  // The answer is the interval's centre on the log scale: the replications' geometric mean.
  EXPECT_NEAR(drawn.throughput.mean, std::sqrt(drawn.throughput.ci95_lo * drawn.throughput.ci95_hi),
              1e-9 * drawn.throughput.mean);
  EXPECT_EQ(to_json(drawn, false)["intervals"], "replication");
  const experiment_result again = run_server_experiment(default_server_config("epoll"), w, draw, o, rule);
  EXPECT_EQ(to_json(drawn, false).dump(), to_json(again, false).dump());

  const experiment_result fixed =
      run_server_experiment(default_server_config("epoll"), w, integer_costs(1e-6, 1e-6, 100e-6, 0, 0), o, rule);
  EXPECT_FALSE(fixed.costs_drawn);
  EXPECT_LT(fixed.throughput.ci95_hi / fixed.throughput.ci95_lo, 1.01);
  EXPECT_EQ(to_json(fixed, false)["intervals"], "mean");
}

// A load generator priced by the costs ("costs") is the constant generator at the cost
// model's handler and cross-CPU wake-up, event for event; with costs drawn per replication it
// is drawn with them. Where it binds (a generator as dear as the server's handler), a
// constant generator holds the answer down whenever the draw makes the server cheaper, so
// the interval is narrower than the draw's spread; priced by the costs, the two move together
// and the interval spans the draw's exp(±1.96 · 0.2).
TEST(EventLoopServerTest, AGeneratorPricedByTheCostsIsDrawnWithThem) {
  workload by_costs = closed_clients(4, 0);
  by_costs.generator = load_generator{distribution::constant(0), distribution::constant(0), true, true};
  workload constant = closed_clients(4, 0);
  constant.generator = load_generator{distribution::constant(100e-6), distribution::constant(20e-6)};
  server_config c = default_server_config("epoll");
  c.cpus = 2;
  c.irq_cpu = 1;
  run_options o = run_for(0.05, 0.005);
  o.seed = 5;
  const cost_model m = integer_costs(1e-6, 1e-6, 100e-6, 2e-6, 20e-6);
  const server_result a = simulate_server(c, by_costs, m, o);
  const server_result b = simulate_server(c, constant, m, o);
  EXPECT_GT(a.throughput, 0);
  EXPECT_EQ(a.throughput, b.throughput);
  EXPECT_EQ(a.mean_latency_s, b.mean_latency_s);

  stopping_rule rule{0.03, 5, 40, 0.95};
  rule.spread_replications = 20;
  const cost_draw draw = [](std::uint64_t seed) {
    rng g(seed);
    return integer_costs(1e-6, 1e-6, 100e-6 * std::exp(0.2 * standard_normal(g)), 2e-6, 20e-6);
  };
  const experiment_result drawn = run_server_experiment(c, by_costs, draw, o, rule);
  const experiment_result held = run_server_experiment(c, constant, draw, o, rule);
  const double spread = drawn.throughput.ci95_hi / drawn.throughput.ci95_lo;  // exp(2 · 1.96 · 0.2) = 2.19
  EXPECT_GT(spread, 1.6);
  EXPECT_LT(spread, 3.2);
  EXPECT_LT(held.throughput.ci95_hi / held.throughput.ci95_lo, spread);
  EXPECT_LT(held.throughput.ci95_hi, drawn.throughput.ci95_hi);
}

TEST(EventLoopServerValidationTest, OpenPoissonRequestsMatchMM1) {
  workload w;
  w.active = 1000;
  w.arrivals = arrival_kind::poisson;
  w.rate_per_s = 1500;
  w.app_work = distribution::exponential(1.0 / 2000);
  std::vector<double> means;
  for (std::uint64_t rep = 0; rep < 10; ++rep) {
    run_options o = run_for(20, 1);
    o.seed = derive_seed(32, rep);
    means.push_back(simulate_server(default_server_config("epoll"), w, free_calls(), o).mean_latency_s);
  }
  EXPECT_TRUE(t_interval(means).contains(analytic::mm1(1500, 2000).mean_response_s)) << t_interval(means).mean;
}

TEST(EventLoopServerTest, OnOffBurstsDeliverTheirAverageRate) {
  workload w;
  w.active = 100;
  w.arrivals = arrival_kind::on_off;
  w.rate_per_s = 2000;
  w.on_period = distribution::exponential(0.05);
  w.off_period = distribution::exponential(0.15);  // on a quarter of the time: 500/s
  w.app_work = distribution::constant(1e-4);
  run_options o = run_for(100, 1);
  const server_result r = simulate_server(default_server_config("epoll"), w, free_calls(), o);
  EXPECT_NEAR(r.throughput, 500, 25);
}

TEST(EventLoopServerTest, PollCollapsesWithIdleConnectionsWhileEpollStaysFlat) {
  cost_table t;
  t.wait["poll"] = {1e-6, 50e-9, 0, 100e-9};
  t.wait["epoll"] = {1e-6, 0, 100e-9, 0};
  t.rearm_s = {{"poll", 0}, {"epoll", 0}};
  t.handler_s = 20e-6;
  workload w = closed_clients(10, 0);
  auto rate = [&](const std::string& mech, std::int64_t idle) {
    w.idle = idle;
    return simulate_server(default_server_config(mech), w, make_cost_model(t, mech), run_for(0.5, 0.05)).throughput;
  };
  const double poll_small = rate("poll", 0), poll_big = rate("poll", 50000);
  const double epoll_small = rate("epoll", 0), epoll_big = rate("epoll", 50000);
  EXPECT_LT(poll_big, 0.5 * poll_small);
  EXPECT_NEAR(epoll_big, epoll_small, 1e-9 * epoll_small);
}

TEST(EventLoopServerTest, DefaultConfigurationFollowsTheMechanismTraits) {
  for (const char* m : {"select", "pselect", "poll", "ppoll"}) {
    const server_config c = default_server_config(m);
    EXPECT_EQ(c.mechanism, m);
    EXPECT_EQ(c.wake, wake_policy::all) << m;  // a wait queue per fd: every sleeper wakes
    EXPECT_EQ(c.style, notification::readiness) << m;
  }
  for (const char* m : {"epoll", "io_uring"}) {
    EXPECT_EQ(default_server_config(m).wake, wake_policy::one) << m;
    EXPECT_EQ(default_server_config(m).style, notification::readiness) << m;
  }
  const server_config rt = default_server_config(datasets::mechanism::rtsig);
  EXPECT_EQ(rt.mechanism, "rtsig");
  EXPECT_EQ(rt.style, notification::signal_queue);
  EXPECT_EQ(rt.sharing, interest_sharing::shared);
  EXPECT_EQ(rt.wake, wake_policy::one);
  // The historical mechanisms are not simulated; an unknown name is refused by name.
  EXPECT_THROW(default_server_config(datasets::mechanism::devpoll), std::invalid_argument);
  try {
    default_server_config("epol");
    FAIL() << "an unknown mechanism was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'epol'"), std::string::npos) << e.what();
  }
}

TEST(EventLoopServerTest, RejectsBadCostsAndConfigurations) {
  cost_model nan_cost = integer_costs(1, 1, 1, 1, 1);
  nan_cost.wait_call_s = [](const wait_query& q) { return q.ready > 0 ? 1.0 : -1.0; };
  try {
    simulate_server(default_server_config("epoll"), closed_clients(1, 0), nan_cost, run_for(5));
    FAIL() << "a negative cost was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("wait_call_s(n=1, k=0, blocking=1, threads=1)"), std::string::npos)
        << e.what();
  }
  server_config c = default_server_config("epoll");
  c.threads = 0;
  EXPECT_THROW(simulate_server(c, closed_clients(1, 0), free_calls(), run_for(1)), std::invalid_argument);
  c = default_server_config("epoll");
  c.irq_cpu = 3;
  EXPECT_THROW(simulate_server(c, closed_clients(1, 0), free_calls(), run_for(1)), std::invalid_argument);
  EXPECT_THROW(simulate_server(default_server_config("epoll"), closed_clients(0, 0), free_calls(), run_for(1)),
               std::invalid_argument);
  EXPECT_THROW(simulate_server(default_server_config("epoll"), closed_clients(1, 0), free_calls(), run_for(-1)),
               std::invalid_argument);
  EXPECT_THROW(default_server_config("kqueue"), std::invalid_argument);
  cost_model bad_handler = free_calls();
  bad_handler.handler_s = std::nan("");
  EXPECT_THROW(simulate_server(default_server_config("epoll"), closed_clients(1, 0), bad_handler, run_for(1)),
               std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::sim
