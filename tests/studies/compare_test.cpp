// The A/B comparison: its statistics against reference values (R's t.test, wilcox.test and
// p.adjust on small examples), a planted 10% slowdown of one mechanism found between two
// calibrations whose every point also scatters from run to run, no false alarm when nothing
// was planted (and many without the between-run term: why it is there), and the AIM9
// slab table's verdicts reproduced from its "+/-" columns.

#include "studies/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <set>

#include "datasets/historical.hpp"
#include "datasets/run_facts.hpp"

namespace pollscale::studies {
namespace {

TEST(CompareStatsTest, WelchMatchesRsTTest) {
  // R: t.test(1:5, c(2,4,6,8,10)): t = -1.8974, df = 5.8824, p-value = 0.1075
  EXPECT_NEAR(welch_p({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}), 0.107531, 1e-5);
  EXPECT_TRUE(std::isnan(welch_p({1}, {2, 3})));
  EXPECT_TRUE(std::isnan(welch_p({1, 1}, {1, 1})));
}

TEST(CompareStatsTest, MannWhitneyMatchesRsWilcoxTestWithTies) {
  // R: wilcox.test(1:5, c(2,4,6,8,10)): W = 5, p-value = 0.1412 (normal, ties, continuity)
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}), 0.14117, 1e-4);
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {1, 2, 3}), 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(mann_whitney_p({}, {1.0})));
}

TEST(CompareStatsTest, HolmMatchesRsPAdjust) {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
  const auto adj = holm_adjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[0], 0.03, 1e-12);
  EXPECT_NEAR(adj[1], 0.06, 1e-12);
  EXPECT_NEAR(adj[2], 0.06, 1e-12);
  EXPECT_NEAR(adj[3], 0.02, 1e-12);
  EXPECT_TRUE(std::isnan(holm_adjust({0.01, std::nan("")})[1]));
}

// A calibration of 5 mechanisms x 30 n, 3 visits of 8 batches each. Every point has a run
// offset (lognormal, sd 8%: the host's point-to-point irreproducibility between runs), each
// visit its own offset (3%), each batch 1% noise. `slow` scales one mechanism. Visit v of
// every point falls in round v of the run, as calibrate's plan lays them out; a host that
// drifts moves a whole mechanism in a round (`mechanism_round_sd`, drawn per mechanism and
// round) and every mechanism alike (`machine_round_sd`, per round).
datasets::dataset planted_run(unsigned seed, const std::string& slow_mechanism, double slow_factor,
                              double mechanism_round_sd = 0, double machine_round_sd = 0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> run_off(0, 0.08), visit_off(0, 0.03), batch(0, 0.01);
  std::mt19937_64 drift_rng(seed ^ 0x9e3779b97f4a7c15ULL);  // its own stream: the points' draws stay as they were
  std::normal_distribution<double> unit(0, 1);
  std::vector<double> machine(3);
  for (double& m : machine) m = machine_round_sd * unit(drift_rng);
  datasets::dataset d;
  for (const char* mech : {"select", "poll", "ppoll", "epoll", "io_uring"}) {
    std::vector<double> rounds(3);
    for (std::size_t v = 0; v < 3; ++v) rounds[v] = machine[v] + mechanism_round_sd * unit(drift_rng);
    for (int i = 0; i < 30; ++i) {
      datasets::key k;
      k.scenario = "find_active";
      k.mechanism = mech;
      k.fd_kind = "pipe";
      k.n_fds = 10 + 100 * i;
      k.n_active = 1;
      k.metric = "time_per_call";
      k.unit = "ns";
      const double truth = (200 + 3.0 * double(*k.n_fds)) * (mech == slow_mechanism ? slow_factor : 1.0);
      const double point = truth * std::exp(run_off(rng));
      for (int v = 0; v < 3; ++v) {
        const double visit = point * std::exp(visit_off(rng) + rounds[std::size_t(v)]);
        for (int b = 0; b < 8; ++b)
          d.samples.push_back({k, v * 8 + b, visit * std::exp(batch(rng)), 1, v, {}, {}, {}, {}});
      }
    }
  }
  d.summaries = datasets::summarise_samples(d.samples);
  return d;
}

