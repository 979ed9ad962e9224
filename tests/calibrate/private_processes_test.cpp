// private_processes at small T: every worker is a process of its own with one thread, a
// batch makes exactly the calls it asked for, processes on CPUs of their own all take part,
// the grid is private_sets' with processes, a malformed point is refused before any fork, a
// worker that cannot set itself up or dies is named, and every instance reaps its
// processes and leaves the calibration's descriptors as they were. No timing assertions.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "calibrate/probes/private_processes.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "datasets/pinning.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using probes::private_processes_driver;
using test::placements;
using test::round_robin_pinning;

datasets::key private_processes_key(int t, const std::string& pinning, const std::string& mech = "epoll",
                                    const std::string& variant = "lt") {
  return test::pipes_key("private_processes", t, pinning, mech, variant);
}

/// The "Threads:" line of /proc/PID/status (0 when it cannot be read).
int threads_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return 0;
}

/// Whether `pid` is still a child of this process waiting to be reaped or running.
bool still_our_child(pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) == 0; }

TEST(PrivateProcessesTest, EveryBatchMakesExactlyTheCallsItAskedFor) {
  const auto sel = test::small_selection();
  test::expect_exact_batches(
      "private_processes", [&](const datasets::key& k) { return private_processes_driver(k, sel); },
      [](const auto& d) { return d.processes(); }, [](const auto& d) { return d.calls_per_process(); });
}

// What the scenario is about: each worker a process of one thread, none of them this one.
TEST(PrivateProcessesTest, EveryWorkerIsAProcessOfOneThreadAndIsReapedWhenThePointGoes) {
  const auto sel = test::small_selection();
  std::vector<pid_t> pids;
  {
    private_processes_driver d(private_processes_key(3, round_robin_pinning(placements().back(), 3)), sel);
    pids = d.pids();
    ASSERT_EQ(pids.size(), 3u);
    EXPECT_EQ(std::set<pid_t>(pids.begin(), pids.end()).size(), 3u);
    for (pid_t pid : pids) {
      EXPECT_NE(pid, ::getpid());
      EXPECT_EQ(threads_of(pid), 1) << pid;
      EXPECT_TRUE(still_our_child(pid)) << pid;
    }
    d.calls(3000);
  }
  for (pid_t pid : pids) {
    errno = 0;
    EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1) << pid;  // reaped already: not our child any more
    EXPECT_EQ(errno, ECHILD);
  }
}

TEST(PrivateProcessesTest, ProcessesOnCpusOfTheirOwnAllTakePart) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU in the affinity mask";
  private_processes_driver d(private_processes_key(2, round_robin_pinning(cpus, 2)), sel);
  for (int i = 0; i < 50; ++i) d.calls(4000);
  for (auto m : d.calls_per_process()) EXPECT_GT(m, 0u);
  EXPECT_EQ(d.total(), 200000u);
}

TEST(PrivateProcessesTest, GridIsPrivateSetsWithProcesses) {
  const auto* probe = find_probe("private_processes");
  const auto* threads = find_probe("private_sets");
  ASSERT_NE(probe, nullptr);
  ASSERT_NE(threads, nullptr);
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1};
  const auto quick = probe->points(sel, all_flavours());
  const auto quick_threads = threads->points(sel, all_flavours());
  ASSERT_EQ(quick.size(), quick_threads.size());
  for (std::size_t i = 0; i < quick.size(); ++i) {
    EXPECT_EQ(quick[i].scenario, "private_processes");
    auto same = quick[i];
    same.scenario = "private_sets";
    EXPECT_EQ(same, quick_threads[i]) << datasets::describe(quick[i]);  // the same T, C, pinning and columns
  }
  sel.profile = profile_kind::full;
  std::map<std::string, std::size_t> per_mechanism;
  for (const auto& k : probe->points(sel, all_flavours())) ++per_mechanism[k.mechanism + "/" + k.variant];
  EXPECT_EQ(per_mechanism,
            (std::map<std::string, std::size_t>{{"epoll/lt", 11}, {"io_uring/oneshot", 11}, {"poll/", 11}}));
  sel.n_override = {0, 5, 300, 10};
  std::set<std::int64_t> ts;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}})) ts.insert(*k.n_fds);
  EXPECT_EQ(ts, (std::set<std::int64_t>{5, 10}));
}

TEST(PrivateProcessesTest, MalformedPointsAreRefusedBeforeAnyFork) {
  const auto sel = test::small_selection();
  const std::string c = std::to_string(sel.cpus.front());
  const std::size_t fds = sys::open_fd_count();
  auto few = sel;
  few.max_fds = 5;
  EXPECT_THROW(private_processes_driver(private_processes_key(8, round_robin_pinning({sel.cpus.front()}, 8)), few),
               probe_skipped);
  EXPECT_THROW(private_processes_driver(private_processes_key(3, c + "+" + c), sel), std::invalid_argument);
  EXPECT_THROW(private_processes_driver(private_processes_key(0, c), sel), std::invalid_argument);
  EXPECT_THROW(
      private_processes_driver(private_processes_key(1000, round_robin_pinning({sel.cpus.front()}, 1000)), sel),
      probe_skipped);
  EXPECT_EQ(sys::open_fd_count(), fds);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);  // no child was left behind
  EXPECT_EQ(errno, ECHILD);
}

TEST(PrivateProcessesTest, AWorkerThatCannotPinItselfOrDiesIsNamedAndTheRestAreReaped) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  const std::size_t fds = sys::open_fd_count();
  // A CPU the selection claims but the kernel refuses: the worker says which step failed.
  auto wrong = sel;
  wrong.cpus.push_back(1000);
  try {
    private_processes_driver d(private_processes_key(2, std::to_string(cpus[0]) + "+1000"), wrong);
    ADD_FAILURE() << "a worker pinned to CPU 1000 set itself up";
  } catch (const probe_failure& e) {
    EXPECT_NE(std::string(e.what()).find("process 1 failed while setting up at pinning itself"), std::string::npos)
        << e.what();
  }
  {
    // A worker killed between batches: the next batch names it instead of waiting for ever.
    private_processes_driver d(private_processes_key(2, round_robin_pinning(cpus, 2)), sel);
    d.calls(1000);
    ASSERT_EQ(::kill(d.pids()[1], SIGKILL), 0);
    try {
      d.calls(1000000);
      ADD_FAILURE() << "a batch finished without its killed worker";
    } catch (const probe_failure& e) {
      EXPECT_NE(std::string(e.what()).find("process 1 ended during a batch (killed by signal 9)"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(PrivateProcessesTest, RunThroughTheRegistryAndManyInstancesLeaveNothingBehind) {
  const std::size_t fds = sys::open_fd_count();
  EXPECT_GT(test::run_small_registry_points("private_processes"), 0);
  EXPECT_EQ(sys::open_fd_count(), fds);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace pollscale::calibrate
