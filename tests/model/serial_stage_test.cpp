// The serial stage (model/serial_stage.hpp): its mean-value analysis against the closed
// forms it must reduce to, its hold time recovered from planted series, and what its
// predictions' intervals hold.

#include "model/serial_stage.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {
namespace {

// The machine repairman (M/M/1//T): T threads thinking p, one server of mean s.
double repairman(double p, double s, int threads) {
  double sum = 0, term = 1;  // term_k = T!/(T−k)! (s/p)^k
  for (int k = 0; k <= threads; ++k) {
    sum += term;
    term *= static_cast<double>(threads - k) * s / p;
  }
  return (1 - 1 / sum) / s;
}

TEST(SerialStageTest, OneThreadPaysItsWholeDemandOnAnyWidth) {
  for (std::int64_t c : {1, 2, 16}) EXPECT_NEAR(serial_stage_throughput(3e-6, 1e-6, 1, c), 1 / 4e-6, 1e-3);
}

TEST(SerialStageTest, ThreadsWithACpuEachAreTheMachineRepairman) {
  for (int t : {2, 3, 8, 16})
    for (double s : {1e-7, 1e-6, 4e-6})
      EXPECT_NEAR(serial_stage_throughput(3e-6, s, t, 16) / repairman(3e-6, s, t), 1, 1e-9) << t << " " << s;
}

TEST(SerialStageTest, WithoutAHoldTheCpusAreTheOnlyLimit) {
  for (std::int64_t t : {1, 2, 4, 9, 30})
    for (std::int64_t c : {1, 2, 4, 8})
      EXPECT_NEAR(serial_stage_throughput(2e-6, 0, t, c) * 2e-6 / static_cast<double>(std::min(t, c)), 1, 1e-6)
          << "T = " << t << ", C = " << c;
}

TEST(SerialStageTest, ManyThreadsMeetTheHoldOrTheCpusAndMoreNeverHurt) {
  // 1/s = 1 M/s binds on 16 CPUs; C/(p + s) = 0.4 M/s on two.
  EXPECT_NEAR(serial_stage_throughput(4e-6, 1e-6, 200, 16) / 1e6, 1, 0.01);
  EXPECT_NEAR(serial_stage_throughput(4e-6, 1e-6, 200, 2) / 4e5, 1, 1e-9);
  for (std::int64_t c : {1, 2, 4, 16}) {
    double before = 0;
    for (std::int64_t t = 1; t <= 64; ++t) {
      const double x = serial_stage_throughput(4e-6, 1e-6, t, c);
      EXPECT_GE(x, before * (1 - 1e-12)) << "T = " << t << ", C = " << c;
      before = x;
    }
  }
  for (std::int64_t t : {2, 8, 32})
    EXPECT_GE(serial_stage_throughput(4e-6, 1e-6, t, 8), serial_stage_throughput(4e-6, 1e-6, t, 4));
}

TEST(SerialStageTest, RefusesWhatIsNotADemandOrACount) {
  EXPECT_THROW(serial_stage_throughput(0, 0, 1, 1), std::invalid_argument);
  EXPECT_THROW(serial_stage_throughput(-1e-6, 1e-6, 1, 1), std::invalid_argument);
  EXPECT_THROW(serial_stage_throughput(std::nan(""), 1e-6, 1, 1), std::invalid_argument);
  EXPECT_THROW(serial_stage_throughput(1e-6, 1e-6, 0, 1), std::invalid_argument);
  EXPECT_THROW(serial_stage_throughput(1e-6, 1e-6, 1, 0), std::invalid_argument);
  const std::vector<serial_stage_point> one = {{2, 1e-6, 1e6}};
  EXPECT_THROW(fit_serial_stage(one, 1), std::invalid_argument);  // one CPU shows no hand-off
  EXPECT_THROW(fit_serial_stage({}, 2), std::invalid_argument);
  const std::vector<serial_stage_point> bad = {{2, 1e-6, -1}};
  EXPECT_THROW(fit_serial_stage(bad, 2), std::invalid_argument);
  const std::vector<serial_stage_point> zero_threads = {{0, 1e-6, 1e6}};
  EXPECT_THROW(fit_serial_stage(zero_threads, 2), std::invalid_argument);
}

// A series on two CPUs whose operations cost 1 µs on one CPU (less with more threads, as
// batching does) and hold the structure 0.6 µs once handed between CPUs.
std::vector<serial_stage_point> planted_two_cpu_series(double hold, double noise, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, noise);
  std::vector<serial_stage_point> out;
  for (double t : {1, 2, 3, 4, 6, 8}) {
    const double demand = 1e-6 / (1 + 0.05 * (t - 1));
    const double x = serial_stage_throughput(std::max(demand - hold, 0.0), hold, static_cast<std::int64_t>(t), 2);
    out.push_back({t, demand, x * std::exp(noise > 0 ? z(g) : 0)});
  }
  return out;
}

