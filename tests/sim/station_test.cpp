#include "sim/station.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/analytic.hpp"
#include "sim/core/output_analysis.hpp"

namespace pollscale::sim {
namespace {

TEST(StationTest, DeterministicQueueGivesExactTimes) {
  // Arrivals every 2 s from t=2, service 1 s: departures at 3, 5, 7, 9; the server is busy
  // [2,3], [4,5], [6,7], [8,9] and from 10 on: 4 s out of 10.
  station_config c;
  c.interarrival = distribution::constant(2);
  c.service = distribution::constant(1);
  c.run_s = 10;
  rng g(1);
  const station_result r = simulate_station(c, g);
  EXPECT_EQ(r.completed, 4U);
  EXPECT_DOUBLE_EQ(r.mean_response_s, 1);
  EXPECT_DOUBLE_EQ(r.mean_wait_s, 0);
  EXPECT_DOUBLE_EQ(r.utilisation, 0.4);
  EXPECT_DOUBLE_EQ(r.mean_in_system, 0.4);
  EXPECT_DOUBLE_EQ(r.throughput, 0.4);
}

TEST(StationTest, OverloadedDeterministicQueueBuildsUpLinearly) {
  // Arrivals at 1, 2, 3, ...; service 2 s: departures at 3, 5, 7, 9 with responses
  // 2, 3, 4, 5 (each waits one second longer than the previous).
  station_config c;
  c.interarrival = distribution::constant(1);
  c.service = distribution::constant(2);
  c.run_s = 10;
  rng g(1);
  const station_result r = simulate_station(c, g);
  EXPECT_EQ(r.completed, 4U);
  EXPECT_DOUBLE_EQ(r.mean_response_s, 3.5);
  EXPECT_DOUBLE_EQ(r.mean_wait_s, (0 + 1 + 2 + 3 + 4) / 5.0);  // five services began
  EXPECT_DOUBLE_EQ(r.utilisation, 0.9);
}

TEST(StationTest, ClosedLoopWithOneCustomerAlternates) {
  // Think 1, service 1: requests at 1, 3, 5, 7, 9; departures at 2, 4, 6, 8, 10.
  station_config c;
  c.customers = 1;
  c.think = distribution::constant(1);
  c.service = distribution::constant(1);
  c.run_s = 10;
  rng g(1);
  const station_result r = simulate_station(c, g);
  EXPECT_EQ(r.completed, 5U);
  EXPECT_DOUBLE_EQ(r.mean_response_s, 1);
  EXPECT_DOUBLE_EQ(r.utilisation, 0.5);
}

TEST(StationTest, WarmUpRestartsTheStatistics) {
  station_config c;
  c.interarrival = distribution::constant(1);
  c.service = distribution::constant(2);
  c.warmup_s = 5.5;
  c.run_s = 4;  // departures at 7 and 9 are counted (responses 4 and 5)
  rng g(1);
  const station_result r = simulate_station(c, g);
  EXPECT_EQ(r.completed, 2U);
  EXPECT_DOUBLE_EQ(r.mean_response_s, 4.5);
  EXPECT_DOUBLE_EQ(r.utilisation, 1.0);
}

TEST(StationTest, SameSeedGivesTheSameRunWithEitherScheduler) {
  station_config c;
  c.interarrival = distribution::exponential(1.0);
  c.service = distribution::exponential(0.8);
  c.servers = 1;
  c.run_s = 2000;
  rng a(9), b(9), d(9);
  const station_result x = simulate_station(c, a, scheduler_kind::binary_heap);
  const station_result y = simulate_station(c, b, scheduler_kind::binary_heap);
  const station_result z = simulate_station(c, d, scheduler_kind::calendar_queue);
  EXPECT_EQ(x.completed, y.completed);
  EXPECT_EQ(x.mean_response_s, y.mean_response_s);
  EXPECT_EQ(x.completed, z.completed);
  EXPECT_EQ(x.mean_response_s, z.mean_response_s);
  EXPECT_EQ(x.events, z.events);
}

TEST(StationTest, RejectsBadConfigurations) {
  rng g(1);
  station_config c;
  c.interarrival = distribution::exponential(1);
  c.servers = 0;
  EXPECT_THROW(simulate_station(c, g), std::invalid_argument);
  c.servers = 1;
  c.run_s = -1;
  EXPECT_THROW(simulate_station(c, g), std::invalid_argument);
  station_config closed;
  closed.customers = 0;
  EXPECT_THROW(simulate_station(closed, g), std::invalid_argument);
}

// Independent replications of `c`; the 95% interval of mean response must contain `exact`.
interval replicate_response(const station_config& c, std::uint64_t seed, int reps = 20) {
  std::vector<double> means;
  for (int i = 0; i < reps; ++i) {
    rng g(derive_seed(seed, static_cast<std::uint64_t>(i)));
    means.push_back(simulate_station(c, g).mean_response_s);
  }
  return t_interval(means);
}

station_config open_station(double lambda, distribution service, int servers) {
  station_config c;
  c.interarrival = distribution::exponential(1 / lambda);
  c.service = service;
  c.servers = servers;
  c.warmup_s = 200;
  c.run_s = 20000;
  return c;
}

TEST(StationValidationTest, MM1MeanResponseIsInsideItsInterval) {
  const interval i = replicate_response(open_station(0.7, distribution::exponential(1.0), 1), 21);
  EXPECT_TRUE(i.contains(analytic::mm1(0.7, 1.0).mean_response_s)) << i.lo << " " << i.hi;
  EXPECT_LT(i.relative_half_width(), 0.05);
}

TEST(StationValidationTest, MMcMeanResponseIsInsideItsInterval) {
  const interval i = replicate_response(open_station(2.4, distribution::exponential(1.0), 3), 22);
  EXPECT_TRUE(i.contains(analytic::mmc(2.4, 1.0, 3).mean_response_s)) << i.lo << " " << i.hi;
}

TEST(StationValidationTest, MD1MeanResponseIsInsideItsInterval) {
  const interval i = replicate_response(open_station(0.6, distribution::constant(1.0), 1), 23);
  EXPECT_TRUE(i.contains(analytic::md1(0.6, 1.0).mean_response_s)) << i.lo << " " << i.hi;
}

TEST(StationValidationTest, MG1MeanResponseIsInsideItsInterval) {
  const distribution s = distribution::erlang(3, 1.0);
  const interval i = replicate_response(open_station(0.5, s, 1), 24);
  EXPECT_TRUE(i.contains(analytic::mg1(0.5, s.mean(), s.second_moment()).mean_response_s)) << i.lo << " " << i.hi;
}

TEST(StationValidationTest, MachineRepairmanMeanResponseIsInsideItsInterval) {
  station_config c;
  c.customers = 10;
  c.think = distribution::exponential(5.0);
  c.service = distribution::exponential(0.5);
  c.servers = 1;
  c.warmup_s = 100;
  c.run_s = 2000;
  const interval i = replicate_response(c, 25);
  EXPECT_TRUE(i.contains(analytic::machine_repairman(10, 5.0, 0.5, 1).mean_response_s)) << i.lo << " " << i.hi;
}

TEST(StationValidationTest, MM1PercentilesAreInsideTheirIntervals) {
  const station_config c = open_station(0.5, distribution::exponential(1.0), 1);
  for (double q : {0.5, 0.9, 0.99}) {
    std::vector<double> values;
    for (int i = 0; i < 20; ++i) {
      rng g(derive_seed(26, static_cast<std::uint64_t>(i)));
      values.push_back(simulate_station(c, g).response.quantile(q));
    }
    const interval iv = t_interval(values);
    EXPECT_TRUE(iv.contains(analytic::mm1_response_quantile(0.5, 1.0, q))) << q;
  }
}

}  // namespace
}  // namespace pollscale::sim
