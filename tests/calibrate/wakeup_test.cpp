// wakeup at small n: every point builds, passes tokens between its two threads, checks
// each answer and leaves no descriptor or thread behind — also when the main thread's
// call fails while the partner is blocked. No timing assertions.

#include <gtest/gtest.h>

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

selection two_sizes() { return test::small_selection({1, 6}); }

datasets::key wakeup_key(std::string mech, std::string variant, fd_kind kind, const std::string& pin) {
  datasets::key k;
  k.scenario = "wakeup";
  k.mechanism = std::move(mech);
  k.variant = std::move(variant);
  k.fd_kind = std::string(name_of(kind));
  k.n_fds = 1;
  k.n_active = 1;
  k.blocking = 1;
  k.threads = 2;
  k.pinning = pin;
  k.metric = "round_trip";
  k.unit = "ns";
  return k;
}

std::string same_cpu_pin() {
  const int c = sys::allowed_cpus().front();
  return std::to_string(c) + "+" + std::to_string(c);
}

TEST(WakeupTest, EveryFullPointRunsAndChecksItsAnswers) {
  const auto* probe = find_probe("wakeup");
  ASSERT_NE(probe, nullptr);
  auto sel = two_sizes();
  sel.profile = profile_kind::full;
  const auto points = probe->points(sel, all_flavours());
  // read, poll, epoll x3, rtsig, io_uring x2 = 8 flavours x 2 kinds x 2 placements, + n = 6.
  ASSERT_EQ(points.size(), 8u * 2 * 2 + 2 * 2);
  const std::size_t before = sys::open_fd_count();
  int ran = 0;
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      EXPECT_GT(inst->run(20), 0u);
      ++ran;
    } catch (const probe_skipped& e) {
      const std::string why = e.what();
      const bool rtsig_eventfd = k.mechanism == "rtsig" && k.fd_kind == "eventfd";
      EXPECT_TRUE(rtsig_eventfd ? why.find("fasync") != std::string::npos : why.find("CPU") != std::string::npos)
          << why;
    }
  }
  EXPECT_GE(ran, sel.cpus.size() > 1 ? 34 : 17);
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(WakeupTest, QuickGridCoversEveryMechanismBothPlacementsAndSixN) {
  const auto* probe = find_probe("wakeup");
  selection sel;
  sel.max_fds = 19968;
  sel.cpus = {0, 1};
  std::set<std::string> base;
  std::map<std::string, std::set<std::int64_t>> same_cpu_n;
  for (const auto& k : probe->points(sel, all_flavours())) {
    EXPECT_EQ(k.metric, "round_trip");
    EXPECT_EQ(k.threads, 2);
    EXPECT_EQ(*k.cpus, k.pinning == "0+0" ? 1 : 2);
    if (*k.n_fds == 1) base.insert(k.mechanism + "/" + k.variant + " " + k.fd_kind + " " + k.pinning);
    if (k.pinning == "0+0" && k.fd_kind == "pipe") same_cpu_n[k.mechanism].insert(*k.n_fds);
  }
  EXPECT_EQ(base.size(), 5u * 2 * 2);
  for (std::string m : {"/", "poll/", "epoll/lt", "rtsig/", "io_uring/oneshot"})
    for (std::string kind : {"pipe", "eventfd"})
      for (std::string pin : {"0+0", "0+1"}) EXPECT_TRUE(base.count(m + " " + kind + " " + pin)) << m << kind << pin;
  EXPECT_GE(same_cpu_n["poll"].size(), 6u);
  EXPECT_GE(same_cpu_n["epoll"].size(), 6u);
  EXPECT_GE(*same_cpu_n["poll"].rbegin(), 19000);
}

TEST(WakeupTest, BlockingReadIsPlannedWhateverMechanismsAreSelected) {
  const auto* probe = find_probe("wakeup");
  const auto sel = two_sizes();
  std::set<std::string> mechs;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::epoll, "et"}}))
    mechs.insert(k.mechanism + "/" + k.variant);
  EXPECT_EQ(mechs, (std::set<std::string>{"/", "epoll/et"}));
}

TEST(WakeupTest, AFailedWriteFailsTheRunAndTheBlockedPartnerIsJoined) {
  const auto* probe = find_probe("wakeup");
  const auto sel = two_sizes();
  const std::size_t before = sys::open_fd_count();
  for (std::string mech : {"", "poll", "rtsig"}) {
    SCOPED_TRACE(mech);
    auto inst = probe->make(wakeup_key(mech, "", fd_kind::pipe, same_cpu_pin()), sel);
    inst->run(3);
    sys::set_fault_hook([](std::string_view what) { return what == "write(token)" ? EPIPE : 0; });
    EXPECT_THROW(inst->run(3), std::system_error);
    sys::set_fault_hook({});
    inst.reset();  // must not hang: the partner is blocked in its wait
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(WakeupTest, PartnerOutsideTheAffinityMaskIsSkipped) {
  const auto* probe = find_probe("wakeup");
  const auto sel = two_sizes();
  const int c = sel.cpus.front();
  try {
    probe->make(wakeup_key("epoll", "lt", fd_kind::eventfd, std::to_string(c) + "+4000"), sel);
    FAIL() << "not skipped";
  } catch (const probe_skipped& e) {
    EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
  }
}

TEST(WakeupTest, PointsBeyondTheDescriptorLimitAreSkipped) {
  const auto* probe = find_probe("wakeup");
  auto sel = two_sizes();
  sel.max_fds = 50;
  auto k = wakeup_key("poll", "", fd_kind::pipe, same_cpu_pin());
  k.n_fds = 100;
  EXPECT_THROW(probe->make(k, sel), probe_skipped);
}

}  // namespace
}  // namespace pollscale::calibrate
