// shared_epoll at small T: a batch passes at least the tokens it asked for and never loses
// or makes one (T tokens in the ring after every batch), threads on CPUs of their own all
// pass tokens, the grid has the promised T, C, variants and columns, a point that cannot
// run here is skipped, and every instance joins its threads and closes its descriptors —
// also when a call fails in the middle of a batch. No timing assertions.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/shared_epoll.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/pinning.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using probes::shared_epoll_driver;
using test::placements;
using test::round_robin_pinning;
using test::task_count;
using test::task_count_settled;

datasets::key shared_epoll_key(int t, const std::string& pinning, const std::string& variant = "lt",
                               std::optional<int> tokens = std::nullopt) {
  datasets::key k = test::pipes_key("shared_epoll", t, pinning, "epoll", variant);
  k.n_active = tokens.value_or(t);
  k.blocking = 1;
  return k;
}

TEST(SharedEpollTest, BatchesPassWhatTheyAskAndTheRingKeepsItsTokens) {
  const auto sel = test::small_selection();
  for (const char* variant : {"lt", "exclusive", "oneshot"})
    for (const auto& cpus : placements())
      for (int t : {1, 2, 3})
        for (int tokens : {t, 1}) {
          const auto k = shared_epoll_key(t, round_robin_pinning(cpus, t), variant, tokens);
          SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
          shared_epoll_driver d(k, sel);
          ASSERT_EQ(d.threads(), static_cast<std::size_t>(t));
          ASSERT_EQ(d.tokens(), static_cast<std::size_t>(tokens));
          for (std::size_t passes : std::initializer_list<std::size_t>{1, 7, 1000, 5000}) {
            const std::uint64_t before = d.passed();
            EXPECT_GT(d.pass(passes), 0u);
            // At least what was asked; threads already waiting may pass up to T - 1 more.
            EXPECT_GE(d.passed(), before + passes);
            EXPECT_EQ(d.tokens_in_ring(), static_cast<std::uint64_t>(tokens));
            EXPECT_LT(d.passed(), before + passes + static_cast<std::uint64_t>(t));
          }
          EXPECT_GT(d.max_watched_fd(), 2);
        }
}

TEST(SharedEpollTest, ThreadsOnCpusOfTheirOwnShareTheWork) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU in the affinity mask";
  // With one shared level-triggered instance, futile wake-ups are possible but the ring
  // keeps moving: 50 batches of 2000 passes, every token still there.
  shared_epoll_driver d(shared_epoll_key(2, round_robin_pinning(cpus, 2)), sel);
  for (int i = 0; i < 50; ++i) d.pass(2000);
  EXPECT_GE(d.passed(), 100000u);
  EXPECT_EQ(d.tokens_in_ring(), 2u);
}

// Edge-triggered one-shot sharing: a report disables the pipe's item until its reader
// re-arms it, so no thread is told of a pipe another has emptied (no futile read), on one
// CPU or two, with a token per thread or one among them; every token stays in the ring.
TEST(SharedEpollTest, OneShotSharingReportsEachTokenToOneThread) {
  const auto sel = test::small_selection();
  for (const auto& cpus : placements())
    for (int tokens : {3, 1}) {
      const auto k = shared_epoll_key(3, round_robin_pinning(cpus, 3), "oneshot", tokens);
      SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
      shared_epoll_driver d(k, sel);
      for (int i = 0; i < 20; ++i) d.pass(2000);
      EXPECT_GE(d.passed(), 40000u);
      EXPECT_EQ(d.futile(), 0u);
      EXPECT_EQ(d.tokens_in_ring(), static_cast<std::uint64_t>(tokens));
    }
}

