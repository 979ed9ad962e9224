// Readiness semantics of every mechanism and variant at small n, on every fd kind:
// exactly the triggered descriptors are reported, level-triggered ones report persisting
// data again, edge/one-shot/signal ones do not until new data (and rearm) arrive.

#include "calibrate/waiter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "calibrate/channel.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/sys/process.hpp"

namespace pollscale::calibrate {
namespace {

struct param {
  flavour f;
  fd_kind kind;
};

std::string param_name(const ::testing::TestParamInfo<param>& info) {
  std::string s = info.param.f.label() + "_" + std::string(name_of(info.param.kind));
  std::replace(s.begin(), s.end(), '/', '_');
  return s;
}

std::vector<param> all_params() {
  std::vector<param> ps;
  for (mechanism m : all_mechanisms)
    for (auto v : variants_of(m))
      for (fd_kind k : all_fd_kinds) ps.push_back({{m, std::string(v)}, k});
  return ps;
}

/// Waits with timeout 0 a few times (signal- and ring-based mechanisms may need a second
/// look) and returns every tag seen, as a set.
std::set<std::uint32_t> collect(waiter& w, int attempts = 3) {
  std::set<std::uint32_t> seen;
  std::vector<std::uint32_t> out;
  for (int i = 0; i < attempts; ++i) {
    w.wait(out, i == 0 ? 0 : 5);
    seen.insert(out.begin(), out.end());
  }
  return seen;
}

class WaiterTest : public ::testing::TestWithParam<param> {};

TEST_P(WaiterTest, ReportsExactlyTheTriggeredDescriptors) {
  const auto [f, kind] = GetParam();
  const std::size_t fds_before = sys::open_fd_count();
  {
    channel_set ch(kind, 8);
    auto w = make_waiter(f, 8);
    for (std::uint32_t i = 0; i < 8; ++i) w->add(ch.watched(i), i);
    EXPECT_TRUE(collect(*w).empty());
    ch.trigger(2);
    ch.trigger(5);
    const auto first = collect(*w);
    if (f.mech == mechanism::rtsig && kind == fd_kind::eventfd) {
      // eventfd has no fasync: the kernel never queues a signal for it.
      EXPECT_TRUE(first.empty());
      return;
    }
    EXPECT_EQ(first, (std::set<std::uint32_t>{2, 5}));
    // Data left unread: reported again only by level-triggered mechanisms.
    EXPECT_EQ(collect(*w).size(), w->level_triggered() ? 2u : 0u);
    ch.consume(2);
    ch.consume(5);
    w->rearm(ch.watched(2), 2);
    w->rearm(ch.watched(5), 5);
    EXPECT_TRUE(collect(*w).empty());
    ch.trigger(5);
    EXPECT_EQ(collect(*w), (std::set<std::uint32_t>{5}));
    ch.consume(5);
    w->rearm(ch.watched(5), 5);
    w->remove(ch.watched(5), 5);
    ch.trigger(5);
    EXPECT_TRUE(collect(*w).empty()) << "a removed descriptor was reported";
  }
  EXPECT_EQ(sys::open_fd_count(), fds_before) << "descriptors leaked";
}

TEST_P(WaiterTest, BlockingWaitReturnsWhenDataArrives) {
  const auto [f, kind] = GetParam();
  if (f.mech == mechanism::rtsig && kind == fd_kind::eventfd) GTEST_SKIP() << "no fasync on eventfd";
  channel_set ch(kind, 3);
  auto w = make_waiter(f, 3);
  for (std::uint32_t i = 0; i < 3; ++i) w->add(ch.watched(i), i);
  ch.trigger(1);
  std::vector<std::uint32_t> out;
  w->wait(out, -1);
  ASSERT_EQ(out, (std::vector<std::uint32_t>{1}));
}

INSTANTIATE_TEST_SUITE_P(AllMechanisms, WaiterTest, ::testing::ValuesIn(all_params()), param_name);

TEST(WaiterSelectTest, HandlesDescriptorsBeyondFdSetSize) {
  // glibc's fd_set stops at 1024; our select keeps its own bitmaps.
  channel_set ch(fd_kind::eventfd, 1);
  const int high = 1500;
  ASSERT_EQ(::dup2(ch.watched(0), high), high);
  for (auto m : {mechanism::select, mechanism::pselect}) {
    auto w = make_waiter({m, ""}, 1);
    w->add(high, 7);
    EXPECT_TRUE(collect(*w, 1).empty());
    ch.trigger(0);
    EXPECT_EQ(collect(*w, 1), (std::set<std::uint32_t>{7}));
    ch.consume(0);
  }
  ::close(high);
}

}  // namespace
}  // namespace pollscale::calibrate
