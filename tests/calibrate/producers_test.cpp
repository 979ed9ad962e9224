// producers at small T: every event a producer writes is read by the consumer exactly once
// (per eventfd and in all), a batch delivers exactly what it asked for, the grid has the
// promised T, C and columns, a point that cannot run here is skipped, and every instance
// joins its threads and closes its descriptors — also when its set-up or a batch fails.
// No timing assertions.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/producers.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/pinning.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using probes::producers_driver;

/// The consumer on cpus[0], producer i on cpus[(i + 1) % cpus.size()].
std::string pinning_for(const std::vector<int>& cpus, int t) {
  std::string s = std::to_string(cpus[0]);
  for (int i = 0; i < t; ++i) s += "+" + std::to_string(cpus[static_cast<std::size_t>(i + 1) % cpus.size()]);
  return s;
}

datasets::key producers_key(int t, const std::string& pinning) {
  datasets::key k;
  k.scenario = "producers";
  k.mechanism = "epoll";
  k.variant = "lt";
  k.fd_kind = "eventfd";
  k.n_fds = t;
  k.n_active = t;
  k.blocking = 1;
  k.threads = t + 1;
  k.pinning = pinning;
  k.cpus = static_cast<std::int64_t>(datasets::pinning::parse(pinning).distinct_cpus());
  k.metric = "throughput";
  k.unit = "1/s";
  return k;
}

using test::placements;
using test::task_count;
using test::task_count_settled;

TEST(ProducersTest, EveryEventWrittenIsConsumedExactlyOnce) {
  const auto sel = test::small_selection();
  for (const auto& cpus : placements())
    for (int t : {1, 2, 3}) {
      const auto k = producers_key(t, pinning_for(cpus, t));
      SCOPED_TRACE(k.pinning);
      producers_driver d(k, sel);
      ASSERT_EQ(d.producers(), static_cast<std::size_t>(t));
      const std::uint64_t proof = d.delivered();  // the untimed batch of set-up
      EXPECT_GT(proof, 0u);
      std::uint64_t asked = proof;
      for (std::size_t events : std::initializer_list<std::size_t>{1, 7, 1000, 5000}) {
        EXPECT_GT(d.deliver(events), 0u);
        asked += events;
        // Exactly what was asked, never more: producers stop at the budget.
        EXPECT_EQ(d.delivered(), asked);
        const auto written = d.written();
        EXPECT_EQ(written, d.consumed());
        EXPECT_EQ(std::accumulate(written.begin(), written.end(), std::uint64_t{0}), asked);
        EXPECT_EQ(std::accumulate(d.consumed().begin(), d.consumed().end(), std::uint64_t{0}), asked);
      }
      // Quiet between batches: a while later nothing more was written.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const auto written = d.written();
      EXPECT_EQ(std::accumulate(written.begin(), written.end(), std::uint64_t{0}), asked);
    }
}

TEST(ProducersTest, EveryProducerWritesOverManyBatches) {
  // The budget is shared, so one batch may go to any producer; over many, each one writes.
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  producers_driver d(producers_key(3, pinning_for(cpus, 3)), sel);
  for (int i = 0; i < 50; ++i) d.deliver(2000);
  for (auto w : d.written()) EXPECT_GT(w, 0u);
}