TEST(SerialStageTest, APlantedHoldIsRecovered) {
  const auto exact = fit_serial_stage(planted_two_cpu_series(0.6e-6, 0, 1), 2);
  EXPECT_NEAR(exact.hold / 0.6e-6, 1, 1e-4);
  EXPECT_EQ(exact.cpus, 2);
  EXPECT_EQ(exact.df, 5);
  EXPECT_NEAR(exact.residual_sd, 0, 1e-4);
  // A hold longer than everything one CPU does: two CPUs pass fewer than one.
  EXPECT_NEAR(fit_serial_stage(planted_two_cpu_series(1.5e-6, 0, 1), 2).hold / 1.5e-6, 1, 1e-4);
  // With 5% scatter, the hold within its own interval in most of 200 series.
  int inside = 0;
  for (unsigned seed = 0; seed < 200; ++seed) {
    const auto f = fit_serial_stage(planted_two_cpu_series(0.6e-6, 0.05, seed), 2);
    ASSERT_TRUE(std::isfinite(f.hold_sd));
    if (std::abs(f.hold - 0.6e-6) <= 2.57 * f.hold_sd) ++inside;
  }
  EXPECT_GE(inside, 180);
}

// Two CPUs that pass more than twice what one CPU's demand allows (batching: an event
// costs less when more wait) show no hand-off at all: the best hold is 0 and any small hold
// fits about as well, so the fit says "not identified" rather than "0 ± 0.6 s", and a
// prediction through it carries no interval.
TEST(SerialStageTest, ASeriesTheStageNeverBindsLeavesTheHoldNotIdentified) {
  auto points = planted_two_cpu_series(0, 0, 1);
  for (auto& q : points) q.throughput *= 1.15;
  const auto f = fit_serial_stage(points, 2);
  EXPECT_EQ(f.hold, 0);
  EXPECT_EQ(f.df, 5);
  EXPECT_FALSE(identified(f));
  EXPECT_TRUE(std::isnan(f.hold_sd));
  const auto p = predict_serial_stage(f, 1e-6, 8, 8);
  EXPECT_FALSE(p.has_interval);
  EXPECT_NE(p.no_interval.find("do not identify the hold"), std::string::npos) << p.no_interval;
  EXPECT_TRUE(identified(fit_serial_stage(planted_two_cpu_series(0.6e-6, 0.05, 3), 2)));
}

