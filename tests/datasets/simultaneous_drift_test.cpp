#include "datasets/simultaneous_drift.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace pollscale::datasets {
namespace {

// A run in which the machine spends 20-s segments in speed modes of log spread `machine_sd`,
// and every visit of every point adds a movement of its own of log spread `own_sd`: the share
// the machine moves is machine_sd² / (machine_sd² + own_sd²). 400 points of `visits` visits at
// random moments of a 3000-s run, 5 samples per visit around the visit's level.
// `loud`: every other point moves ten times as far, both parts (a scan past the caches feels a
// slow mode more than a cached call does), so points' spreads differ tenfold.
std::vector<sample_row> drifting_run(double machine_sd, double own_sd, int visits, std::uint64_t seed,
                                     bool rate = false, bool loud = false) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> when(0, 3000);
  std::vector<double> mode(150);
  for (double& m : mode) m = machine_sd * normal(g);
  std::vector<sample_row> rows;
  for (int p = 0; p < 400; ++p) {
    key k;
    k.scenario = "find_active";
    k.mechanism = "poll";
    k.n_fds = 10 + p;
    k.metric = rate ? "throughput" : "time_per_call";
    k.unit = rate ? "1/s" : "ns";
    const double level = std::log(1000.0 + 10 * p);
    for (int v = 0; v < visits; ++v) {
      const double t = when(g);
      const double scale = loud && p % 2 == 1 ? 10.0 : 1.0;
      const double log_cost = level + scale * (mode[static_cast<std::size_t>(t / 20)] + own_sd * normal(g));
      for (int rep = 0; rep < 5; ++rep) {
        sample_row s;
        s.k = k;
        s.rep = rep;
        s.visit = v;
        s.t_s = t;
        const double cost = std::exp(log_cost) * (1 + 0.001 * rep);  // batches agree within a visit
        s.value = rate ? 1e9 / cost : cost;
        rows.push_back(s);
      }
    }
  }
  return rows;
}

TEST(SimultaneousDriftTest, RecoversThePlantedShareOfAMachineThatMovesEveryPoint) {
  // Share 0.5 (equal spreads), 0.8 and 0.2, averaged over four runs; a few pairs straddle a
  // mode's edge, which loses a little of the share; 150 modes per run limit the precision.
  struct planted {
    double machine_sd, own_sd, share;
  };
  for (const planted p : {planted{0.2, 0.2, 0.5}, planted{0.2, 0.1, 0.8}, planted{0.1, 0.2, 0.2}})
    for (const int visits : {2, 3, 5}) {
      double sum = 0;
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto d = estimate_simultaneous_drift(drifting_run(p.machine_sd, p.own_sd, visits, seed));
        ASSERT_TRUE(d.has_value());
        EXPECT_GT(d->pairs, 150u);
        EXPECT_EQ(d->points, 400u);
        sum += d->raw_correlation;
      }
      // The centre includes the visit: a deviation keeps 1 - 1/V of the shared movement.
      const double expected = p.share * (1 - 1.0 / visits);
      EXPECT_NEAR(sum / 4, expected, 0.08) << "share " << p.share << ", " << visits << " visits";
    }
}

TEST(SimultaneousDriftTest, PointsOfTenfoldDifferentSpreadsCountAlike) {
  double quiet = 0, loud = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    quiet += estimate_simultaneous_drift(drifting_run(0.05, 0.05, 3, seed))->raw_correlation;
    loud += estimate_simultaneous_drift(drifting_run(0.05, 0.05, 3, seed, false, true))->raw_correlation;
  }
  EXPECT_NEAR(loud / 4, quiet / 4, 0.05);
  EXPECT_NEAR(loud / 4, 0.5 * (1 - 1.0 / 3), 0.08);
}

TEST(SimultaneousDriftTest, PointsThatMoveAloneShareNothing) {
  double sum = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto d = estimate_simultaneous_drift(drifting_run(0, 0.2, 3, seed));
    ASSERT_TRUE(d.has_value());
    EXPECT_GE(d->correlation, 0.0);
    sum += d->raw_correlation;
  }
  EXPECT_NEAR(sum / 4, 0.0, 0.06);
}

TEST(SimultaneousDriftTest, ARateMovesOppositeToItsCostAndCountsTheSame) {
  // The same machine measured as rates: a slow moment lowers a rate, so after the sign
  // flip the share is the same as for times.
  const auto times = estimate_simultaneous_drift(drifting_run(0.2, 0.1, 3, 9));
  const auto rates = estimate_simultaneous_drift(drifting_run(0.2, 0.1, 3, 9, true));
  ASSERT_TRUE(times && rates);
  EXPECT_NEAR(rates->raw_correlation, times->raw_correlation, 1e-9);
  EXPECT_GT(rates->correlation, 0.4);
}

TEST(SimultaneousDriftTest, TooFewVisitsOrNoTimesGiveNoEstimate) {
  // One visit per point: no deviation from a centre.
  EXPECT_FALSE(estimate_simultaneous_drift(drifting_run(0.2, 0.2, 1, 1)).has_value());
  auto rows = drifting_run(0.2, 0.2, 3, 1);
  for (auto& r : rows) r.t_s.reset();  // a dataset written before visits had times
  EXPECT_FALSE(estimate_simultaneous_drift(rows).has_value());
  EXPECT_FALSE(estimate_simultaneous_drift({}).has_value());
  // Zero values (a rate that measured nothing) are skipped, not a log of 0.
  rows = drifting_run(0.2, 0.2, 3, 1);
  for (std::size_t i = 0; i < rows.size(); i += 7) rows[i].value = 0;
  const auto d = estimate_simultaneous_drift(rows);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(std::isfinite(d->raw_correlation));
}

TEST(SimultaneousDriftTest, OnlyVisitsCloseInTimeArePaired) {
  // With a window far shorter than the gaps between visits, nothing pairs.
  auto rows = drifting_run(0.2, 0.2, 3, 1);
  EXPECT_FALSE(estimate_simultaneous_drift(rows, 1e-9).has_value());
  const auto near = estimate_simultaneous_drift(rows, 1.0);
  ASSERT_TRUE(near.has_value());
  EXPECT_EQ(near->window_s, 1.0);
  EXPECT_GT(near->correlation, 0.2);
}

}  // namespace
}  // namespace pollscale::datasets