TEST(SharedEpollTest, QuickGridIsLtOverTwiceTheCpusFullAddsExclusiveAndOneShot) {
  const auto* probe = find_probe("shared_epoll");
  ASSERT_NE(probe, nullptr);
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1};
  // by metric and tokens (n_active: T, or 1 from T = 2)
  std::map<std::string, std::map<std::int64_t, std::set<std::int64_t>>> t_by_c;
  for (const auto& k : probe->points(sel, all_flavours())) {
    EXPECT_EQ(k.scenario, "shared_epoll");
    EXPECT_EQ(k.mechanism, "epoll");
    EXPECT_EQ(k.variant, "lt");
    EXPECT_EQ(k.fd_kind, "pipe");
    EXPECT_EQ(k.unit, k.metric == "throughput" ? "1/s" : "1");
    EXPECT_EQ(k.blocking, 1);
    const auto t = *k.n_fds;
    EXPECT_TRUE(k.n_active == t || (k.n_active == 1 && t >= 2)) << datasets::describe(k);
    EXPECT_EQ(k.threads, t);
    EXPECT_EQ(k.pinning,
              round_robin_pinning(*k.cpus == 1 ? std::vector<int>{0} : std::vector<int>{0, 1}, static_cast<int>(t)));
    t_by_c[k.metric + (k.n_active == t ? " K=T" : " K=1")][*k.cpus].insert(t);
  }
  const std::map<std::int64_t, std::set<std::int64_t>> series{{1, {1, 2, 3, 4}}, {2, {2, 3, 4}}};
  const std::map<std::int64_t, std::set<std::int64_t>> one_token{{1, {2, 3, 4}}, {2, {2, 3, 4}}};
  EXPECT_EQ(t_by_c,
            (std::map<std::string, std::map<std::int64_t, std::set<std::int64_t>>>{{"throughput K=T", series},
                                                                                   {"wakeups K=T", series},
                                                                                   {"throughput K=1", one_token},
                                                                                   {"wakeups K=1", one_token}}));
  sel.profile = profile_kind::full;
  std::map<std::string, std::size_t> per_variant;
  for (const auto& k : probe->points(sel, all_flavours())) ++per_variant[k.variant];
  EXPECT_EQ(per_variant, (std::map<std::string, std::size_t>{
                             {"exclusive", 42}, {"lt", 42}, {"oneshot", 42}}));  // (11 + 10) x 2 each
  // oneshot where epoll/oneshot is chosen, in the full profile only; nothing without
  // epoll/lt or epoll/oneshot; --n replaces the thread counts.
  per_variant.clear();
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::epoll, "oneshot"}}))
    ++per_variant[k.variant];
  EXPECT_EQ(per_variant, (std::map<std::string, std::size_t>{{"oneshot", 42}}));
  EXPECT_TRUE(probe->points(sel, std::vector<flavour>{{mechanism::epoll, "et"}, {mechanism::poll, ""}}).empty());
  sel.profile = profile_kind::quick;
  EXPECT_TRUE(probe->points(sel, std::vector<flavour>{{mechanism::epoll, "oneshot"}}).empty());
  sel.profile = profile_kind::full;
  sel.n_override = {0, 5, 300, 10};
  std::set<std::int64_t> ts;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::epoll, "lt"}})) ts.insert(*k.n_fds);
  EXPECT_EQ(ts, (std::set<std::int64_t>{5, 10}));
}

