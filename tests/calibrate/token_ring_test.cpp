// token_ring: every mechanism passes tokens round small rings of pipes and eventfds, the
// kernel's state matches the bookkeeping (tokens conserved, none beyond t), a token stolen
// or slipped in fails loudly, nothing leaks, and what cannot run is skipped with a reason.
// (Timings are not asserted.)

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "calibrate/channel.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/token_ring.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/waiter.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using test::small_selection;

datasets::key ring_key(const flavour& f, fd_kind kind, std::int64_t n, std::int64_t t, int blocking = 0) {
  datasets::key k = probes::base_key(datasets::scenario::token_ring, f, kind, datasets::metric::throughput, "1/s");
  k.n_fds = n;
  k.n_active = t;
  k.blocking = blocking;
  return k;
}

/// Bytes waiting in each pipe of the ring, read from the kernel without consuming them.
std::vector<int> bytes_in_pipes(const probes::ring_driver& r) {
  std::vector<int> out;
  for (std::size_t i = 0; i < r.channels().size(); ++i) {
    int v = -1;
    EXPECT_EQ(::ioctl(r.channels().watched(i), FIONREAD, &v), 0);
    out.push_back(v);
  }
  return out;
}

bool is_rtsig_on_eventfd(const flavour& f, fd_kind kind) {
  return f.mech == mechanism::rtsig && kind == fd_kind::eventfd;
}

TEST(TokenRingTest, EveryMechanismPassesTokensAndConservesThem) {
  const auto sel = small_selection();
  const std::size_t before = sys::open_fd_count();
  for (const auto& f : all_flavours())
    for (auto [n, t] : {std::pair{1, 1}, {2, 1}, {7, 1}, {7, 3}, {40, 1}, {40, 16}, {40, 40}})
      for (int blocking : {0, 1}) {
        const auto k = ring_key(f, fd_kind::pipe, n, t, blocking);
        SCOPED_TRACE(datasets::describe(k));
        probes::ring_driver r(k, sel);
        const std::size_t done = r.advance(500);
        EXPECT_GE(done, 500u);
        EXPECT_LT(done, 500u + static_cast<std::size_t>(t));
        const auto bytes = bytes_in_pipes(r);
        int total = 0;
        for (int b : bytes) {
          EXPECT_GE(b, 0);
          EXPECT_LE(b, 1);  // tokens never catch up with each other
          total += b;
        }
        EXPECT_EQ(total, t);  // the kernel holds exactly t tokens
      }
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(TokenRingTest, EveryPointOfTheProbeRunsOnPipesAndEventfds) {
  const auto* probe = find_probe("token_ring");
  ASSERT_NE(probe, nullptr);
  auto sel = small_selection();
  sel.profile = profile_kind::full;
  sel.n_override = {1, 5, 60};
  const auto mechs = all_flavours();
  const auto points = probe->points(sel, mechs);
  ASSERT_EQ(points.size(), mechs.size() * 3 * 2);
  const std::size_t before = sys::open_fd_count();
  int skipped = 0;
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      EXPECT_GT(inst->run(200), 0u);
      datasets::key annotated = k;
      inst->annotate(annotated);
      EXPECT_TRUE(annotated.max_fd.has_value());
    } catch (const probe_skipped& e) {
      EXPECT_TRUE(is_rtsig_on_eventfd(flavour_of(k), fd_kind_of(k))) << e.what();
      EXPECT_NE(std::string(e.what()).find("fasync"), std::string::npos) << e.what();
      ++skipped;
    }
  }
  EXPECT_EQ(skipped, 3);
  probe->release();  // the ring the last group kept
  EXPECT_EQ(sys::open_fd_count(), before);
}

/// Channels of `ch` that poll(2) reports readable now: a token or a leftover.
std::size_t readable(const channel_set& ch) {
  std::vector<pollfd> fds;
  for (std::size_t i = 0; i < ch.size(); ++i) fds.push_back({ch.watched(i), POLLIN, 0});
  const int r = ::poll(fds.data(), fds.size(), 0);
  EXPECT_GE(r, 0);
  return static_cast<std::size_t>(std::max(r, 0));
}

