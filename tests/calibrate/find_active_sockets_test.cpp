// find_active over sockets, the blocking cases a loopback server hits: the quick grid has
// them for select, poll and epoll at six or more n (ready at entry first and last, woken
// from the same and the other CPU), and every such point runs at small n, checks its
// answers and leaves no descriptor behind.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

bool socket_kind(const datasets::key& k) { return k.fd_kind == "tcp" || k.fd_kind == "socketpair"; }

TEST(FindActiveSocketsTest, QuickGridHasTheServersBlockingCases) {
  const auto* probe = find_probe("find_active");
  selection sel;
  sel.cpus = {0, 1};
  sel.max_fds = 20000;
  // (kind, mechanism, case) -> the n values measured
  std::map<std::string, std::set<std::int64_t>> ns;
  for (const auto& k : probe->points(sel, all_flavours())) {
    if (!socket_kind(k)) continue;
    std::string what;
    if (k.metric == "time_per_call")
      what = "timeout 0";
    else if (k.blocking == 1 && k.threads == 1)
      what = "entry " + k.active_pos;
    else if (k.blocking == 1 && k.threads == 2)
      what = "woken " + k.active_pos + " " + k.pinning;
    else
      continue;
    ns[k.fd_kind + " " + k.mechanism + " " + what].insert(*k.n_fds);
  }
  for (const char* kind : {"tcp", "socketpair"})
    for (const char* mech : {"select", "poll", "epoll"})
      for (const char* what : {"entry first", "entry last", "woken last 0+0", "woken last 0+1"}) {
        const std::string cell = std::string(kind) + " " + mech + " " + what;
        SCOPED_TRACE(cell);
        ASSERT_GE(ns[cell].size(), 6u);        // three past the cache knee, degrees of freedom left
        EXPECT_GE(*ns[cell].rbegin(), 19000);  // up to the descriptor limit
      }
  for (const char* mech : {"poll", "epoll"}) EXPECT_GE(ns[std::string("tcp ") + mech + " timeout 0"].size(), 5u);
}

TEST(FindActiveSocketsTest, EveryBlockingSocketPointRunsAtSmallN) {
  const auto* probe = find_probe("find_active");
  auto sel = test::small_selection({}, 300);  // socket points then stop at n ~ 140
  const std::size_t before = sys::open_fd_count();
  int ran = 0;
  for (const auto& k : probe->points(sel, all_flavours())) {
    if (!socket_kind(k) || k.blocking != 1) continue;
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      EXPECT_GT(inst->run(3), 0u);  // each operation checks that exactly the ready fd was reported
      ++ran;
    } catch (const probe_skipped& e) {
      EXPECT_EQ(sel.cpus.size(), 1u);  // only cross-CPU points, on a one-CPU mask
      EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
    }
  }
  // 2 kinds x 3 mechanisms x 3 n x {first, last, woken 0+0, woken 0+1}
  EXPECT_EQ(ran, sel.cpus.size() > 1 ? 72 : 54);
  probe->release();  // the last group's set-up is kept for a next point until released
  EXPECT_EQ(sys::open_fd_count(), before);
}

}  // namespace
}  // namespace pollscale::calibrate