TEST(ProducersTest, RunReturnsAPositiveTimeForEveryPlannedPointThatFits) {
  const auto* probe = find_probe("producers");
  ASSERT_NE(probe, nullptr);
  auto sel = test::small_selection();
  int ran = 0;
  for (const auto& k : probe->points(sel, all_flavours())) {
    if (*k.n_fds > 3) continue;  // small T: the semantics, not the grid's top
    SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
    try {
      auto inst = probe->make(k, sel);
      EXPECT_GE(inst->min_batch(), 1u);
      if (k.metric == "wakeups") {
        // A count, not a time: the consumer's sleeps, each ended by a write (or its 1-s
        // timeout, which a batch of milliseconds never reaches), so at most one an event.
        EXPECT_TRUE(inst->counts());
        EXPECT_LE(inst->run(100), 100u);
        EXPECT_LE(inst->run(inst->min_batch()), inst->min_batch());
      } else {
        EXPECT_FALSE(inst->counts());
        EXPECT_GT(inst->run(100), 0u);
        EXPECT_GT(inst->run(inst->min_batch()), 0u);
      }
      datasets::key annotated = k;
      inst->annotate(annotated);
      EXPECT_GE(annotated.max_fd.value_or(-1), 0);
      ++ran;
    } catch (const probe_skipped& e) {
      EXPECT_EQ(sel.cpus.size(), 1u) << e.what();
    }
  }
  EXPECT_EQ(ran, sel.cpus.size() > 1 ? 12 : 6);  // throughput and wakeups at T = 1-3, one CPU and two
}

TEST(ProducersTest, QuickGridHasTheSeriesColumnsAndPinnings) {
  const auto* probe = find_probe("producers");
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1};
  const auto points = probe->points(sel, all_flavours());
  std::map<std::string, std::map<std::int64_t, std::set<std::int64_t>>> t_by_c;
  for (const auto& k : points) {
    EXPECT_EQ(k.scenario, "producers");
    EXPECT_EQ(k.mechanism, "epoll");
    EXPECT_EQ(k.variant, "lt");
    EXPECT_EQ(k.fd_kind, "eventfd");
    EXPECT_EQ(k.unit, k.metric == "wakeups" ? "1" : "1/s") << k.metric;
    EXPECT_EQ(k.blocking, 1);
    const auto t = *k.n_fds;
    EXPECT_EQ(k.n_active, t);
    EXPECT_EQ(k.threads, t + 1);
    const auto c = *k.cpus;
    EXPECT_EQ(k.pinning, pinning_for(c == 1 ? std::vector<int>{0} : std::vector<int>{0, 1}, static_cast<int>(t)));
    t_by_c[k.metric][c].insert(t);
  }
  // Each point twice: its rate and its consumer's sleeps per event.
  const std::set<std::int64_t> ts = {1, 2, 3, 4, 6, 8};
  const std::map<std::int64_t, std::set<std::int64_t>> series = {{1, ts}, {2, ts}};
  EXPECT_EQ(t_by_c, (std::map<std::string, std::map<std::int64_t, std::set<std::int64_t>>>{{"throughput", series},
                                                                                           {"wakeups", series}}));
  EXPECT_EQ(points.size(), 24u);
  // The full profile on two CPUs: the same points.
  sel.profile = profile_kind::full;
  EXPECT_EQ(probe->points(sel, all_flavours()), points);
}

TEST(ProducersTest, WiderMachinesSpreadOverMoreCpusAndDuplicatesAreListedOnce) {
  const auto* probe = find_probe("producers");
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1, 2, 3, 4, 5, 6, 7};
  std::map<std::int64_t, std::set<std::int64_t>> t_by_c;
  std::set<std::pair<std::string, std::string>> pinnings;
  for (const auto& k : probe->points(sel, all_flavours())) {
    t_by_c[*k.cpus].insert(*k.n_fds);
    EXPECT_TRUE(pinnings.insert({k.pinning, k.metric}).second) << k.pinning << " " << k.metric;
  }
  // quick: C = 1 and C = 4 (its cap); T up to 16; cpus = min(C, T + 1).
  EXPECT_EQ(t_by_c[1], (std::set<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16}));
  EXPECT_EQ(t_by_c[2], (std::set<std::int64_t>{1}));
  EXPECT_EQ(t_by_c[3], (std::set<std::int64_t>{2}));
  EXPECT_EQ(t_by_c[4], (std::set<std::int64_t>{3, 4, 6, 8, 12, 16}));
  EXPECT_EQ(t_by_c.size(), 4u);
  sel.profile = profile_kind::full;  // C = 1, 2, 4, 8; T up to 32
  std::set<std::int64_t> widths;
  std::int64_t t_max = 0;
  for (const auto& k : probe->points(sel, all_flavours())) {
    widths.insert(*k.cpus);
    t_max = std::max(t_max, *k.n_fds);
  }
  EXPECT_EQ(widths, (std::set<std::int64_t>{1, 2, 3, 4, 5, 7, 8}));  // min(C, T + 1): no T = 5
  EXPECT_EQ(t_max, 32);
}