std::size_t significant_points(const comparison& c, const std::string& mechanism) {
  std::size_t n = 0;
  for (const auto& p : c.points) n += p.significant && (mechanism.empty() || p.k.mechanism == mechanism);
  return n;
}

// Holm keeps the family-wise false-alarm rate at alpha = 5%: over 12 pairs of runs with
// nothing planted, at most one pair may show a significant series by chance (5% of 12 is
// 0.6; two or more would happen with probability about 0.12 if the rate were right, so the
// bound is loose enough not to fail by luck and tight enough to catch a rate of 20%+).
constexpr unsigned pairs = 12;

TEST(CompareTest, NoFalseAlarmBetweenTwoRunsOfOneMachine) {
  unsigned pairs_with_a_series = 0;
  for (unsigned i = 0; i < pairs; ++i) {
    const auto a = planted_run(100 + 2 * i, "", 1), b = planted_run(101 + 2 * i, "", 1);
    const auto c = compare_datasets(a, b, {});
    ASSERT_EQ(c.points.size(), 150u);
    EXPECT_EQ(c.only_a, 0u);
    EXPECT_LE(significant_points(c, ""), 150u / 20);  // the target: <= 5% of points
    bool any = false;
    for (const auto& s : c.series) any = any || s.significant;
    pairs_with_a_series += any;
    // τ recovers the planted between-run scatter: two runs' offsets differ by sd 8% x sqrt(2).
    EXPECT_NEAR(c.between_run_sd, 0.08 * std::sqrt(2.0), 0.04);
  }
  EXPECT_LE(pairs_with_a_series, 1u);
}

// A scenario whose probe measured another operation in B (a raised probe revision in its
// context; none recorded reads as revision 1) is left out and named, whatever its points
// say; the rest is compared as before, and equal revisions leave nothing out.
TEST(CompareTest, PointsOfAnotherProbeRevisionAreLeftOutAndNamed) {
  auto a = planted_run(7, "", 1), b = planted_run(8, "", 1);
  const auto alone = compare_datasets(a, b, {});
  EXPECT_TRUE(alone.left_out.empty());
  for (auto* d : {&a, &b})
    for (auto& s : d->samples)
      if (s.k.mechanism == "io_uring") s.k.scenario = "private_sets";  // 30 points of another scenario
  for (auto& s : b.samples)
    if (s.k.scenario == "private_sets") s.value *= 1.15;  // T = 1 alone read faster: as if slower now
  a.summaries = datasets::summarise_samples(a.samples);
  b.summaries = datasets::summarise_samples(b.samples);
  b.context["calibration"]["probe_revisions"] = {{"private_sets", 2}, {"find_active", 1}};
  const auto c = compare_datasets(a, b, {});
  ASSERT_EQ(c.left_out.size(), 1u);
  EXPECT_EQ(c.left_out[0].scenario, "private_sets");
  EXPECT_EQ(c.left_out[0].a, std::set<int>{1});
  EXPECT_EQ(c.left_out[0].b, std::set<int>{2});
  EXPECT_EQ(c.points.size(), 120u);
  for (const auto& p : c.points) EXPECT_EQ(p.k.scenario, "find_active");
  EXPECT_EQ(c.only_a + c.only_b, 0u);
  a.context["calibration"]["probe_revisions"] = {{"private_sets", 2}};
  const auto same = compare_datasets(a, b, {});
  EXPECT_TRUE(same.left_out.empty());
  EXPECT_EQ(same.points.size(), 150u);
  // Runs of one side that disagree cannot speak for one operation: left out too.
  EXPECT_TRUE(compare_runs({&a, &b}, {&b}, {}).left_out.empty());  // both runs say 2
  b.context["calibration"]["probe_revisions"]["private_sets"] = 3;
  const auto three = compare_runs({&a, &b}, {&b}, {});
  ASSERT_EQ(three.left_out.size(), 1u);
  EXPECT_EQ(three.left_out[0].a, (std::set<int>{2, 3}));
}

