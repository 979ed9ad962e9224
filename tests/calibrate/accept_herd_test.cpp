// accept_herd at small T: a batch accepts exactly the connections it made and leaves none
// in the listener's queue, with poll, one epoll instance and EPOLLEXCLUSIVE on one CPU and
// two; the herd itself (poll wakes every worker for every connection, EPOLLEXCLUSIVE one);
// the grid has the promised T, C, mechanisms, metrics and columns; a point that cannot run
// here is skipped; every instance joins its threads and closes its descriptors, also when a
// thread fails. No timing assertions.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "calibrate/probes/accept_herd.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "datasets/pinning.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using probes::accept_herd_driver;
using test::placements;
using test::round_robin_pinning;
using test::task_count;
using test::task_count_settled;

datasets::key herd_key(int t, const std::string& pinning, const std::string& mechanism, const std::string& variant,
                       const std::string& metric = "throughput") {
  datasets::key k;
  k.scenario = "accept_herd";
  k.mechanism = mechanism;
  k.variant = variant;
  k.fd_kind = "tcp";
  k.n_fds = t;
  k.n_active = 1;
  k.blocking = 1;
  k.threads = t;
  k.pinning = pinning;
  k.cpus = static_cast<std::int64_t>(datasets::pinning::parse(pinning).distinct_cpus());
  k.metric = metric;
  k.unit = metric == "wakeups" ? "1" : "1/s";
  return k;
}

const std::vector<std::pair<std::string, std::string>> waits = {{"poll", ""}, {"epoll", "lt"}, {"epoll", "exclusive"}};

TEST(AcceptHerdTest, BatchesAcceptExactlyTheirConnectionsAndLeaveNoneQueued) {
  const auto sel = test::small_selection();
  for (const auto& [mechanism, variant] : waits)
    for (const auto& cpus : placements())
      for (int t : {1, 2, 3}) {
        const auto k = herd_key(t, round_robin_pinning(cpus, t), mechanism, variant);
        SCOPED_TRACE(datasets::describe(k) + " " + k.pinning);
        accept_herd_driver d(k, sel);
        ASSERT_EQ(d.threads(), static_cast<std::size_t>(t));
        EXPECT_EQ(d.accepted(), static_cast<std::uint64_t>(t));  // the set-up's untimed connections
        for (std::size_t connections : std::initializer_list<std::size_t>{1, 7, 200}) {
          const std::uint64_t before = d.accepted();
          EXPECT_GT(d.connect(connections), 0u);
          EXPECT_EQ(d.accepted(), before + connections);
          d.quiesce();  // a probe_failure if a connection were left in the queue
          EXPECT_EQ(d.accepted(), before + connections);
        }
        EXPECT_GT(d.max_watched_fd(), 2);
      }
}

// The herd is the kernel's semantics, not a timing: a poll entry on the listener is not
// exclusive, so every worker asleep in poll is woken by each connection, and four workers
// on one CPU are asleep whenever the client connects (they have nothing else to run);
// EPOLLEXCLUSIVE wakes one instance's worker. Bounds with room: four per connection is
// what poll measures here, one what EPOLLEXCLUSIVE does.
TEST(AcceptHerdTest, PollWakesTheHerdAndEpollExclusiveOneWorker) {
  const auto sel = test::small_selection();
  const auto* probe = find_probe("accept_herd");
  ASSERT_NE(probe, nullptr);
  const std::string cpu = std::to_string(placements().front().front());
  const auto woken = [&](const std::string& mechanism, const std::string& variant) {
    auto inst = probe->make(herd_key(4, round_robin_pinning({std::stoi(cpu)}, 4), mechanism, variant, "wakeups"), sel);
    EXPECT_TRUE(inst->counts());
    EXPECT_EQ(inst->min_batch(), 128u);
    double most = 0;
    for (int batch = 0; batch < 3; ++batch) most = std::max(most, static_cast<double>(inst->run(128)) / 128);
    return most;
  };
  EXPECT_GE(woken("poll", ""), 2.0);
  EXPECT_LE(woken("epoll", "exclusive"), 1.5);
  EXPECT_FALSE(probe->make(herd_key(2, cpu + "+" + cpu, "poll", ""), sel)->counts());  // throughput is timed
}

