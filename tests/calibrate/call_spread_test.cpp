// call_spread: the points a profile lists, each instance timing one operation per sample
// (a wait call with the right answer, a checked request and reply), the runner taking the
// visit's count of them, and nothing left behind.

#include <gtest/gtest.h>

#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/runner.hpp"
#include "calibrate/sys/process.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using test::small_selection;

std::vector<flavour> poll_and_epoll() { return {{mechanism::poll, ""}, {mechanism::epoll, "lt"}}; }

TEST(CallSpreadProbeTest, ListsPollAtSeveralLengthsEpollTheHandlerAndWakeUps) {
  const auto* probe = find_probe("call_spread");
  ASSERT_NE(probe, nullptr);
  auto sel = small_selection({}, 19000);
  const auto mechs = poll_and_epoll();
  const auto quick = probe->points(sel, mechs);
  std::set<std::int64_t> poll_n;
  int epoll = 0, handler = 0;
  std::set<std::int64_t> wake_cpus;
  for (const auto& k : quick) {
    EXPECT_EQ(k.scenario, "call_spread");
    if (k.mechanism == "poll") poll_n.insert(*k.n_fds);
    if (k.mechanism == "epoll" && k.metric == "time_per_call") ++epoll;
    if (k.metric == "time_per_op") ++handler;
    if (k.metric == "round_trip") {
      EXPECT_EQ(k.mechanism, "epoll");
      EXPECT_EQ(k.n_fds, 1);
      wake_cpus.insert(*k.cpus);
    }
  }
  EXPECT_EQ(poll_n, (std::set<std::int64_t>{16, 256, 4096}));
  EXPECT_EQ(epoll, 1);
  EXPECT_EQ(handler, 1);
  EXPECT_EQ(wake_cpus, (std::set<std::int64_t>{1, 2}));  // waker and sleeper on one CPU, and on two
  sel.profile = profile_kind::full;
  EXPECT_EQ(probe->points(sel, mechs).size(), quick.size() + 1);  // and poll at 16384
  // --mechanisms without poll or epoll: the handler and the wake-ups (machine facts).
  const std::vector<flavour> select_only = {{mechanism::select, ""}};
  EXPECT_EQ(probe->points(sel, select_only).size(), 3u);
}

TEST(CallSpreadProbeTest, EachSampleIsOneCheckedOperation) {
  const auto* probe = find_probe("call_spread");
  ASSERT_NE(probe, nullptr);
  const auto sel = small_selection({8, 64});
  const std::size_t fds = sys::open_fd_count();
  runner_options o;
  o.warmup_s = 0;
  for (const auto& k : probe->points(sel, poll_and_epoll())) {
    SCOPED_TRACE(datasets::describe(k));
    if (k.cpus.value_or(1) > 1 && sel.cpus.size() < 2) continue;  // the cross-CPU wake-up needs two CPUs
    auto inst = probe->make(k, sel);
    EXPECT_EQ(inst->single_op_samples(), 1000u);
    EXPECT_GT(inst->run(1), 0u);
    inst.reset();
    const auto r = runner(o).measure(*probe, k, sel);
    ASSERT_TRUE(r.skipped.empty()) << r.skipped;
    EXPECT_EQ(r.values.size(), 1000u);
    for (auto b : r.batches) EXPECT_EQ(b, 1u);
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
  // A metric the probe does not time is refused, not measured as something else.
  auto k = probe->points(sel, poll_and_epoll()).front();
  k.metric = "round_trip";
  EXPECT_THROW(probe->make(k, sel), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::calibrate