TEST(ProducersTest, OneCpuListsTheTwoCpuPointsAndSkipsThem) {
  const auto* probe = find_probe("producers");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(test::skipped_outside_one_cpu(*probe, test::small_selection()), 12);  // 6 T, two metrics
}

TEST(ProducersTest, NothingWithoutEpollLtAndNReplacesTheProducerCounts) {
  const auto* probe = find_probe("producers");
  auto sel = test::small_selection();
  EXPECT_TRUE(probe->points(sel, std::vector<flavour>{{mechanism::epoll, "et"}, {mechanism::poll, ""}}).empty());
  sel.n_override = {0, 5, 300, 10};
  std::set<std::int64_t> ts;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::epoll, "lt"}})) ts.insert(*k.n_fds);
  EXPECT_EQ(ts, (std::set<std::int64_t>{5, 10}));
}

TEST(ProducersTest, MalformedPointsAreRefusedBeforeAnyThreadStarts) {
  const auto sel = test::small_selection();
  const std::string c = std::to_string(sel.cpus.front());
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  EXPECT_THROW(producers_driver(producers_key(2, c + "+" + c), sel), std::invalid_argument);  // 2 CPUs for 3
  EXPECT_THROW(producers_driver(producers_key(0, c), sel), std::invalid_argument);
  EXPECT_THROW(producers_driver(producers_key(1000, pinning_for({sel.cpus.front()}, 1000)), sel), probe_skipped);
  auto few = sel;
  few.max_fds = 3;
  EXPECT_THROW(producers_driver(producers_key(8, pinning_for({sel.cpus.front()}, 8)), few), probe_skipped);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

TEST(ProducersTest, CreatedAndDestroyedManyTimesLeavesNoThreadOrDescriptor) {
  const auto* probe = find_probe("producers");
  const auto sel = test::small_selection();
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  const auto places = placements();
  for (int i = 0; i < 40; ++i) {
    const auto& cpus = places[static_cast<std::size_t>(i) % places.size()];
    const int t = 1 + i % 6;
    auto inst = probe->make(producers_key(t, pinning_for(cpus, t)), sel);
    if (i % 2) inst->run(500);
    EXPECT_GE(task_count(), tasks + static_cast<std::size_t>(t));  // the last instance's may linger
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

TEST(ProducersTest, AFailedBatchOrSetUpJoinsEveryThread) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  {
    // The consumer's read fails in the middle of a batch: producers hold claims they may
    // still be writing; the instance must still stop and join them.
    producers_driver d(producers_key(4, pinning_for(cpus, 4)), sel);
    d.deliver(100);
    sys::set_fault_hook([](std::string_view what) { return what == "read(eventfd)" ? EIO : 0; });
    EXPECT_THROW(d.deliver(100000), std::system_error);
    sys::set_fault_hook({});
  }
  // The same failure inside the set-up's untimed batch: the constructor throws after
  // starting every producer.
  sys::set_fault_hook([](std::string_view what) { return what == "epoll_wait" ? EIO : 0; });
  EXPECT_THROW(producers_driver(producers_key(3, pinning_for(cpus, 3)), sel), std::system_error);
  sys::set_fault_hook({});
  // A producer that cannot pin itself (a CPU the selection claims but the kernel refuses):
  // its error reaches the constructor, which joins the others.
  auto wrong = sel;
  wrong.cpus.push_back(1000);
  EXPECT_THROW(
      producers_driver(producers_key(2, std::to_string(cpus[0]) + "+" + std::to_string(cpus[0]) + "+1000"), wrong),
      std::system_error);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

}  // namespace
}  // namespace pollscale::calibrate