TEST(CompareTest, WithoutTheBetweenRunTermOrOnRawSamplesRunScatterLooksLikeChange) {
  const auto a = planted_run(100, "", 1), b = planted_run(101, "", 1);
  const auto c = compare_datasets(a, b, {});
  EXPECT_LT(c.median_ratio_lo, 1.0);
  EXPECT_GT(c.median_ratio_hi, 1.0);
  // The raw-sample tests call most of the same differences significant: why they don't decide.
  std::size_t raw = 0;
  for (const auto& p : c.points) raw += p.p_welch_raw < 0.05;
  EXPECT_GT(raw, 75u);
  // So would the within-run errors alone.
  compare_options within_only;
  within_only.between_run_term = false;
  EXPECT_GT(significant_points(compare_datasets(a, b, within_only), ""), 30u);
}

// A host 20% slower in everything: its times rise and its rates fall, and the whole-machine
// ratio reads 1.2 as time per operation. Taken as they came, the 30 times at 1.2 and the 30
// rates at 1/1.2 put the median between the two.
TEST(CompareTest, TheWholeMachineRatioIsTimePerOperationWhateverTheUnits) {
  const auto run = [](double slower, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 0.01);
    datasets::dataset d;
    for (const char* metric : {"time_per_call", "throughput"})
      for (int i = 0; i < 30; ++i) {
        datasets::key k;
        k.scenario = std::string(metric) == "throughput" ? "token_ring" : "find_active";
        k.mechanism = "poll";
        k.fd_kind = "pipe";
        k.n_fds = 10 + 100 * i;
        k.n_active = 1;
        k.metric = metric;
        k.unit = std::string(metric) == "throughput" ? "1/s" : "ns";
        const double cost = 200 + 3.0 * double(*k.n_fds);
        const double value = k.unit == "ns" ? cost * slower : 1e9 / (cost * slower);
        for (int v = 0; v < 3; ++v)
          for (int b = 0; b < 8; ++b)
            d.samples.push_back({k, v * 8 + b, value * std::exp(noise(rng)), 1, v, {}, {}, {}, {}});
      }
    d.summaries = datasets::summarise_samples(d.samples);
    return d;
  };
  const auto c = compare_datasets(run(1.0, 7), run(1.2, 8), {});
  ASSERT_EQ(c.points.size(), 60u);
  EXPECT_NEAR(c.median_ratio, 1.2, 0.02);
  EXPECT_GT(c.median_ratio_lo, 1.15);
  EXPECT_LT(c.median_ratio_hi, 1.25);
}

// Two runs that met two speed modes of one machine: B 20% slower in every mechanism, and poll
// a further 10%. Against no change every mechanism reads slower; against the machine's shift
// (--relative) only poll does, by about 10%, and the shift itself is still reported.
TEST(CompareTest, RelativeToTheMachineOnlyWhatMovedMoreThanItIsFlagged) {
  compare_options absolute, relative;
  absolute.regression_min = relative.regression_min = 0.05;
  relative.relative_to_machine = true;
  unsigned poll_found = 0, others_flagged = 0, others_flagged_absolute = 0;
  for (unsigned i = 0; i < pairs; ++i) {
    auto b = planted_run(101 + 2 * i, "poll", 1.10);
    for (auto& x : b.samples) x.value *= 1.2;
    b.summaries = datasets::summarise_samples(b.samples);
    const auto a = planted_run(100 + 2 * i, "", 1);
    const auto c = compare_datasets(a, b, relative);
    EXPECT_TRUE(c.relative_to_machine);
    EXPECT_GT(c.median_ratio, 1.15);
    EXPECT_LT(c.median_ratio, 1.30);
    for (const auto& m : c.mechanisms) {
      if (m.k.mechanism == "poll") {
        poll_found += m.regression;
        EXPECT_GT(m.ratio, 1.0);
        EXPECT_LT(m.ratio, 1.2);
      } else {
        others_flagged += m.significant;
      }
    }
    for (const auto& m : compare_datasets(a, b, absolute).mechanisms)
      others_flagged_absolute += m.k.mechanism != "poll" && m.regression;
  }
  // The reference is itself an estimate — with five mechanisms the median of five medians,
  // uncertain by about 1.5% here — and every verdict carries that: a 10% change is found in
  // 8 of these 12 pairs (11 or 12 when the machine holds still and A and B are judged
  // against no change, below).
  EXPECT_GE(poll_found, 7u);
  EXPECT_LE(others_flagged, 1u);                        // Holm's 5% over 12 pairs
  EXPECT_GE(others_flagged_absolute, 4 * (pairs - 1));  // against no change the machine's 20% shows in all
}

