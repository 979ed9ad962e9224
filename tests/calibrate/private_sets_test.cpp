// private_sets at small T: every call reports exactly its thread's own descriptor, a batch
// makes exactly the calls it asked for, one thread still runs in a process of two, threads on CPUs of their own all
// take part, the grid has the promised T, C, mechanisms and columns, a point that cannot run here is skipped, and every
// instance joins its threads and closes its descriptors — also when a call fails in the middle of a batch. No timing
// assertions.

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>

#include "calibrate/probes/private_sets.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/pinning.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using probes::private_sets_driver;
using test::placements;
using test::round_robin_pinning;
using test::task_count;
using test::task_count_settled;

datasets::key private_sets_key(int t, const std::string& pinning, const std::string& mech = "epoll",
                               const std::string& variant = "lt") {
  return test::pipes_key("private_sets", t, pinning, mech, variant);
}

TEST(PrivateSetsTest, EveryBatchMakesExactlyTheCallsItAskedFor) {
  const auto sel = test::small_selection();
  test::expect_exact_batches(
      "private_sets", [&](const datasets::key& k) { return private_sets_driver(k, sel); },
      [](const auto& d) { return d.threads(); }, [](const auto& d) { return d.calls_per_thread(); });
}

TEST(PrivateSetsTest, ThreadsOnCpusOfTheirOwnAllTakePart) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU in the affinity mask";
  private_sets_driver d(private_sets_key(2, round_robin_pinning(cpus, 2)), sel);
  for (int i = 0; i < 50; ++i) d.calls(4000);
  for (auto m : d.calls_per_thread()) EXPECT_GT(m, 0u);
  EXPECT_EQ(d.total(), 200000u);
}

// Every point runs in a process of several threads, as a threaded server's threads do (a
// lone thread would borrow its file on every call instead of taking a reference): at T = 1
// a sibling is parked beside the calling thread while the point lives, and goes with it;
// from T = 2 the started threads are all there is.
TEST(PrivateSetsTest, OneThreadStillRunsInAProcessOfTwo) {
  const auto sel = test::small_selection();
  const auto cpus = placements().front();
  const std::size_t tasks = test::task_count_quiet();
  for (int t : {1, 2}) {
    SCOPED_TRACE(t);
    {
      private_sets_driver d(private_sets_key(t, round_robin_pinning(cpus, t), "poll", ""), sel);
      EXPECT_EQ(task_count(), tasks + 1);
      EXPECT_GT(d.calls(1000), 0u);
      EXPECT_EQ(d.total(), 1000u);
      EXPECT_EQ(task_count(), tasks + 1);
    }
    EXPECT_EQ(task_count_settled(tasks), tasks);
  }
}

TEST(PrivateSetsTest, QuickGridIsEpollOverTwiceTheCpusFullAddsPollAndIoUring) {
  const auto* probe = find_probe("private_sets");
  ASSERT_NE(probe, nullptr);
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1};
  const auto quick = probe->points(sel, all_flavours());
  std::map<std::int64_t, std::set<std::int64_t>> t_by_c;
  for (const auto& k : quick) {
    EXPECT_EQ(k.scenario, "private_sets");
    EXPECT_EQ(k.mechanism, "epoll");
    EXPECT_EQ(k.variant, "lt");
    EXPECT_EQ(k.fd_kind, "pipe");
    EXPECT_EQ(k.metric, "throughput");
    EXPECT_EQ(k.unit, "1/s");
    EXPECT_EQ(k.blocking, 0);
    const auto t = *k.n_fds;
    EXPECT_EQ(k.n_active, t);
    EXPECT_EQ(k.threads, t);
    EXPECT_TRUE(*k.cpus == 1 || *k.cpus == std::min<std::int64_t>(t, 2)) << k.pinning;  // min(C, T)
    EXPECT_EQ(k.pinning,
              round_robin_pinning(*k.cpus == 1 ? std::vector<int>{0} : std::vector<int>{0, 1}, static_cast<int>(t)));
    t_by_c[*k.cpus].insert(t);
  }
  // T = 1 is the same point in both series: listed once, as cpus = 1.
  EXPECT_EQ(t_by_c, (std::map<std::int64_t, std::set<std::int64_t>>{{1, {1, 2, 3, 4}}, {2, {2, 3, 4}}}));
  sel.profile = profile_kind::full;
  std::map<std::string, std::size_t> per_mechanism;
  std::int64_t t_max = 0;
  for (const auto& k : probe->points(sel, all_flavours())) {
    ++per_mechanism[k.mechanism + "/" + k.variant];
    t_max = std::max(t_max, *k.n_fds);
  }
  EXPECT_EQ(per_mechanism,
            (std::map<std::string, std::size_t>{{"epoll/lt", 11}, {"io_uring/oneshot", 11}, {"poll/", 11}}));
  EXPECT_EQ(t_max, 8);
}

