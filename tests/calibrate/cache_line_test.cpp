// cache_line (calibrate/probes/cache_line.cpp): its grid of CPU pairs, what it refuses, that
// its partner sleeps between batches, and that it leaves no thread behind.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/registry.hpp"
#include "probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using test::task_count;
using test::task_count_settled;

const probe_def& probe() {
  const auto* p = find_probe("cache_line");
  EXPECT_NE(p, nullptr);
  return *p;
}

std::vector<std::string> pinnings(const selection& sel) {
  std::vector<std::string> out;
  for (const auto& k : probe().points(sel, {})) {
    EXPECT_EQ(k.metric, "round_trip");
    EXPECT_EQ(k.unit, "ns");
    EXPECT_EQ(k.threads, 2);
    EXPECT_EQ(k.cpus, 2);
    EXPECT_TRUE(k.mechanism.empty() && k.fd_kind.empty() && !k.n_fds);
    out.push_back(k.pinning);
  }
  return out;
}

double process_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// The first CPU of the mask with the second and the last (quick), or with each other CPU up
// to 16 (full); never a CPU with itself, whatever mechanisms or --n say.
TEST(CacheLineTest, GridPairsTheFirstCpuWithOthers) {
  selection sel;
  sel.cpus = {0, 1, 2, 3};
  EXPECT_EQ(pinnings(sel), (std::vector<std::string>{"0+1", "0+3"}));
  sel.n_override = {5, 50};
  EXPECT_EQ(pinnings(sel), (std::vector<std::string>{"0+1", "0+3"}));
  sel.profile = profile_kind::full;
  EXPECT_EQ(pinnings(sel), (std::vector<std::string>{"0+1", "0+2", "0+3"}));
  sel.cpus.clear();
  for (int c = 4; c < 40; ++c) sel.cpus.push_back(c);
  const auto wide = pinnings(sel);
  ASSERT_EQ(wide.size(), 16u);
  EXPECT_EQ(wide.front(), "4+5");
  EXPECT_EQ(wide.back(), "4+20");
  sel.cpus = {2, 5};
  EXPECT_EQ(pinnings(sel), (std::vector<std::string>{"2+5"}));
  sel.profile = profile_kind::quick;
  EXPECT_EQ(pinnings(sel), (std::vector<std::string>{"2+5"}));
}

// A one-CPU mask lists the pair with a CPU outside it, which is skipped; a pair on one CPU
// (only a hand-made key names one) is refused: it would time the scheduler's slice.
TEST(CacheLineTest, OneCpuAndOneCpuPairsAreSkipped) {
  EXPECT_EQ(test::skipped_outside_one_cpu(probe(), test::small_selection()), 1);
  const auto sel = test::small_selection();
  auto k = probe().points(sel, {}).front();
  const std::string c = std::to_string(sel.cpus.front());
  k.pinning = c + "+" + c;
  try {
    probe().make(k, sel);
    FAIL() << "a one-CPU pair ran";
  } catch (const probe_skipped& e) {
    EXPECT_NE(std::string(e.what()).find("time slice"), std::string::npos) << e.what();
  }
}

// The round trips run, and between batches the partner sleeps: the process burns no CPU
// while the session would be measuring other points. Many instances leave no thread.
TEST(CacheLineTest, RoundTripsRunAndThePartnerSleepsBetweenBatches) {
  const auto sel = test::small_selection();
  if (sel.cpus.size() < 2) GTEST_SKIP() << "one CPU in the affinity mask";
  std::thread([] {}).join();  // ThreadSanitizer starts a thread of its own with the first one
  const std::size_t tasks = task_count();
  for (int round = 0; round < 3; ++round) {
    auto inst = probe().make(probe().points(sel, {}).front(), sel);
    EXPECT_EQ(inst->min_batch(), 1024u);
    // Few round trips: with other tests running beside this one, a hand-off can wait for
    // the partner's CPU a time slice long.
    EXPECT_GT(inst->run(200), 0u);
    EXPECT_GT(inst->run(1), 0u);
    const double before = process_cpu_s();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_LT(process_cpu_s() - before, 0.1) << "a thread spun between batches";
    EXPECT_GT(inst->run(50), 0u);
  }
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

}  // namespace
}  // namespace pollscale::calibrate