TEST(CompareTest, APlantedTenPercentSlowdownOfOneMechanismIsFlagged) {
  compare_options o;
  o.regression_min = 0.05;
  unsigned found = 0, covered = 0, mechanism_found = 0, pairs_with_a_false_mechanism = 0;
  for (unsigned i = 0; i < pairs; ++i) {
    const auto c = compare_datasets(planted_run(100 + 2 * i, "", 1), planted_run(101 + 2 * i, "poll", 1.10), o);
    bool false_mechanism = false;
    for (const auto& m : c.mechanisms) {
      if (m.k.mechanism == "poll") mechanism_found += m.regression;
      false_mechanism = false_mechanism || (m.k.mechanism != "poll" && m.significant);
    }
    pairs_with_a_false_mechanism += false_mechanism;
    for (const auto& s : c.series)
      if (s.k.mechanism == "poll") {
        found += s.regression;
        covered += s.ratio_lo < 1.10 && 1.10 < s.ratio_hi;
      }
    EXPECT_LE(significant_points(c, "select") + significant_points(c, "epoll"), 3u);
  }
  // Power: the series' standard error is about 2%, so a 10% slowdown is about 4.7 sigma and
  // Holm's first threshold 2.6 sigma; it is found in nearly every pair.
  EXPECT_GE(found, pairs - 1);
  EXPECT_GE(mechanism_found, pairs - 1);
  EXPECT_LE(pairs_with_a_false_mechanism, 1u);  // Holm's 5% per pair, as in the test above
  EXPECT_GE(covered, pairs - 2);                // the 95% interval of the ratio holds the planted 1.10
}

// A host whose speed moves between the rounds of a run moves every point of a mechanism
// visited in that round (sd 6% a round here): 150 points averaged as if independent would
// pin each mechanism's run value to about 1%, and the rounds' drift, three draws a run,
// would read as a change. The rounds' spread enters each series' and mechanism's error.
TEST(CompareTest, AMechanismThatDriftedBetweenRoundsIsNotCalledChanged) {
  unsigned pairs_with_a_mechanism = 0;
  double drift = 0;
  for (unsigned i = 0; i < pairs; ++i) {
    const auto c = compare_datasets(planted_run(300 + 2 * i, "", 1, 0.06), planted_run(301 + 2 * i, "", 1, 0.06), {});
    bool any = false;
    for (const auto& m : c.mechanisms) any = any || m.significant;
    pairs_with_a_mechanism += any;
    drift += c.mechanism_round_drift / pairs;
    EXPECT_LE(significant_points(c, ""), 150u / 20);
  }
  EXPECT_LE(pairs_with_a_mechanism, 1u);  // Holm's 5% per pair, as above
  // Each side's run value is the mean of 3 rounds of sd 6%: 0.06 / sqrt(3) a side, both sides.
  EXPECT_NEAR(drift, 0.06 * std::sqrt(2.0 / 3), 0.025);
}

