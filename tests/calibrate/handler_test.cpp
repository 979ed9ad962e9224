// handler: every point (tcp and socketpair, the peer on this thread or on the other CPU)
// builds, answers checked requests and leaves no descriptor or thread behind; bad keys are
// refused and a cross-CPU point is skipped with its reason where it cannot run.

#include <gtest/gtest.h>

#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using test::small_selection;

datasets::key handler_key(std::string fd_kind, int threads, std::string pinning) {
  datasets::key k;
  k.scenario = "handler";
  k.fd_kind = std::move(fd_kind);
  k.threads = threads;
  k.pinning = std::move(pinning);
  k.metric = "time_per_op";
  k.unit = "ns";
  return k;
}

TEST(HandlerTest, EveryFullPointRunsAndLeavesNothingBehind) {
  const auto* probe = find_probe("handler");
  ASSERT_NE(probe, nullptr);
  auto sel = small_selection();
  sel.profile = profile_kind::full;
  const auto points = probe->points(sel, {});
  ASSERT_EQ(points.size(), 4u);  // {tcp, socketpair} x {peer on this thread, on the other CPU}
  const std::size_t fds = sys::open_fd_count();
  int ran = 0;
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      EXPECT_GT(inst->run(200), 0u);  // 200 requests, each answer checked on both sides
      EXPECT_GT(inst->run(1), 0u);
      ++ran;
    } catch (const probe_skipped& e) {
      EXPECT_EQ(sel.cpus.size(), 1u);  // only the cross-CPU points, on a one-CPU mask
      EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(ran, sel.cpus.size() > 1 ? 4 : 2);
  EXPECT_EQ(sys::open_fd_count(), fds);
}

TEST(HandlerTest, QuickGridIsTcpWithThePeerHereAndOnTheOtherCpu) {
  const auto* probe = find_probe("handler");
  selection sel;
  sel.cpus = {0, 1};
  std::set<std::string> seen;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}})) {
    EXPECT_TRUE(k.mechanism.empty());  // no mechanism: the wait call is priced elsewhere
    EXPECT_FALSE(k.n_fds.has_value());
    EXPECT_EQ(k.metric, "time_per_op");
    EXPECT_EQ(k.unit, "ns");
    EXPECT_EQ(*k.cpus, *k.threads);
    seen.insert(k.fd_kind + " " + std::to_string(*k.threads) + " " + k.pinning);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"tcp 1 0", "tcp 2 0+1"}));
}

TEST(HandlerTest, RefusesOtherFdKindsAndThreadCounts) {
  const auto* probe = find_probe("handler");
  const auto sel = small_selection();
  EXPECT_THROW(probe->make(handler_key("pipe", 1, "0"), sel), std::invalid_argument);
  EXPECT_THROW(probe->make(handler_key("tcp", 3, "0"), sel), std::invalid_argument);
}

TEST(HandlerTest, PeerOnACpuOutsideTheMaskIsSkipped) {
  const auto* probe = find_probe("handler");
  const auto sel = small_selection();
  const int outside = *std::max_element(sel.cpus.begin(), sel.cpus.end()) + 1;
  const std::size_t fds = sys::open_fd_count();
  try {
    probe->make(handler_key("tcp", 2, std::to_string(sel.cpus[0]) + "+" + std::to_string(outside)), sel);
    FAIL() << "not skipped";
  } catch (const probe_skipped& e) {
    EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sys::open_fd_count(), fds);
}

}  // namespace
}  // namespace pollscale::calibrate
