// find_active at small n for every mechanism and metric: instances build, run, check their
// answers and leave no descriptor behind. (Timings are not asserted.)

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

selection three_sizes() { return test::small_selection({1, 7, 40}); }

TEST(FindActiveTest, EveryPointRunsAndChecksItsAnswers) {
  const auto* probe = find_probe("find_active");
  ASSERT_NE(probe, nullptr);
  const auto sel = three_sizes();
  const auto mechs = all_flavours();
  const auto points = probe->points(sel, mechs);
  ASSERT_GE(points.size(), 10u * 3);  // every flavour, every n
  const std::size_t before = sys::open_fd_count();
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(3), 0u);
  }
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(FindActiveTest, BlockingAndManyActiveVariants) {
  const auto* probe = find_probe("find_active");
  auto sel = three_sizes();
  sel.n_override.clear();
  sel.max_fds = 4000;  // k = n = 1000 pipes keep 1000 trigger ends here too
  const auto mechs = all_flavours();
  int ran = 0;
  for (auto k : probe->points(sel, mechs)) {
    if (*k.n_fds > 1000) continue;  // keep the test small; large n is calibration's job
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      inst->run(2);
      ++ran;
    } catch (const probe_skipped& e) {
      // Only cross-CPU points on a one-CPU mask may skip here.
      EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(ran, 30);
}

TEST(FindActiveTest, ManyWokenAtOnceOnlyFromTheOtherCpu) {
  // A writer on the waiter's own CPU is preempted after its first write: k > 1 woken
  // points there would hold a scheduler-dependent number of wake-ups.
  const auto* probe = find_probe("find_active");
  selection sel;
  sel.cpus = {0, 1};
  sel.max_fds = 20000;
  sel.profile = profile_kind::full;
  int many_cross = 0;
  for (const auto& k : probe->points(sel, all_flavours())) {
    if (k.threads != 2 || *k.n_active == 1) continue;
    EXPECT_EQ(k.pinning, "0+1") << datasets::describe(k);
    ++many_cross;
  }
  EXPECT_GT(many_cross, 0);
}

TEST(FindActiveTest, RtsigOnEventfdIsSkippedWithAReason) {
  const auto* probe = find_probe("find_active");
  const auto sel = three_sizes();
  datasets::key k = probes::base_key(datasets::scenario::find_active, {mechanism::rtsig, ""}, fd_kind::eventfd,
                                     datasets::metric::time_per_op, "ns");
  k.n_fds = 4;
  k.n_active = 1;
  k.active_pos = "first";
  k.blocking = 0;
  try {
    probe->make(k, sel);
    FAIL() << "not skipped";
  } catch (const probe_skipped& e) {
    EXPECT_NE(std::string(e.what()).find("fasync"), std::string::npos);
  }
}

TEST(FindActiveTest, PointsBeyondTheDescriptorLimitAreSkipped) {
  const auto* probe = find_probe("find_active");
  auto sel = three_sizes();
  sel.max_fds = 100;
  datasets::key k = probes::base_key(datasets::scenario::find_active, {mechanism::poll, ""}, fd_kind::pipe,
                                     datasets::metric::time_per_call, "ns");
  k.n_fds = 500;
  k.n_active = 1;
  k.active_pos = "middle";
  EXPECT_THROW(probe->make(k, sel), probe_skipped);
  // Skipped before anything of size n is allocated: 10^12 descriptors at random positions
  // would need 8 TB for the positions alone (std::bad_alloc, or the machine's memory, before).
  k.n_fds = 1'000'000'000'000;
  k.active_pos = "random";
  for (const auto metric : {datasets::metric::time_per_call, datasets::metric::time_per_op}) {
    k.metric = datasets::name(metric);
    EXPECT_THROW(probe->make(k, sel), probe_skipped) << k.metric;
  }
}

datasets::key point(const char* mech, const char* variant, const char* kind, std::int64_t n, const char* pos,
                    int blocking, int threads = 1, std::int64_t k = 1) {
  const auto m = parse_mechanism(mech);
  datasets::key key = probes::base_key(datasets::scenario::find_active, {*m, variant}, *parse_fd_kind(kind),
                                       datasets::metric::time_per_op, "ns");
  key.n_fds = n;
  key.n_active = k;
  key.active_pos = pos;
  key.blocking = blocking;
  key.threads = threads;
  key.pinning = threads == 2 ? "0+0" : "0";
  return key;
}

// On the waiter's own CPU the writer runs at nice 19, so that the eventfd write releasing it
// cannot preempt the waiter before the waiter sleeps (the probe's note: otherwise a visit
// reads one of two levels 1.7x apart); on the other CPU it keeps the default priority.
TEST(FindActiveTest, ASameCpuWriterRunsAtTheLowestPriority) {
  const auto* probe = find_probe("find_active");
  const auto sel = three_sizes();
  constexpr int lowest = 19;
  ASSERT_EQ(test::tasks_at_nice(lowest), 0u);
  {
    auto same = probe->make(point("epoll", "lt", "pipe", 7, "middle", 1, 2), sel);
    EXPECT_GT(same->run(50), 0u);
    EXPECT_EQ(test::tasks_at_nice(lowest), 1u);
  }
  // The joined writer may linger in /proc for a moment.
  EXPECT_EQ(test::settled([] { return test::tasks_at_nice(lowest); }, 0), 0u);
  if (sel.cpus.size() < 2) GTEST_SKIP() << "one CPU in the mask: no cross-CPU writer";
  auto k = point("epoll", "lt", "pipe", 7, "middle", 1, 2);
  k.pinning = "0+1";
  auto cross = probe->make(k, sel);
  EXPECT_GT(cross->run(50), 0u);
  EXPECT_EQ(test::tasks_at_nice(lowest), 0u);
}

// select, poll and epoll over pipes are also called in a process of two threads, at every n
// of their one-thread calls, the second thread on the waiter's CPU; nothing else is.
TEST(FindActiveTest, PipeCallsAreAlsoMeasuredInAProcessOfTwoThreadsAtEveryN) {
  const auto* probe = find_probe("find_active");
  for (const auto profile : {profile_kind::quick, profile_kind::full}) {
    auto sel = test::small_selection({}, 20000);
    sel.profile = profile;
    std::map<std::string, std::set<std::int64_t>> one, two;
    for (const auto& k : probe->points(sel, all_flavours())) {
      if (k.metric != datasets::metric::time_per_call) continue;
      const std::string flavour = k.mechanism + "/" + k.variant;
      if (k.threads == 1 && k.fd_kind == "pipe" && k.n_active == 1 && k.active_pos == "middle")
        one[flavour].insert(*k.n_fds);
      if (k.threads != 2) continue;
      SCOPED_TRACE(datasets::describe(k));
      EXPECT_EQ(k.fd_kind, "pipe");
      EXPECT_EQ(k.pinning, std::to_string(sel.cpus[0]) + "+" + std::to_string(sel.cpus[0]));
      EXPECT_EQ(k.cpus, 1);
      EXPECT_EQ(k.blocking, 0);
      two[flavour].insert(*k.n_fds);
    }
    ASSERT_EQ(two.size(), 3u);
    for (const char* f : {"select/", "poll/", "epoll/lt"}) {
      if (profile == profile_kind::full) one[f].erase(1000);  // the k-ready series' k = 1: no twin
      EXPECT_EQ(two[f], one[f]) << f;
      EXPECT_GE(two[f].size(), 8u) << f;
    }
  }
}

// The second thread exists from the point's set-up until it goes, never longer: a call
// of two threads parks one sibling, and its answer is checked like any call's.
TEST(FindActiveTest, ATwoThreadCallParksASiblingForAsLongAsThePointLives) {
  const auto* probe = find_probe("find_active");
  const auto sel = three_sizes();
  // The writers of earlier tests' woken points may linger in /proc for a moment.
  const std::size_t before = test::settled(test::task_count, 1);
  probe->release();  // the set-ups earlier tests kept
  const std::size_t fds = sys::open_fd_count();
  for (const auto& [mech, variant] : {std::pair{"select", ""}, {"poll", ""}, {"epoll", "lt"}}) {
    auto k = point(mech, variant, "pipe", 40, "middle", 0, 2);
    k.metric = datasets::name(datasets::metric::time_per_call);
    SCOPED_TRACE(datasets::describe(k));
    {
      auto inst = probe->make(k, sel);
      EXPECT_EQ(test::task_count(), before + 1);
      EXPECT_GT(inst->run(20), 0u);
      EXPECT_EQ(test::task_count(), before + 1);
    }
    EXPECT_EQ(test::settled(test::task_count, before), before);
    auto alone = k;
    alone.threads = 1;
    alone.pinning = "0";
    auto inst = probe->make(alone, sel);
    EXPECT_EQ(test::task_count(), before);
    EXPECT_GT(inst->run(20), 0u);
  }
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), fds);
}