// Relative to the machine, what every mechanism did in a round (sd 8% here) is the
// machine's, and only what a mechanism did beyond it counts: against no change each
// mechanism carries the rounds' drift (about 8% x sqrt(2/3)), relative to the machine
// almost none, and a planted 10% slowdown of poll stands out of a drifting host's runs as
// often as out of a steady one's (the test above without drift: at least 7 of 12).
TEST(CompareTest, RelativeToTheMachineItsRoundsAreTheMachinesToo) {
  compare_options relative;
  relative.relative_to_machine = true;
  unsigned found = 0, others = 0;
  for (unsigned i = 0; i < pairs; ++i) {
    const auto a = planted_run(500 + 2 * i, "", 1, 0.005, 0.08),
               b = planted_run(501 + 2 * i, "poll", 1.10, 0.005, 0.08);
    EXPECT_GT(compare_datasets(a, b, {}).mechanism_round_drift, 0.02);  // three rounds a side: a rough estimate
    const auto c = compare_datasets(a, b, relative);
    EXPECT_LT(c.mechanism_round_drift, 0.015);
    for (const auto& m : c.mechanisms) (m.k.mechanism == "poll" ? found : others) += m.significant;
  }
  EXPECT_GE(found, 7u);
  EXPECT_LE(others, 1u);
}

// Several runs per side: a point's value is the geometric mean of its runs, and a whole
// mechanism that moved between one side's runs widens that mechanism's interval (the spread
// is seen, not estimated), so a drift that hit one run does not read as a change.
TEST(CompareTest, SeveralRunsPerSideShowTheirSpread) {
  const auto a1 = planted_run(300, "", 1), a2 = planted_run(301, "epoll", 1.15);  // epoll drifted in one run
  const auto b1 = planted_run(302, "", 1), b2 = planted_run(303, "", 1);
  const auto c = compare_runs({&a1, &a2}, {&b1, &b2}, {});
  ASSERT_EQ(c.points.size(), 150u);
  EXPECT_EQ(c.points[0].a.ln_runs.size(), 2u);
  EXPECT_EQ(c.points[0].a.visits, 6u);
  for (const auto& m : c.mechanisms) {
    EXPECT_FALSE(m.significant) << m.k.mechanism << " " << m.ratio;
    if (m.k.mechanism == "epoll") {
      EXPECT_LT(m.ratio, 1.0);                   // B is the 7% "faster" that the drift in A makes it look
      EXPECT_GT(m.ratio_hi / m.ratio_lo, 1.15);  // but its interval holds that spread
    }
  }
  // One run of A alone against the same B calls epoll faster: the drift read as change.
  const auto single = compare_runs({&a2}, {&b1, &b2}, {});
  bool epoll_flagged = false;
  for (const auto& m : single.mechanisms) epoll_flagged |= m.k.mechanism == "epoll" && m.significant;
  EXPECT_TRUE(epoll_flagged);
}

// A point missing from one of A's runs leaves its series without run-by-run values on that
// side; the series is still judged, on its points' errors (its interval stays finite).
TEST(CompareTest, ASeriesWhosePointsHaveDifferentRunCountsKeepsAFiniteInterval) {
  const auto a1 = planted_run(500, "", 1), b1 = planted_run(502, "", 1), b2 = planted_run(503, "", 1);
  auto a2 = planted_run(501, "", 1);
  const auto first = a2.summaries.front().k;
  std::erase_if(a2.samples, [&](const datasets::sample_row& r) { return r.k == first; });
  a2.summaries = datasets::summarise_samples(a2.samples);
  const auto c = compare_runs({&a1, &a2}, {&b1, &b2}, {});
  ASSERT_EQ(c.points.size(), 150u);
  for (const auto& s : c.series) {
    EXPECT_TRUE(std::isfinite(s.ratio_lo) && s.ratio_lo > 0) << s.k.mechanism;
    EXPECT_TRUE(std::isfinite(s.ratio_hi)) << s.k.mechanism;
    EXPECT_LT(s.ratio_hi / s.ratio_lo, 1.5) << s.k.mechanism;
  }
  for (const auto& m : c.mechanisms) EXPECT_TRUE(std::isfinite(m.ratio_hi)) << m.k.mechanism;
}

