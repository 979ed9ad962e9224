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
  datasets::key k;
  k.scenario = "private_processes";
  k.mechanism = mech;
  k.variant = variant;
  k.fd_kind = "pipe";
  k.n_fds = t;
  k.n_active = t;
  k.blocking = 0;
  k.threads = t;
  k.pinning = pinning;
  k.cpus = static_cast<std::int64_t>(datasets::pinning::parse(pinning).distinct_cpus());
  k.metric = "throughput";
  k.unit = "1/s";
  return k;
}

std::uint64_t calls_in_all(const std::vector<std::uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
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
  for (const auto& [mech, variant] :
       std::vector<std::pair<std::string, std::string>>{{"epoll", "lt"}, {"poll", ""}, {"io_uring", "oneshot"}})
    for (const auto& cpus : placements())
      for (int t : {1, 2, 3}) {
        const auto k = private_processes_key(t, round_robin_pinning(cpus, t), mech, variant);
        SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
        try {
          private_processes_driver d(k, sel);
          ASSERT_EQ(d.processes(), static_cast<std::size_t>(t));
          EXPECT_EQ(d.total(), 0u);  // the set-up's proof calls are not counted
          std::uint64_t asked = 0;
          for (std::size_t calls : std::initializer_list<std::size_t>{1, 7, 1000, 5000}) {
            EXPECT_GT(d.calls(calls), 0u);
            asked += calls;
            EXPECT_EQ(d.total(), asked);
            EXPECT_EQ(calls_in_all(d.calls_per_process()), asked);
          }
          EXPECT_GT(d.max_watched_fd(), 2);
        } catch (const probe_skipped& e) {
          EXPECT_EQ(mech, "io_uring") << e.what();  // a kernel that refuses io_uring
        }
      }
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
  const auto* probe = find_probe("private_processes");
  auto sel = test::small_selection();
  sel.profile = profile_kind::full;
  const std::size_t fds = sys::open_fd_count();
  int ran = 0;
  for (int round = 0; round < 3; ++round)
    for (const auto& k : probe->points(sel, all_flavours())) {
      if (*k.n_fds > 3) continue;
      SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
      try {
        auto inst = probe->make(k, sel);
        EXPECT_EQ(inst->min_batch(), 8192u);
        EXPECT_GT(inst->run(300), 0u);
        datasets::key annotated = k;
        inst->annotate(annotated);
        EXPECT_GE(annotated.max_fd.value_or(-1), 3);
        ++ran;
      } catch (const probe_skipped& e) {
        EXPECT_EQ(k.mechanism, "io_uring") << e.what();
      }
    }
  EXPECT_GT(ran, 0);
  EXPECT_EQ(sys::open_fd_count(), fds);
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace pollscale::calibrate