TEST(TokenRingTest, OneRingServesEveryMechanismInTurnAndIsLeftEmpty) {
  const auto sel = small_selection();
  for (fd_kind kind : {fd_kind::pipe, fd_kind::eventfd}) {
    auto ring = std::make_shared<channel_set>(kind, 40);
    int drivers = 0;
    for (const auto& f : all_flavours()) {
      for (auto [t, blocking] : {std::pair{1, 0}, {16, 0}, {40, 0}, {3, 1}}) {
        const auto k = ring_key(f, kind, 40, t, blocking);
        SCOPED_TRACE(datasets::describe(k));
        try {
          probes::ring_driver r(k, sel, ring);
          EXPECT_EQ(&r.channels(), ring.get());
          EXPECT_GE(r.advance(300), 300u);
          EXPECT_EQ(readable(*ring), static_cast<std::size_t>(t));  // one channel per token
          ++drivers;
        } catch (const probe_skipped&) {
          EXPECT_TRUE(f.mech == mechanism::rtsig && kind == fd_kind::eventfd);  // no fasync on an eventfd
        }
        EXPECT_EQ(readable(*ring), 0u);  // every token read back, a refused driver's too
      }
    }
    // select, pselect, poll, ppoll, epoll lt/et/oneshot, io_uring oneshot/multishot and
    // rtsig (not on eventfds)
    const int rtsig = kind == fd_kind::pipe ? 1 : 0;
    EXPECT_EQ(drivers, 4 * (9 + rtsig));
  }
}

TEST(TokenRingTest, AFailedDriverLeavesTheSharedRingEmptyForTheNext) {
  const auto sel = small_selection();
  const flavour poll{mechanism::poll, ""};
  auto ring = std::make_shared<channel_set>(fd_kind::pipe, 5);
  {
    probes::ring_driver r(ring_key(poll, fd_kind::pipe, 5, 2), sel, ring);
    r.advance(20);
    const char c = 'x';
    ASSERT_EQ(::write(ring->trigger_fd(0), &c, 1), 1);  // a third token: the bookkeeping is wrong
    ASSERT_EQ(::write(ring->trigger_fd(3), &c, 1), 1);
    EXPECT_THROW(r.advance(50), probe_failure);
  }
  EXPECT_EQ(readable(*ring), 0u);
  probes::ring_driver next(ring_key({mechanism::epoll, "et"}, fd_kind::pipe, 5, 1), sel, ring);
  EXPECT_GE(next.advance(100), 100u);
}

TEST(TokenRingTest, ARingOfAnotherKindOrSizeIsRefused) {
  const auto sel = small_selection();
  const flavour poll{mechanism::poll, ""};
  auto pipes = std::make_shared<channel_set>(fd_kind::pipe, 8);
  EXPECT_THROW(probes::ring_driver(ring_key(poll, fd_kind::pipe, 9, 1), sel, pipes), std::invalid_argument);
  EXPECT_THROW(probes::ring_driver(ring_key(poll, fd_kind::eventfd, 8, 1), sel, pipes), std::invalid_argument);
  EXPECT_EQ(readable(*pipes), 0u);
}

TEST(TokenRingTest, PointsShareARingByKindAndN) {
  const auto* probe = find_probe("token_ring");
  ASSERT_NE(probe, nullptr);
  ASSERT_TRUE(probe->setup_of && probe->release);
  const auto name = [&](const flavour& f, fd_kind kind, std::int64_t n, std::int64_t t, int blocking) {
    return probe->setup_of(ring_key(f, kind, n, t, blocking));
  };
  const flavour poll{mechanism::poll, ""}, lt{mechanism::epoll, "lt"}, oneshot{mechanism::epoll, "oneshot"};
  const auto shared = name(poll, fd_kind::pipe, 1000, 1, 0);
  EXPECT_FALSE(shared.empty());
  EXPECT_EQ(name(lt, fd_kind::pipe, 1000, 16, 0), shared);
  EXPECT_EQ(name(oneshot, fd_kind::pipe, 1000, 1, 1), shared);
  EXPECT_NE(name(poll, fd_kind::pipe, 999, 1, 0), shared);
  EXPECT_NE(name(poll, fd_kind::eventfd, 1000, 1, 0), shared);
  // rtsig clears what it set on the descriptors; io_uring removes its polls.
  EXPECT_EQ(name({mechanism::rtsig, ""}, fd_kind::pipe, 1000, 1, 0), shared);
  EXPECT_EQ(name({mechanism::io_uring, "oneshot"}, fd_kind::pipe, 1000, 1, 0), shared);
}

TEST(TokenRingTest, TheProbesPointsOfOneGroupRunOnOneRingAndReleaseFreesIt) {
  const auto* probe = find_probe("token_ring");
  ASSERT_NE(probe, nullptr);
  const auto sel = small_selection();
  const std::size_t before = sys::open_fd_count();
  for (const auto& f : all_flavours()) {
    const auto k = ring_key(f, fd_kind::pipe, 30, 2);
    SCOPED_TRACE(datasets::describe(k));
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(100), 0u);
    const std::size_t own = f.mech == mechanism::epoll || f.mech == mechanism::io_uring ? 1 : 0;  // its instance
    EXPECT_EQ(sys::open_fd_count(), before + 2 * 30 + own);                                       // one ring, kept
  }
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(TokenRingTest, AStolenTokenFailsLoudly) {
  const auto sel = small_selection();
  for (const auto& f : all_flavours()) {
    SCOPED_TRACE(f.label());
    probes::ring_driver r(ring_key(f, fd_kind::pipe, 5, 1), sel);
    r.advance(20);
    const auto bytes = bytes_in_pipes(r);
    const auto holder = static_cast<std::size_t>(std::find(bytes.begin(), bytes.end(), 1) - bytes.begin());
    ASSERT_LT(holder, bytes.size());
    char c = 0;
    ASSERT_EQ(::read(r.channels().watched(holder), &c, 1), 1);
    EXPECT_THROW(r.advance(20), probe_failure);
  }
}