// max_fd records where the descriptors landed; two builds place them a few apart.
TEST(CompareTest, PointsMatchAcrossADifferentMaxFdUnlessItIsTheirCoordinate) {
  auto a = planted_run(400, "", 1), b = planted_run(401, "", 1);
  for (auto* d : {&a, &b}) {
    const std::int64_t shift = d == &a ? 3 : 5;
    for (auto& r : d->samples) r.k.max_fd = *r.k.n_fds + shift;
    d->summaries = datasets::summarise_samples(d->samples);
  }
  EXPECT_EQ(compare_datasets(a, b, {}).points.size(), 150u);
  // Two points of one run that differ only in max_fd (a descriptor-range grid) stay apart.
  for (auto* d : {&a, &b}) {
    auto extra = d->samples;
    for (auto& r : extra) r.k.max_fd = *r.k.max_fd + 640;
    d->samples.insert(d->samples.end(), extra.begin(), extra.end());
    d->summaries = datasets::summarise_samples(d->samples);
  }
  const auto c = compare_datasets(a, b, {});
  EXPECT_EQ(c.points.size(), 0u);  // a's max_fd n+3 never equals b's n+5
  EXPECT_EQ(c.only_a, 300u);
}

TEST(CompareTest, ARateIsSlowerWhenItFalls) {
  datasets::key k;
  k.scenario = "token_ring";
  k.mechanism = "poll";
  k.metric = "throughput";
  k.unit = "1/s";
  side a{1000, 990, 1010, 0.005, 0, {}, {}, {}}, b{800, 790, 810, 0.005, 0, {}, {}, {}};
  const auto c = compare_sides({{k, a}}, {{k, b}}, {});
  ASSERT_EQ(c.points.size(), 1u);
  EXPECT_NEAR(c.points[0].ratio, 0.8, 1e-12);
  EXPECT_NEAR(c.points[0].slowdown, 0.25, 1e-12);  // 1/0.8 - 1: a quarter more time per pass
  EXPECT_TRUE(c.points[0].regression);
}

TEST(CompareTest, PointsOfOneRunOnlyAreCountedNotCompared) {
  datasets::key k1, k2;
  k1.scenario = k2.scenario = "wakeup";
  k1.metric = k2.metric = "round_trip";
  k1.unit = k2.unit = "ns";
  k1.pinning = "0+0";
  k2.pinning = "0+1";
  const side s{100, 99, 101, 0.01, 3, {}, {}, {}};
  const auto c = compare_sides({{k1, s}, {k2, s}}, {{k2, s}}, {});
  EXPECT_EQ(c.points.size(), 1u);
  EXPECT_EQ(c.only_a, 1u);
  EXPECT_EQ(c.only_b, 0u);
  EXPECT_FALSE(c.points[0].significant);
}

// A count per operation (unit 1: shared_epoll's wake-ups per pass) is not compared: near
// zero its ratio is meaningless. The datasets' times still are, with the same verdicts.
TEST(CompareTest, CountsPerOperationAreLeftOut) {
  datasets::dataset a = planted_run(1, "", 1.0), b = planted_run(2, "", 1.0);
  const comparison without = compare_datasets(a, b, {});
  for (auto* d : {&a, &b}) {
    datasets::key k;
    k.scenario = "shared_epoll";
    k.mechanism = "epoll";
    k.variant = "lt";
    k.n_fds = 4;
    k.n_active = 1;
    k.metric = "wakeups";
    k.unit = "1";
    const double level = d == &a ? 0.002 : 0.4;
    for (int v = 0; v < 3; ++v)
      for (int i = 0; i < 8; ++i) d->samples.push_back({k, v * 8 + i, level * (1 + 0.01 * i), 1, v, {}, {}, {}, {}});
    d->summaries = datasets::summarise_samples(d->samples);
  }
  const auto c = compare_datasets(a, b, {});
  EXPECT_EQ(c.points.size(), without.points.size());
  EXPECT_EQ(c.only_a + c.only_b, 0u);
  for (const auto& p : c.points) EXPECT_NE(p.k.unit, "1");
  for (const auto& m : c.mechanisms) EXPECT_NE(m.k.variant, "lt");  // the only epoll/lt rows are the counts
  EXPECT_EQ(significant_points(c, ""), significant_points(without, ""));
  EXPECT_DOUBLE_EQ(c.between_run_sd, without.between_run_sd);
}