// A wakeups point counts the threads' sleeps in epoll_wait per token passed: none when a
// lone thread passes to itself, a count and not a time (probe_instance::counts).
TEST(SharedEpollTest, WakeupPointsCountWaitsPerPass) {
  const auto sel = test::small_selection();
  const auto* probe = find_probe("shared_epoll");
  ASSERT_NE(probe, nullptr);
  for (const char* variant : {"lt", "exclusive", "oneshot"})
    for (const auto& cpus : placements())
      for (int t : {1, 2, 3, 4})
        for (int tokens : {t, 1}) {
          auto k = shared_epoll_key(t, round_robin_pinning(cpus, t), variant, tokens);
          k.metric = "wakeups";
          k.unit = "1";
          SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
          auto inst = probe->make(k, sel);
          EXPECT_TRUE(inst->counts());
          EXPECT_EQ(inst->min_batch(), 2048u);
          for (int batch = 0; batch < 5; ++batch) {
            const std::uint64_t woken = inst->run(2048);
            if (t == 1) {
              // A lone thread always has its token: it never sleeps for one. A machine loaded by
              // other tests may still make it block now and then (a page, a lock of the
              // allocator): a few such switches in a batch, never one a pass.
              EXPECT_LE(woken, 2048u / 64);
            }
            // A count, and a bounded one: each pass hands the token to at most every other thread.
            EXPECT_LE(woken, 2048u * static_cast<std::uint64_t>(t));
          }
          datasets::key annotated = k;
          inst->annotate(annotated);
          EXPECT_GT(annotated.max_fd.value_or(0), 2);
        }
  // The throughput point of the same key is timed, not counted.
  EXPECT_FALSE(probe->make(shared_epoll_key(2, round_robin_pinning(placements().back(), 2)), sel)->counts());
}

TEST(SharedEpollTest, OneCpuListsTheTwoCpuPointsAndSkipsThem) {
  const auto* probe = find_probe("shared_epoll");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(test::skipped_outside_one_cpu(*probe, test::small_selection()), 12);  // 3 T, 2 token counts, 2 metrics
}

TEST(SharedEpollTest, MalformedPointsAreRefusedBeforeAnyThreadStarts) {
  const auto sel = test::small_selection();
  const std::string c = std::to_string(sel.cpus.front());
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(3, c + "+" + c), sel), std::invalid_argument);  // 2 CPUs for 3
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(0, c), sel), std::invalid_argument);
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(2, c + "+" + c, "et"), sel), std::invalid_argument);
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(2, c + "+" + c, "lt", 0), sel), std::invalid_argument);
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(2, c + "+" + c, "lt", 3), sel), std::invalid_argument);
  const auto* probe = find_probe("shared_epoll");
  for (auto [metric, unit] :
       {std::pair{"round_trip", "ns"}, std::pair{"wakeups", "1/s"}, std::pair{"throughput", "1"}}) {
    auto k = shared_epoll_key(2, c + "+" + c);
    k.metric = metric;
    k.unit = unit;
    EXPECT_THROW(probe->make(k, sel), std::invalid_argument) << metric << " in " << unit;
  }
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(1000, round_robin_pinning({sel.cpus.front()}, 1000)), sel),
               probe_skipped);
  auto few = sel;
  few.max_fds = 10;
  EXPECT_THROW(shared_epoll_driver(shared_epoll_key(8, round_robin_pinning({sel.cpus.front()}, 8)), few),
               probe_skipped);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

TEST(SharedEpollTest, AFailedCallInABatchJoinsEveryThread) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  // A thread that cannot pin itself (a CPU the selection claims but the kernel refuses):
  // its error reaches the constructor, which joins the others.
  auto wrong = sel;
  wrong.cpus.push_back(1000);
  EXPECT_THROW(shared_epoll_driver(
                   shared_epoll_key(3, std::to_string(cpus[0]) + "+" + std::to_string(cpus[0]) + "+1000"), wrong),
               std::system_error);
  // Instances made and dropped in a loop, some after a batch: nothing left behind.
  const auto* probe = find_probe("shared_epoll");
  for (int i = 0; i < 20; ++i) {
    const auto places = placements();
    const auto place = places[static_cast<std::size_t>(i) % places.size()];
    const int t = 1 + i % 4;
    auto inst = probe->make(shared_epoll_key(t, round_robin_pinning(place, t), i % 2 ? "lt" : "exclusive"), sel);
    EXPECT_EQ(inst->min_batch(), 2048u);
    if (i % 3 == 0) {
      EXPECT_GT(inst->run(500), 0u);
    }
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

}  // namespace
}  // namespace pollscale::calibrate
