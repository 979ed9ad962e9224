// interest_churn at small n: every point builds, runs across batch boundaries (so each
// undo step must have restored the interest set, or the next ADD/arm fails), checks its
// answers and leaves no descriptor, signal or mask change behind. No timing assertions.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <set>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

selection churn_sizes() { return test::small_selection({1, 7, 40}); }

datasets::key churn_key(const flavour& f, fd_kind kind, std::string_view metric, std::int64_t n) {
  datasets::key k =
      probes::base_key(datasets::scenario::interest_churn, f, kind, *datasets::parse<datasets::metric>(metric), "ns");
  k.n_fds = n;
  k.threads = 1;
  return k;
}

TEST(InterestChurnTest, EveryPointRunsAcrossBatchesAndLeavesNothingBehind) {
  const auto* probe = find_probe("interest_churn");
  ASSERT_NE(probe, nullptr);
  const auto sel = churn_sizes();
  const auto points = probe->points(sel, all_flavours());
  // epoll add/mod/del, rtsig setup, io_uring oneshot/multishot arm, poll build_set; 3 n each.
  ASSERT_EQ(points.size(), 7u * 3);
  sigset_t mask_before, mask_after;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask_before);
  const std::size_t before = sys::open_fd_count();
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(3), 0u);
    EXPECT_GT(inst->run(300), 0u);  // > 2 batches of 128 (epoll, io_uring) and 64 (rtsig)
    EXPECT_GT(inst->run(300), 0u);
  }
  EXPECT_EQ(sys::open_fd_count(), before);
  pthread_sigmask(SIG_BLOCK, nullptr, &mask_after);
  EXPECT_EQ(sigismember(&mask_after, SIGRTMIN + 1), sigismember(&mask_before, SIGRTMIN + 1));
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGRTMIN + 1));
  EXPECT_FALSE(sigismember(&pending, SIGIO));
}

TEST(InterestChurnTest, QuickGridHasSixOrMoreNPerSeriesAndReachesTheLimit) {
  const auto* probe = find_probe("interest_churn");
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0};
  std::map<std::string, std::set<std::int64_t>> ns;
  for (const auto& k : probe->points(sel, all_flavours())) {
    ns[k.mechanism + "/" + k.variant + " " + k.metric].insert(*k.n_fds);
    EXPECT_EQ(k.pinning, "0");
    EXPECT_EQ(k.unit, "ns");
  }
  const std::set<std::string> series = {"epoll/lt add",   "epoll/lt mod",         "epoll/lt del",
                                        "rtsig/ setup",   "io_uring/oneshot arm", "io_uring/multishot arm",
                                        "poll/ build_set"};
  EXPECT_EQ(ns.size(), series.size());
  for (const auto& s : series) {
    SCOPED_TRACE(s);
    ASSERT_TRUE(ns.count(s));
    EXPECT_GE(ns[s].size(), 6u);
    EXPECT_GE(*ns[s].rbegin(), 19000);
  }
}

TEST(InterestChurnTest, OnlySelectedMechanismsArePlanned) {
  const auto* probe = find_probe("interest_churn");
  const auto sel = churn_sizes();
  const std::vector<flavour> only{{mechanism::io_uring, "multishot"}};
  for (const auto& k : probe->points(sel, only)) {
    EXPECT_EQ(k.mechanism, "io_uring");
    EXPECT_EQ(k.variant, "multishot");
  }
  EXPECT_TRUE(probe->points(sel, std::vector<flavour>{{mechanism::select, ""}}).empty());
}

TEST(InterestChurnTest, PointsBeyondTheDescriptorLimitAreSkipped) {
  const auto* probe = find_probe("interest_churn");
  auto sel = churn_sizes();
  sel.max_fds = 100;
  for (const auto& k : {churn_key({mechanism::epoll, "lt"}, fd_kind::eventfd, "add", 50),
                        churn_key({mechanism::rtsig, ""}, fd_kind::pipe, "setup", 50),
                        churn_key({mechanism::io_uring, "oneshot"}, fd_kind::eventfd, "arm", 50),
                        churn_key({mechanism::poll, ""}, fd_kind::eventfd, "build_set", 500)}) {
    SCOPED_TRACE(datasets::describe(k));
    try {
      probe->make(k, sel);
      FAIL() << "not skipped";
    } catch (const probe_skipped& e) {
      EXPECT_NE(std::string(e.what()).find("RLIMIT_NOFILE"), std::string::npos) << e.what();
    }
  }
}

TEST(InterestChurnTest, UnknownMetricOrMechanismIsRejected) {
  const auto* probe = find_probe("interest_churn");
  const auto sel = churn_sizes();
  EXPECT_THROW(probe->make(churn_key({mechanism::epoll, "lt"}, fd_kind::eventfd, "swap", 4), sel),
               std::invalid_argument);
  EXPECT_THROW(probe->make(churn_key({mechanism::select, ""}, fd_kind::eventfd, "add", 4), sel), std::invalid_argument);
  auto no_n = churn_key({mechanism::poll, ""}, fd_kind::eventfd, "build_set", 4);
  no_n.n_fds.reset();
  EXPECT_THROW(probe->make(no_n, sel), std::invalid_argument);
}

TEST(InterestChurnTest, AFailedCallFailsTheRunNamingTheCall) {
  const auto* probe = find_probe("interest_churn");
  const auto sel = churn_sizes();
  const std::size_t before = sys::open_fd_count();
  const std::vector<std::pair<datasets::key, std::string>> cases = {
      {churn_key({mechanism::epoll, "lt"}, fd_kind::eventfd, "add", 4), "epoll_ctl(ADD)"},
      {churn_key({mechanism::epoll, "lt"}, fd_kind::eventfd, "mod", 4), "epoll_ctl(MOD)"},
      {churn_key({mechanism::rtsig, ""}, fd_kind::pipe, "setup", 4), "fcntl(F_SETSIG)"},
      {churn_key({mechanism::io_uring, "oneshot"}, fd_kind::eventfd, "arm", 4), "io_uring_submit(POLL_ADD)"}};
  for (const auto& [k, call] : cases) {
    SCOPED_TRACE(call);
    auto inst = probe->make(k, sel);
    sys::set_fault_hook([c = call](std::string_view what) { return what == c ? EBADF : 0; });
    try {
      inst->run(10);
      ADD_FAILURE() << "no error";
    } catch (const std::system_error& e) {
      EXPECT_NE(std::string(e.what()).find(call), std::string::npos) << e.what();
    }
    sys::set_fault_hook({});
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

}  // namespace
}  // namespace pollscale::calibrate