// Seed 002: AIM9 on 2.6.21-rc5 and with two slab patches, "value +/- stddev" per test. With
// each "+/-" as the standard error, fifo_test and pipe_cpy are slower with both patches
// (-6% and -9%, z about 18 and 22) and the other four tests are within their noise.
TEST(CompareTest, ReproducesTheAim9SlabTablesVerdicts) {
  const auto rows =
      datasets::read_historical(std::string(POLLSCALE_SOURCE_DIR) + "/datasets/historical/aim9_2007_slab.csv");
  auto table = [&](const std::string& kernel_variant) {
    std::vector<std::pair<datasets::key, side>> out;
    for (const auto& r : rows) {
      const std::string v = r.k.variant, first = v.substr(0, v.find('+'));
      if (first != kernel_variant) continue;
      datasets::key k = r.k;
      k.variant = v.find('+') == std::string::npos ? "" : v.substr(v.find('+') + 1);  // stream / dgram stay
      out.emplace_back(k, side{r.value, r.value, r.value, *r.stddev / r.value, 0, {}, {}, {}});
    }
    return out;
  };
  compare_options o;
  o.between_run_term = false;
  for (const char* slab : {"slab1", "slab2"}) {
    const auto c = compare_sides(table("baseline"), table(slab), o);
    ASSERT_EQ(c.points.size(), 6u) << slab;
    for (const auto& p : c.points) {
      const bool slower = p.k.fd_kind == "fifo" || p.k.fd_kind == "pipe";
      EXPECT_EQ(p.regression, slower) << slab << " " << p.k.fd_kind << " " << p.k.variant << " z " << p.z;
      if (slower) {
        EXPECT_GT(p.slowdown, 0.06);
      }
    }
  }
}

}  // namespace
}  // namespace pollscale::studies

namespace pollscale::studies {
namespace {

datasets::dataset with_sentinel(std::optional<double> median_ns) {
  datasets::dataset d;
  if (median_ns) {
    datasets::stability_facts f;
    f.readings = 40;
    f.median_ns = median_ns;
    datasets::write_stability(d.context, f, std::nullopt);
  }
  return d;
}

// The drift sentinel of each side says whether the two met one machine state: each side's
// level is the geometric mean of its runs, and a ratio past calibrate's slow factor (1.15)
// either way marks the comparison as shifted; a run without a sentinel gives no level.
TEST(CompareTest, TheDriftSentinelsSayWhetherBothSidesMetOneMachineState) {
  const auto a = with_sentinel(800), a2 = with_sentinel(1250), b = with_sentinel(1500), c = with_sentinel(900);
  auto s = sentinel_shift({&a}, {&b});
  ASSERT_TRUE(s.ratio);
  EXPECT_NEAR(*s.ratio, 1.875, 1e-12);
  EXPECT_TRUE(s.shifted);
  EXPECT_FALSE(sentinel_shift({&a}, {&c}).shifted);  // 1.125: within one mode
  EXPECT_TRUE(sentinel_shift({&b}, {&a}).shifted);   // faster by as much: shifted too
  s = sentinel_shift({&a, &a2}, {&b});               // A's level: sqrt(800 x 1250) = 1000
  EXPECT_NEAR(*s.sentinel_a_ns, 1000, 1e-9);
  EXPECT_NEAR(*s.ratio, 1.5, 1e-12);
  const auto none = with_sentinel(std::nullopt);
  s = sentinel_shift({&a, &none}, {&b});
  EXPECT_FALSE(s.sentinel_a_ns);
  EXPECT_FALSE(s.ratio);
  EXPECT_FALSE(s.shifted);
}

}  // namespace
}  // namespace pollscale::studies