TEST(TokenRingTest, ASlippedInTokenFailsLoudly) {
  const auto sel = small_selection();
  for (const auto& f : all_flavours()) {
    SCOPED_TRACE(f.label());
    probes::ring_driver r(ring_key(f, fd_kind::pipe, 5, 1), sel);
    r.advance(20);
    const char c = 'x';
    ASSERT_EQ(::write(r.channels().trigger_fd(2), &c, 1), 1);
    EXPECT_THROW(r.advance(50), probe_failure);
  }
}

TEST(TokenRingTest, ScatterMovesTokensToRandomDistinctChannelsAndKeepsThemAll) {
  const auto sel = small_selection();
  for (std::string_view mech : {"select", "poll"}) {
    SCOPED_TRACE(mech);
    probes::ring_driver r(ring_key({*parse_mechanism(mech), ""}, fd_kind::pipe, 40, 5, 1), sel);
    std::mt19937_64 rng(3);
    std::set<std::vector<int>> layouts;
    for (int i = 0; i < 4; ++i) {
      r.scatter(rng);
      const auto bytes = bytes_in_pipes(r);
      EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 1), 5);
      EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0), 35);
      layouts.insert(bytes);
      EXPECT_GE(r.advance(50), 50u);
    }
    EXPECT_GT(layouts.size(), 1u);
  }
  probes::ring_driver edge(ring_key({mechanism::epoll, "et"}, fd_kind::pipe, 4, 1), sel);
  std::mt19937_64 rng(1);
  EXPECT_THROW(edge.scatter(rng), std::logic_error);
}

TEST(TokenRingTest, QuickGridCoversEveryMechanismAtTenNAndNineteenThousandEventfds) {
  const auto* probe = find_probe("token_ring");
  auto sel = small_selection();
  sel.max_fds = 19968;
  const auto mechs = all_flavours();
  std::map<std::string, std::set<std::int64_t>> pipe_n;
  std::set<std::string> big_eventfd, many_tokens;
  for (const auto& k : probe->points(sel, mechs)) {
    EXPECT_LE(*k.n_active, *k.n_fds);
    EXPECT_EQ(k.unit, "1/s");
    if (k.fd_kind == "pipe" && *k.n_active == 1 && *k.blocking == 0) pipe_n[flavour_of(k).label()].insert(*k.n_fds);
    if (k.fd_kind == "eventfd" && *k.n_fds >= 19000) big_eventfd.insert(flavour_of(k).label());
    if (*k.n_active > 1) many_tokens.insert(flavour_of(k).label());
  }
  EXPECT_EQ(pipe_n.size(), mechs.size());
  for (const auto& [label, ns] : pipe_n) {
    EXPECT_GE(ns.size(), 10u) << label;
    EXPECT_GE(*ns.rbegin(), 9000) << label;
    // two sizes or more inside the bend between 1 and 10 MiB of pipes (1000-9979)
    EXPECT_GE(std::count_if(ns.begin(), ns.end(), [](std::int64_t n) { return n > 1000 && n < 9000; }), 2) << label;
  }
  EXPECT_EQ(big_eventfd.size(), mechs.size());
  EXPECT_EQ(many_tokens.size(), mechs.size());
}

TEST(TokenRingTest, MalformedAndOversizedRingsAreRefusedOrSkipped) {
  const auto sel = small_selection();
  const flavour poll{mechanism::poll, ""};
  EXPECT_THROW(probes::ring_driver(ring_key(poll, fd_kind::pipe, 4, 5), sel), std::invalid_argument);  // t > n
  EXPECT_THROW(probes::ring_driver(ring_key(poll, fd_kind::pipe, 4, 0), sel), std::invalid_argument);
  EXPECT_THROW(probes::ring_driver(ring_key(poll, fd_kind::tcp, 4, 1), sel), std::invalid_argument);
  auto tight = sel;
  tight.max_fds = 100;
  EXPECT_THROW(probes::ring_driver(ring_key(poll, fd_kind::pipe, 60, 1), tight), probe_skipped);  // 2n > limit
}

}  // namespace
}  // namespace pollscale::calibrate
