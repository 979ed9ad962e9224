// The order of a calibration's visits: every point once per round, seeded, different in
// every round, and what shares a set-up kept together.

#include "calibrate/visit_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

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

TEST(VisitPlanTest, AProbesVisitsInConsecutiveRoundsAreNeverBackToBack) {
  // Twelve probes of one point each: between a probe's visit in round r and in round r + 1
  // lie at least a third of the round's other probes, for every probe, round and seed.
  std::vector<std::string> names;
  for (int p = 0; p < 12; ++p) names.push_back("p" + std::to_string(p));
  std::vector<probe_def> defs;
  for (const auto& name : names) defs.push_back({name, "", {}, {}, {}});
  std::vector<planned_point> once;
  for (std::size_t p = 0; p < defs.size(); ++p) once.push_back({&defs[p], fixture::point(names[p].c_str(), 1, "a")});
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<std::size_t> timeline;  // plan indices, rounds 0..3 one after another
    for (int round = 0; round < 4; ++round) {
      const auto order = round_order(once, seed, round);
      timeline.insert(timeline.end(), order.begin(), order.end());
    }
    for (std::size_t p = 0; p < once.size(); ++p) {
      std::vector<std::size_t> at;
      for (std::size_t i = 0; i < timeline.size(); ++i)
        if (timeline[i] == p) at.push_back(i);
      ASSERT_EQ(at.size(), 4u);
      for (std::size_t v = 1; v < at.size(); ++v)
        EXPECT_GE(at[v] - at[v - 1] - 1, once.size() / 3) << "seed " << seed << ", probe " << p;
    }
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
