// The simulated capacity search (studies/capacity_search.hpp) on planted experiments whose
// p99 grows with the load in a known way: the bisection's answer, its ends, an interrupted
// search's bracket, and the recommendation among mechanisms.

#include "studies/capacity_search.hpp"

#include <gtest/gtest.h>

#include "sim/core/stop.hpp"

namespace pollscale::studies {
namespace {

// p99 = load / 1000 s, its 95% interval reaching 10% above; CPUs half busy.
sim::experiment_result planted(double load) {
  sim::experiment_result r;
  r.replications = 5;
  r.latency_p99_s = {load / 1000, load / 1000 * 0.9, load / 1000 * 1.1};
  r.cpu_utilisation = {0.5, 0.45, 0.55};
  return r;
}

TEST(CapacitySearchTest, BisectionFindsTheLargestCountWhoseIntervalMeetsTheTarget) {
  capacity_targets goal;
  goal.p99_s = 2.2;  // met while 1.1 x load / 1000 <= 2.2: load <= 2000
  int runs = 0;
  const auto r = search_capacity(
      [&](double v) {
        ++runs;
        return planted(v);
      },
      {1, 100000, true, 0.0001}, goal);
  ASSERT_TRUE(r.capacity);
  EXPECT_EQ(*r.capacity, 2000);
  EXPECT_FALSE(r.at_hi);
  EXPECT_EQ(r.evaluations.size(), static_cast<std::size_t>(runs));
  ASSERT_NE(r.first_miss(), nullptr);
  EXPECT_EQ(r.first_miss()->value, 2001);
  EXPECT_EQ(goal.missed(r.first_miss()->result), std::vector<std::string>{"max_p99_s"});
  // Latency missed with the CPUs half busy: latency, not a CPU, ran out.
  EXPECT_EQ(resource_at(goal, *r.first_miss()), resource::latency);
}

TEST(CapacitySearchTest, EndsAreNoneAndTheSearchLimit) {
  capacity_targets goal;
  goal.p99_s = 2.2;
  const auto low = search_capacity(planted, {5000, 9000, true, 0.02}, goal);
  EXPECT_FALSE(low.capacity);
  EXPECT_EQ(low.evaluations.size(), 1U);
  const auto high = search_capacity(planted, {1, 1000, true, 0.02}, goal);
  ASSERT_TRUE(high.capacity);
  EXPECT_EQ(*high.capacity, 1000);
  EXPECT_TRUE(high.at_hi);
}

TEST(CapacitySearchTest, AnInterruptedSearchKeepsItsBracket) {
  capacity_targets goal;
  goal.p99_s = 2.2;
  int runs = 0;
  const auto r = search_capacity(
      [&](double v) {
        if (++runs == 4) throw sim::stopped();
        return planted(v);
      },
      {1, 100000, true, 0.02}, goal);
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.capacity);
  ASSERT_TRUE(r.meets && r.misses);
  EXPECT_LE(*r.meets, 2000);
  EXPECT_GT(*r.misses, 2000);
}

TEST(CapacitySearchTest, ANaNLatencyNeverMeetsATarget) {
  capacity_targets goal;
  goal.p99_s = 1;
  sim::experiment_result r = planted(10);
  r.latency_p99_s.ci95_hi = std::nan("");
  EXPECT_FALSE(goal.met(r));
}

TEST(CapacitySearchTest, RecommendsTheLargestCapacityWithItsMargin) {
  const std::vector<capacity_choice> three = {{"poll", 1000, false}, {"epoll", 3000, false}, {"select", {}, false}};
  const auto r = recommend(three, 0.02);
  ASSERT_TRUE(r.best && r.next);
  EXPECT_EQ(*r.best, 1U);
  EXPECT_EQ(*r.next, 0U);
  EXPECT_DOUBLE_EQ(r.margin, 3);
  EXPECT_FALSE(r.within_tolerance);
  const std::vector<capacity_choice> close = {{"poll", 1000, false}, {"epoll", 1010, false}};
  EXPECT_TRUE(recommend(close, 0.02).within_tolerance);
  const std::vector<capacity_choice> none = {{"poll", {}, false}};
  EXPECT_FALSE(recommend(none, 0.02).best);
}

}  // namespace
}  // namespace pollscale::studies