TEST(FindActiveSharingTest, SelectPollAndEpollAtOneNNameOneSetUp) {
  const auto* probe = find_probe("find_active");
  ASSERT_TRUE(probe->setup_of);
  const auto name = probe->setup_of(point("select", "", "tcp", 500, "first", 1));
  EXPECT_FALSE(name.empty());
  EXPECT_EQ(probe->setup_of(point("poll", "", "tcp", 500, "last", 1)), name);
  EXPECT_EQ(probe->setup_of(point("epoll", "lt", "tcp", 500, "last", 1, 2)), name);
  EXPECT_EQ(probe->setup_of(point("ppoll", "", "tcp", 500, "middle", 0)), name);
  EXPECT_NE(probe->setup_of(point("poll", "", "tcp", 501, "last", 1)), name);
  EXPECT_NE(probe->setup_of(point("poll", "", "socketpair", 500, "last", 1)), name);
  // The wait call alone (time_per_call) waits on the same descriptors: it makes its channel
  // readable for the point and reads it back when it goes.
  auto call = point("poll", "", "tcp", 500, "middle", 0);
  call.metric = "time_per_call";
  EXPECT_EQ(probe->setup_of(call), name);
  // rtsig and io_uring too: each waiter leaves the descriptors as it found them (rtsig
  // clears what it set, io_uring removes its polls); k > 1 sets up its own.
  EXPECT_EQ(probe->setup_of(point("rtsig", "", "tcp", 500, "last", 1)), name);
  EXPECT_EQ(probe->setup_of(point("io_uring", "oneshot", "tcp", 500, "last", 1)), name);
  EXPECT_EQ(probe->setup_of(point("poll", "", "tcp", 500, "spread", 0, 1, 10)), "");
}