TEST(SerialStageTest, APredictionCarriesTheHoldAndWidensDownwardsWithTheCrossingShare) {
  const auto f = fit_serial_stage(planted_two_cpu_series(0.6e-6, 0.03, 7), 2);
  const double demand = 1e-6 / (1 + 0.05 * 15);
  const auto two = predict_serial_stage(f, demand, 16, 2);
  const auto sixteen = predict_serial_stage(f, demand, 16, 16);
  ASSERT_TRUE(sixteen.has_interval);
  // Sixteen threads on sixteen CPUs, hold 0.6 µs: the stage binds near 1/s either way.
  EXPECT_NEAR(sixteen.value * f.hold, 1, 0.05);
  EXPECT_LE(sixteen.lo, sixteen.value);
  EXPECT_GE(sixteen.hi, sixteen.value);
  // Were all of the hold the hand-off, it would grow by (15/16)/(1/2): the lower end sees it.
  EXPECT_LT(sixteen.lo, sixteen.value / 1.8);
  // On the fitted width the crossing share does not grow: only the scatter widens it.
  EXPECT_GT(two.lo / two.value, sixteen.lo / sixteen.value);
  EXPECT_NEAR(std::log(two.hi / two.value), -std::log(two.lo / two.value), 1e-6);
  EXPECT_NEAR(sixteen.extrapolation, 2, 1e-12);  // T = 16 past the fitted T <= 8
  EXPECT_THROW(predict_serial_stage(f, demand, 16, 1), std::invalid_argument);
  // Narrower than the width it was fitted on, fewer hand-offs cross CPUs: the hold may be
  // shorter, so the interval widens upwards, and the stage still binds near 1/s.
  serial_stage_fit wide = f;
  wide.cpus = 16;
  const auto four = predict_serial_stage(wide, demand, 64, 4);
  ASSERT_TRUE(four.has_interval);
  EXPECT_NEAR(four.value * wide.hold, 1, 0.05);
  EXPECT_GT(std::log(four.hi / four.value), 1.5 * std::log(four.value / four.lo));
  // One point: nothing to say about its error.
  const std::vector<serial_stage_point> one = {{4, 1e-6, 1.2e6}};
  const auto p = predict_serial_stage(fit_serial_stage(one, 2), 1e-6, 8, 8);
  EXPECT_FALSE(p.has_interval);
  EXPECT_NE(p.no_interval.find("df = 0"), std::string::npos);
}

TEST(SerialStageTest, OnlyExperimentsThroughOneStructureHaveAStage) {
  datasets::key k;
  k.scenario = std::string(datasets::name(datasets::scenario::producers));
  EXPECT_NE(serial_structure(k), "");
  k.scenario = std::string(datasets::name(datasets::scenario::accept_herd));
  EXPECT_NE(serial_structure(k), "");
  k.scenario = std::string(datasets::name(datasets::scenario::shared_epoll));
  k.variant = std::string(datasets::name(datasets::variant::lt));
  EXPECT_NE(serial_structure(k), "");
  k.variant = std::string(datasets::name(datasets::variant::oneshot));  // one instance, edge-triggered one-shot
  EXPECT_NE(serial_structure(k), "");
  k.variant = std::string(datasets::name(datasets::variant::exclusive));  // an instance per thread
  EXPECT_EQ(serial_structure(k), "");
  k.scenario = std::string(datasets::name(datasets::scenario::private_sets));
  k.variant = "";
  EXPECT_EQ(serial_structure(k), "");
}

// Threads that hand work on without one structure between them: only the EPOLLEXCLUSIVE
// rings (their pipes are watched by every thread's instance); a serial stage already says
// it for the others, and private sets hand nothing on.
TEST(SerialStageTest, OnlyTheExclusiveRingsHandOnWithoutAStage) {
  datasets::key k;
  k.scenario = std::string(datasets::name(datasets::scenario::shared_epoll));
  k.variant = std::string(datasets::name(datasets::variant::exclusive));
  EXPECT_NE(hand_off_structure(k).find("EPOLLEXCLUSIVE"), std::string::npos);
  for (auto v : {datasets::variant::lt, datasets::variant::oneshot}) {
    k.variant = std::string(datasets::name(v));
    EXPECT_EQ(hand_off_structure(k), "");
  }
  for (auto sc : {datasets::scenario::producers, datasets::scenario::accept_herd, datasets::scenario::private_sets}) {
    k.scenario = std::string(datasets::name(sc));
    k.variant = std::string(datasets::name(datasets::variant::exclusive));
    EXPECT_EQ(hand_off_structure(k), "");
  }
}

}  // namespace
}  // namespace pollscale::model