TEST(AcceptHerdTest, QuickGridIsPollAndExclusiveFullAddsOneSharedInstance) {
  const auto* probe = find_probe("accept_herd");
  ASSERT_NE(probe, nullptr);
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1};
  std::map<std::string, std::map<std::int64_t, std::set<std::int64_t>>> t_by_c;  // by flavour and metric
  for (const auto& k : probe->points(sel, all_flavours())) {
    EXPECT_EQ(k.scenario, "accept_herd");
    EXPECT_EQ(k.fd_kind, "tcp");
    EXPECT_EQ(k.unit, k.metric == "throughput" ? "1/s" : "1");
    EXPECT_EQ(k.blocking, 1);
    EXPECT_EQ(k.n_active, 1);
    EXPECT_EQ(k.threads, k.n_fds);
    EXPECT_EQ(k.pinning, round_robin_pinning(*k.cpus == 1 ? std::vector<int>{0} : std::vector<int>{0, 1},
                                             static_cast<int>(*k.n_fds)));
    t_by_c[k.mechanism + "/" + k.variant + " " + k.metric][*k.cpus].insert(*k.n_fds);
  }
  const std::map<std::int64_t, std::set<std::int64_t>> series{{1, {1, 2, 3, 4}}, {2, {2, 3, 4}}};
  EXPECT_EQ(t_by_c, (std::map<std::string, std::map<std::int64_t, std::set<std::int64_t>>>{
                        {"poll/ throughput", series},
                        {"poll/ wakeups", series},
                        {"epoll/exclusive throughput", series},
                        {"epoll/exclusive wakeups", series}}));
  sel.profile = profile_kind::full;
  std::map<std::string, std::size_t> per_flavour;
  for (const auto& k : probe->points(sel, all_flavours())) ++per_flavour[k.mechanism + "/" + k.variant];
  EXPECT_EQ(per_flavour,
            (std::map<std::string, std::size_t>{{"poll/", 22}, {"epoll/lt", 22}, {"epoll/exclusive", 22}}));
  // Only the waits --mechanisms selects: poll alone, or epoll/lt's two; --n replaces the T.
  std::set<std::string> flavours;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}}))
    flavours.insert(k.mechanism + "/" + k.variant);
  EXPECT_EQ(flavours, (std::set<std::string>{"poll/"}));
  EXPECT_TRUE(probe->points(sel, std::vector<flavour>{{mechanism::epoll, "et"}, {mechanism::select, ""}}).empty());
  sel.n_override = {0, 5, 300, 10};
  std::set<std::int64_t> ts;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}})) ts.insert(*k.n_fds);
  EXPECT_EQ(ts, (std::set<std::int64_t>{5, 10}));
}

TEST(AcceptHerdTest, OneCpuListsTheTwoCpuPointsAndSkipsThem) {
  const auto* probe = find_probe("accept_herd");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(test::skipped_outside_one_cpu(*probe, test::small_selection()), 12);  // 3 T, 2 waits, 2 metrics
}

TEST(AcceptHerdTest, MalformedPointsAreRefusedBeforeAnyThreadStarts) {
  const auto sel = test::small_selection();
  const std::string c = std::to_string(sel.cpus.front());
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  EXPECT_THROW(accept_herd_driver(herd_key(3, c + "+" + c, "poll", ""), sel), std::invalid_argument);  // 2 CPUs for 3
  EXPECT_THROW(accept_herd_driver(herd_key(0, c, "poll", ""), sel), std::invalid_argument);
  EXPECT_THROW(accept_herd_driver(herd_key(2, c + "+" + c, "epoll", "et"), sel), std::invalid_argument);
  EXPECT_THROW(accept_herd_driver(herd_key(2, c + "+" + c, "poll", "lt"), sel), std::invalid_argument);
  EXPECT_THROW(accept_herd_driver(herd_key(2, c + "+" + c, "select", ""), sel), std::invalid_argument);
  EXPECT_THROW(accept_herd_driver(herd_key(1000, round_robin_pinning({sel.cpus.front()}, 1000), "poll", ""), sel),
               probe_skipped);
  const auto* probe = find_probe("accept_herd");
  auto k = herd_key(2, c + "+" + c, "poll", "");
  k.metric = "round_trip";
  k.unit = "ns";
  EXPECT_THROW(probe->make(k, sel), std::invalid_argument);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

TEST(AcceptHerdTest, AFailedThreadJoinsEveryOneAndInstancesLeaveNothingBehind) {
  const auto sel = test::small_selection();
  const auto cpus = placements().back();
  const std::size_t fds = sys::open_fd_count(), tasks = task_count();
  // A worker that cannot pin itself (a CPU the selection claims but the kernel refuses):
  // its error reaches the constructor, which joins the others.
  auto wrong = sel;
  wrong.cpus.push_back(1000);
  EXPECT_THROW(
      accept_herd_driver(
          herd_key(3, std::to_string(cpus[0]) + "+" + std::to_string(cpus[0]) + "+1000", "epoll", "exclusive"), wrong),
      std::system_error);
  const auto* probe = find_probe("accept_herd");
  for (int i = 0; i < 12; ++i) {
    const auto places = placements();
    const auto place = places[static_cast<std::size_t>(i) % places.size()];
    const int t = 1 + i % 3;
    const auto& [mechanism, variant] = waits[static_cast<std::size_t>(i) % waits.size()];
    auto inst = probe->make(
        herd_key(t, round_robin_pinning(place, t), mechanism, variant, i % 2 ? "wakeups" : "throughput"), sel);
    if (i % 3 == 0) {
      const std::uint64_t r = inst->run(50);
      if (inst->counts()) {
        EXPECT_LE(r, 50u * 8);  // wake-ups: a handful per connection at most
      } else {
        EXPECT_GT(r, 0u);  // nanoseconds
      }
    }
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(task_count_settled(tasks), tasks);
}

}  // namespace
}  // namespace pollscale::calibrate