TEST(FindActiveSharingTest, PointsOfOneSetUpWaitOnTheSameDescriptors) {
  const auto* probe = find_probe("find_active");
  const auto sel = test::small_selection();
  probe->release();
  const std::size_t before = sys::open_fd_count();
  datasets::key first_key = point("select", "", "socketpair", 60, "first", 1);
  datasets::key last_key = point("epoll", "lt", "socketpair", 60, "last", 1);
  {
    auto inst = probe->make(first_key, sel);
    EXPECT_GT(inst->run(5), 0u);
    inst->annotate(first_key);
  }
  const std::size_t kept = sys::open_fd_count();
  EXPECT_GE(kept, before + 60);  // the 60 watched ends stay for the next point of the group
  {
    auto inst = probe->make(last_key, sel);
    EXPECT_LE(sys::open_fd_count(), kept + 2);  // its waiter (an epoll fd), no new channels
    EXPECT_GT(inst->run(5), 0u);                // and its answers are exactly the last channel
    inst->annotate(last_key);
  }
  EXPECT_EQ(first_key.max_fd, last_key.max_fd);
  // A point of another set-up frees the kept one before it builds its own.
  {
    auto inst = probe->make(point("poll", "", "pipe", 30, "middle", 0), sel);
    EXPECT_LT(sys::open_fd_count(), kept);
    EXPECT_GT(inst->run(3), 0u);
  }
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

datasets::key call_point(const char* mech, const char* variant, const char* kind, std::int64_t n, const char* pos) {
  auto key = point(mech, variant, kind, n, pos, 0);
  key.metric = datasets::name(datasets::metric::time_per_call);
  return key;
}

TEST(FindActiveSharingTest, CallsAndCyclesShareOneSetUpAndLeaveItEmpty) {
  const auto* probe = find_probe("find_active");
  const auto sel = test::small_selection();
  probe->release();
  const std::size_t before = sys::open_fd_count();
  // Interleaved as a group's visit may order them: a cycle, calls at two positions (each
  // sees exactly its own channel ready), a cycle again (its answer check fails if a call
  // left a token behind).
  std::vector<datasets::key> group = {
      point("poll", "", "socketpair", 50, "last", 0), call_point("select", "", "socketpair", 50, "middle"),
      call_point("epoll", "lt", "socketpair", 50, "first"), point("select", "", "socketpair", 50, "first", 0)};
  std::size_t kept = 0;
  for (auto& key : group) {
    {
      auto inst = probe->make(key, sel);
      if (kept == 0) kept = sys::open_fd_count();
      EXPECT_LE(sys::open_fd_count(), kept + 1) << datasets::describe(key);  // a waiter, no new channels
      EXPECT_GT(inst->run(4), 0u) << datasets::describe(key);
      inst->annotate(key);
    }
    EXPECT_EQ(sys::open_fd_count(), kept) << datasets::describe(key);  // the set-up stays for the next
  }
  for (const auto& key : group) EXPECT_EQ(key.max_fd, group.front().max_fd);
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(FindActiveSharingTest, ACallThatFailsLeavesTheSetUpEmpty) {
  // An edge-triggered call is refused after its channel was made readable on the shared
  // set-up: the channel is read back on the way out, so the next cycle on the same
  // descriptors still finds exactly its own channel ready (its answer check would fail on
  // a token left behind).
  const auto* probe = find_probe("find_active");
  const auto sel = test::small_selection();
  probe->release();
  auto key = point("poll", "", "pipe", 40, "first", 0);
  {
    auto inst = probe->make(key, sel);
    EXPECT_GT(inst->run(2), 0u);
  }
  auto edge = point("epoll", "et", "pipe", 40, "middle", 0);
  edge.metric = datasets::name(datasets::metric::time_per_call);
  ASSERT_EQ(probe->setup_of(edge), probe->setup_of(key));
  EXPECT_THROW(probe->make(edge, sel), std::invalid_argument);
  for (const char* mech : {"ppoll", "select"}) {
    auto inst = probe->make(point(mech, "", "pipe", 40, "last", 0), sel);
    EXPECT_GT(inst->run(2), 0u) << mech;
  }
  probe->release();
}

TEST(FindActiveSharingTest, ATightBudgetSetsUpOnlyThePointsOwnChannels) {
  // The shared set-up keeps three trigger ends; where the budget holds only the point's
  // own one, the point still runs, on a set-up of its own that is not kept.
  const auto* probe = find_probe("find_active");
  auto sel = test::small_selection();
  sel.max_fds = channel_set::fds_needed(fd_kind::pipe, 300, 1) + 4;  // past park_batch: kept ends count
  probe->release();
  const std::size_t before = sys::open_fd_count();
  {
    auto inst = probe->make(point("poll", "", "pipe", 300, "first", 1), sel);
    EXPECT_GT(inst->run(3), 0u);
  }
  EXPECT_EQ(sys::open_fd_count(), before);
  // A call there shares a set-up with the calls of its position only (its channel readable
  // from the start, no trigger end kept), as before the calls joined the cycles'.
  sel.max_fds = channel_set::fds_needed(fd_kind::pipe, 300, 0) + 4;
  for (const char* mech : {"poll", "select"}) {
    auto inst = probe->make(call_point(mech, "", "pipe", 300, "middle"), sel);
    EXPECT_GT(inst->run(3), 0u) << mech;
  }
  EXPECT_GT(sys::open_fd_count(), before);  // kept for the next call of the group
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(ActivePositionsTest, PlacesActiveDescriptors) {
  using v = std::vector<std::size_t>;
  EXPECT_EQ(active_positions("first", 10, 2, 1), (v{0, 1}));
  EXPECT_EQ(active_positions("last", 10, 2, 1), (v{8, 9}));
  EXPECT_EQ(active_positions("middle", 10, 2, 1), (v{4, 5}));
  EXPECT_EQ(active_positions("spread", 10, 2, 1), (v{2, 7}));
  const auto r1 = active_positions("random", 100, 5, 7), r2 = active_positions("random", 100, 5, 7);
  EXPECT_EQ(r1, r2);  // same seed, same answer
  EXPECT_EQ(std::set<std::size_t>(r1.begin(), r1.end()).size(), 5u);
  EXPECT_THROW(active_positions("nowhere", 10, 1, 1), std::invalid_argument);
  EXPECT_THROW(active_positions("first", 2, 3, 1), std::invalid_argument);
}

TEST(LogGridTest, SpansTheRangeWithoutDuplicates) {
  const auto g = log_grid(1, 19000, 8);
  EXPECT_EQ(g.front(), 1);
  EXPECT_EQ(g.back(), 19000);
  EXPECT_EQ(g.size(), 8u);
  EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
  EXPECT_EQ(log_grid(1, 3, 8), (std::vector<std::int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace pollscale::calibrate
