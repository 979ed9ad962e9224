// What the probe tests share: a small selection (few descriptors, this machine's CPUs), the
// placements a threaded probe can run here, and a count of this process's threads.
#pragma once

#include <dirent.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/calibration.hpp"
#include "calibrate/mechanism.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "datasets/pinning.hpp"
#include "datasets/schema.hpp"

namespace pollscale::calibrate::test {

/// A selection for small-n tests: `max_fds` descriptors, the affinity mask's CPUs, and
/// `n_override` replacing the probes' n grids when not empty.
inline selection small_selection(std::vector<std::int64_t> n_override = {}, std::size_t max_fds = 2000) {
  selection s;
  s.max_fds = max_fds;
  s.cpus = sys::allowed_cpus();
  s.n_override = std::move(n_override);
  return s;
}

/// A whole calibration of `scenarios` at small n, fast: every mechanism, 20 ms a point, one
/// ms of warm-up, `rounds` rounds, no repair or settling visits, written to `out`.
inline calibration_request small_request(std::vector<std::string> scenarios, std::vector<std::int64_t> n, int rounds,
                                         const std::filesystem::path& out) {
  calibration_request req;
  req.sel = small_selection(std::move(n));
  req.scenarios = std::move(scenarios);
  req.mechs = all_flavours();
  req.runner.max_s_per_point = 0.02;
  req.runner.warmup_s = 0.001;
  req.rounds = rounds;
  req.repair_visits = 0;
  req.settle.max_visits = 0;
  req.out = out;
  return req;
}

/// The placements this machine can run: one CPU, and two where the mask holds two.
inline std::vector<std::vector<int>> placements() {
  const auto cpus = sys::allowed_cpus();
  std::vector<std::vector<int>> out = {{cpus[0]}};
  if (cpus.size() > 1) out.push_back({cpus[0], cpus[1]});
  return out;
}

/// "c0+c1+...": thread i on cpus[i % cpus.size()] — the threaded grids' pinning, written
/// out here independently of calibrate's own.
inline std::string round_robin_pinning(const std::vector<int>& cpus, int threads) {
  std::string s;
  for (int i = 0; i < threads; ++i)
    s += (i ? "+" : "") + std::to_string(cpus[static_cast<std::size_t>(i) % cpus.size()]);
  return s;
}

/// The key of a point of T workers over T pipes (private_sets' threads and
/// private_processes' processes each on a pipe of their own; shared_epoll's threads on one
/// instance over all of them): timeout-0 calls, a token a pipe, on `pinning`, throughput.
inline datasets::key pipes_key(const char* scenario, int t, const std::string& pinning,
                               const std::string& mech = "epoll", const std::string& variant = "lt") {
  datasets::key k;
  k.scenario = scenario;
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

/// The calls of a batch over all its workers.
inline std::uint64_t calls_in_all(const std::vector<std::uint64_t>& per_worker) {
  return std::accumulate(per_worker.begin(), per_worker.end(), std::uint64_t{0});
}

/// For poll, epoll and io_uring, every placement and T = 1..3 workers on pipes of their own:
/// the driver `make(key)` returns has T workers (`workers(d)`), counts none of its set-up's
/// proof calls, and each batch of 1, 7, 1000 and 5000 calls makes exactly that many, in
/// total and over its workers (`per_worker(d)`). A kernel that refuses io_uring skips it.
template <class Make, class Workers, class PerWorker>
void expect_exact_batches(const char* scenario, Make make, Workers workers, PerWorker per_worker) {
  for (const auto& [mech, variant] :
       std::vector<std::pair<std::string, std::string>>{{"epoll", "lt"}, {"poll", ""}, {"io_uring", "oneshot"}})
    for (const auto& cpus : placements())
      for (int t : {1, 2, 3}) {
        const auto k = pipes_key(scenario, t, round_robin_pinning(cpus, t), mech, variant);
        SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
        try {
          auto d = make(k);
          ASSERT_EQ(workers(d), static_cast<std::size_t>(t));
          EXPECT_EQ(d.total(), 0u);
          std::uint64_t asked = 0;
          for (std::size_t calls : std::initializer_list<std::size_t>{1, 7, 1000, 5000}) {
            EXPECT_GT(d.calls(calls), 0u);
            asked += calls;
            EXPECT_EQ(d.total(), asked);
            EXPECT_EQ(calls_in_all(per_worker(d)), asked);
          }
          EXPECT_GT(d.max_watched_fd(), 2);
        } catch (const probe_skipped& e) {
          EXPECT_EQ(mech, "io_uring") << e.what();
        }
      }
}

/// Three rounds of every point of the registry's `scenario` (full profile) with at most three
/// workers, each made, run for 300 calls and annotated: batches of 8192 calls, the watched
/// descriptors above the standard three, io_uring's alone allowed to be skipped. Returns how
/// many ran; the caller checks what its workers left behind.
inline int run_small_registry_points(const char* scenario) {
  const auto* probe = find_probe(scenario);
  auto sel = small_selection();
  sel.profile = profile_kind::full;
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
  return ran;
}

/// The thread ids of this process (/proc/self/task).
inline std::vector<std::string> task_ids() {
  std::vector<std::string> ids;
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return ids;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ids.emplace_back(e->d_name);
  ::closedir(d);
  return ids;
}

/// Threads of this process.
inline std::size_t task_count() { return task_ids().size(); }

/// Threads of this process whose nice value is `nice` (/proc/self/task/TID/stat: field 19,
/// counted from the state after the command's closing parenthesis, field 3).
inline std::size_t tasks_at_nice(int nice) {
  std::size_t n = 0;
  for (const auto& id : task_ids()) {
    std::ifstream in("/proc/self/task/" + id + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;  // the thread left between the two reads
    std::istringstream fields(stat.substr(close + 1));
    std::string field;
    for (int i = 3; i <= 19 && fields >> field; ++i)
      if (i == 19 && field == std::to_string(nice)) ++n;
  }
  return n;
}

/// A joined thread may linger in /proc for a moment after join returns (it wakes the
/// joiner before it is reaped): `count()` is read until it gives `expected`, up to 2 s.
template <class Count>
std::size_t settled(Count count, std::size_t expected) {
  std::size_t n = count();
  for (int i = 0; i < 200 && n != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    n = count();
  }
  return n;
}

/// task_count once it reaches `expected` (settled).
inline std::size_t task_count_settled(std::size_t expected) { return settled(task_count, expected); }

/// The count once threads joined a moment ago have left /proc: read every 10 ms until two
/// reads agree, up to 2 s (a baseline taken right after a join may otherwise count a
/// thread still being reaped).
inline std::size_t task_count_quiet() {
  std::size_t n = task_count();
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::size_t m = task_count();
    if (m == n) break;
    n = m;
  }
  return n;
}

/// Makes every point of `probe` (of every flavour) that spreads over more than one CPU with
/// a one-CPU affinity mask; each must be skipped as outside the mask, leaving no descriptor
/// or thread behind. Returns how many were; a point that runs is a test failure.
inline int skipped_outside_one_cpu(const probe_def& probe, selection sel) {
  sel.cpus = {sel.cpus.front()};
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  int skipped = 0;
  for (const auto& k : probe.points(sel, all_flavours())) {
    if (*k.cpus == 1) continue;
    try {
      probe.make(k, sel);
      ADD_FAILURE() << k.pinning << " was not skipped";
    } catch (const probe_skipped& e) {
      EXPECT_NE(std::string(e.what()).find("not in the affinity mask"), std::string::npos) << e.what();
      ++skipped;
    }
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
  return skipped;
}

}  // namespace pollscale::calibrate::test
