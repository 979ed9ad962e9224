// The order of a calibration's visits: every point once per round, seeded, different in
// every round, and what shares a set-up kept together.

#include "calibrate/visit_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace pollscale::calibrate {
namespace {

struct fixture {
  probe_def plain{"plain", "", {}, {}, {}};
  // Points with one n name one set-up.
  probe_def shared{"shared", "", {}, {}, [] {}, [](const datasets::key& k) { return std::to_string(*k.n_fds); }};
  std::vector<planned_point> once;

  fixture() {
    for (int n = 1; n <= 12; ++n) once.push_back({&plain, point("plain", n, "a")});
    for (int n = 1; n <= 4; ++n)
      for (const char* metric : {"a", "b", "c"}) once.push_back({&shared, point("shared", n * 10, metric)});
  }
  static datasets::key point(const char* scenario, std::int64_t n, const char* metric) {
    datasets::key k;
    k.scenario = scenario;
    k.n_fds = n;
    k.metric = metric;
    k.unit = "ns";
    return k;
  }
};

TEST(VisitPlanTest, EachRoundIsAPermutationOfThePlan) {
  fixture f;
  for (int round = 0; round < 4; ++round) {
    auto order = round_order(f.once, 1, round);
    ASSERT_EQ(order.size(), f.once.size());
    std::sort(order.begin(), order.end());
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
  }
}

TEST(VisitPlanTest, SameSeedSameOrderOtherRoundOrSeedAnother) {
  fixture f;
  EXPECT_EQ(round_order(f.once, 7, 0), round_order(f.once, 7, 0));
  EXPECT_NE(round_order(f.once, 7, 0), round_order(f.once, 7, 1));
  EXPECT_NE(round_order(f.once, 7, 0), round_order(f.once, 8, 0));
  // Not the plan order: a slow phase must not bend a series in n order.
  std::vector<std::size_t> identity(f.once.size());
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = i;
  EXPECT_NE(round_order(f.once, 7, 0), identity);
}

TEST(VisitPlanTest, AProbesPointsStayTogetherAndSharedSetUpsByN) {
  fixture f;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto order = round_order(f.once, seed, 0);
    // One contiguous block per probe.
    std::vector<const probe_def*> blocks;
    for (auto i : order)
      if (blocks.empty() || blocks.back() != f.once[i].probe) blocks.push_back(f.once[i].probe);
    EXPECT_EQ(blocks.size(), 2u);
    // Within the probe that names set-ups, one contiguous block per set-up.
    std::vector<std::int64_t> ns;
    for (auto i : order)
      if (f.once[i].probe == &f.shared && (ns.empty() || ns.back() != *f.once[i].key.n_fds))
        ns.push_back(*f.once[i].key.n_fds);
    EXPECT_EQ(ns.size(), 4u);
    EXPECT_EQ(std::set<std::int64_t>(ns.begin(), ns.end()).size(), 4u);
  }
}

TEST(VisitPlanTest, SeededShuffleIsAFixedPermutation) {
  std::vector<std::size_t> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  seeded_shuffle(v, 99);
  std::vector<std::size_t> w = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  seeded_shuffle(w, 99);
  EXPECT_EQ(v, w);
  std::sort(w.begin(), w.end());
  EXPECT_EQ(w, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

}  // namespace
}  // namespace pollscale::calibrate