TEST(PrivateSetsTest, WiderMasksSpreadThreadsRoundRobinAndMechanismsAndNSelect) {
  const auto* probe = find_probe("private_sets");
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1, 2, 3, 4, 5, 6, 7};
  std::map<std::int64_t, std::set<std::int64_t>> t_by_c;
  for (const auto& k : probe->points(sel, all_flavours())) t_by_c[*k.cpus].insert(*k.n_fds);
  // quick: C = 1 and C = 4 (its cap); T up to 8; cpus = min(C, T).
  EXPECT_EQ(t_by_c[1], (std::set<std::int64_t>{1, 2, 3, 4, 6, 8}));
  EXPECT_EQ(t_by_c[2], (std::set<std::int64_t>{2}));
  EXPECT_EQ(t_by_c[3], (std::set<std::int64_t>{3}));
  EXPECT_EQ(t_by_c[4], (std::set<std::int64_t>{4, 6, 8}));
  EXPECT_EQ(t_by_c.size(), 4u);
  // poll is measured by the full profile only; --n replaces the thread counts.
  EXPECT_TRUE(probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}, {mechanism::epoll, "et"}}).empty());
  sel.profile = profile_kind::full;
  sel.n_override = {0, 5, 300, 10};
  std::set<std::int64_t> ts;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}})) {
    EXPECT_EQ(k.mechanism, "poll");
    ts.insert(*k.n_fds);
  }
  EXPECT_EQ(ts, (std::set<std::int64_t>{5, 10}));
}

TEST(PrivateSetsTest, OneCpuListsTheTwoCpuPointsAndSkipsThem) {
  const auto* probe = find_probe("private_sets");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(test::skipped_outside_one_cpu(*probe, test::small_selection()), 3);
}

TEST(PrivateSetsTest, MalformedPointsAreRefusedBeforeAnyThreadStarts) {
  const auto sel = test::small_selection();
  const std::string c = std::to_string(sel.cpus.front());
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  EXPECT_THROW(private_sets_driver(private_sets_key(3, c + "+" + c), sel), std::invalid_argument);  // 2 CPUs for 3
  EXPECT_THROW(private_sets_driver(private_sets_key(0, c), sel), std::invalid_argument);
  EXPECT_THROW(private_sets_driver(private_sets_key(1000, round_robin_pinning({sel.cpus.front()}, 1000)), sel),
               probe_skipped);
  auto few = sel;
  few.max_fds = 5;
  EXPECT_THROW(private_sets_driver(private_sets_key(8, round_robin_pinning({sel.cpus.front()}, 8)), few),
               probe_skipped);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

TEST(PrivateSetsTest, RunThroughTheRegistryAndManyInstancesLeaveNothingBehind) {
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  EXPECT_GT(test::run_small_registry_points("private_sets"), 0);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

TEST(PrivateSetsTest, AFailedCallInABatchJoinsEveryThread) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  {
    // A call fails in the middle of a batch, on whichever thread meets it first: the
    // batch throws and the instance still stops and joins every thread.
    private_sets_driver d(private_sets_key(4, round_robin_pinning(cpus, 4)), sel);
    d.calls(100);
    sys::set_fault_hook([](std::string_view what) { return what == "epoll_wait" ? EIO : 0; });
    EXPECT_THROW(d.calls(100000), std::system_error);
    sys::set_fault_hook({});
  }
  // A thread that cannot pin itself (a CPU the selection claims but the kernel refuses):
  // its error reaches the constructor, which joins the others.
  auto wrong = sel;
  wrong.cpus.push_back(1000);
  EXPECT_THROW(private_sets_driver(
                   private_sets_key(3, std::to_string(cpus[0]) + "+" + std::to_string(cpus[0]) + "+1000"), wrong),
               std::system_error);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

}  // namespace
}  // namespace pollscale::calibrate
