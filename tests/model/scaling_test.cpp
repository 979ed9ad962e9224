// The CPU-scaling protocol (model/scaling.hpp): tables formed from scaling rows only, the
// default split (each table's smaller half of thread counts), --train expressions, the
// published stress-epoll tables, and the cost-form fits leaving scaling rows alone.

#include "model/scaling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/fit.hpp"
#include "tests/model/producers_rows.hpp"

namespace pollscale::model {
namespace {

namespace fs = std::filesystem;
const fs::path published = fs::path(POLLSCALE_SOURCE_DIR) / "datasets/historical/scaling";

using test::producers_row;

double amdahl(double n, double sigma) { return 1e6 * n / (1 + sigma * (n - 1)); }
double one_cpu(double n) { return amdahl(n, 0.9); }
// Two CPUs: Amdahl with less contention up to one thread per CPU; past it the threads add no
// CPU and gain what one CPU gains from as many threads per CPU (N/2):
// amdahl(2, 0.3) x one_cpu(N/2) / one_cpu(1), below both the law and two CPUs' worth of
// the one-CPU work (2 x one_cpu(N)).
double two_cpus(double n) {
  const double law = amdahl(n, 0.3);
  return n <= 2 ? law : std::min({law, 2 * one_cpu(n), amdahl(2, 0.3) * one_cpu(n / 2) / one_cpu(1)});
}

// Two tables (one and two CPUs) of planted scaling, and one row of another scenario.
observation_set planted() {
  observation_set s;
  s.source = "planted";
  for (std::int64_t t : {1, 2, 3, 4, 6, 8}) {
    const double n = static_cast<double>(t);
    s.rows.push_back(producers_row(t, 1, one_cpu(n)));
    s.rows.push_back(producers_row(t, 2, two_cpus(n)));
  }
  observation other;
  other.k.scenario = std::string(datasets::name(datasets::scenario::find_active));
  other.k.mechanism = "poll";
  other.k.fd_kind = "pipe";
  other.k.n_fds = 100;
  other.k.metric = std::string(datasets::name(datasets::metric::time_per_call));
  other.k.unit = "ns";
  other.value = 900;
  s.rows.push_back(other);
  return s;
}

// shared_epoll's wake-ups per pass (a count, unit 1) ride with its throughput rows; the law
// is of a rate, so they make no table of their own and change none.
TEST(ScalingProtocolTest, CountedRowsAreNotScaled) {
  observation_set data = planted();
  const scaling_result before = validate_scaling(data, {});
  for (std::int64_t t : {1, 2, 3, 4, 6, 8}) {
    observation w = producers_row(t, 1, 1.0 + 0.1 * static_cast<double>(t));
    w.k.scenario = std::string(datasets::name(datasets::scenario::shared_epoll));
    w.k.metric = std::string(datasets::name(datasets::metric::wakeups));
    w.k.unit = "1";
    EXPECT_FALSE(scaling_axis(w));
    data.rows.push_back(w);
  }
  const scaling_result after = validate_scaling(data, {});
  ASSERT_EQ(after.tables.size(), before.tables.size());
  for (std::size_t i = 0; i < after.tables.size(); ++i) {
    EXPECT_EQ(after.tables[i].k.scenario, before.tables[i].k.scenario);
    EXPECT_EQ(after.tables[i].rows.size(), before.tables[i].rows.size());
  }
}

TEST(ScalingProtocolTest, TablesHoldScalingRowsSplitAtTheirSmallerHalf) {
  const observation_set data = planted();
  const scaling_result r = validate_scaling(data, {});
  ASSERT_EQ(r.tables.size(), 2u);  // one CPU and two; pinning and n_fds do not split tables
  for (const auto& t : r.tables) {
    EXPECT_EQ(t.n_train, 3u);  // 1, 2 and 3 producers
    ASSERT_EQ(t.rows.size(), 3u);
    for (const auto& row : t.rows) EXPECT_GE(*row.o->k.n_fds, 4);
    ASSERT_TRUE(t.fit);
    ASSERT_EQ(t.row_limit.size(), t.rows.size());
    if (*t.k.cpus == 1) {
      // Noiseless Amdahl: recovered exactly, and the larger N predicted exactly.
      EXPECT_EQ(t.fit->law, scaling_law::amdahl);
      EXPECT_NEAR(t.fit->sigma, 0.9, 1e-6);
      EXPECT_LT(t.acc.max_rel_err, 1e-6);
      for (auto l : t.row_limit) EXPECT_EQ(l, scaling_limit::law);
    } else {
      // Three producers already share the two CPUs, so no Amdahl law passes through 1-3 and
      // the fitted one misses N = 2 too; the bound for threads beyond the CPUs, which starts
      // from it, gives 4-8 within 7% (6.9%), where amdahl(N, 0.3) lies 30-55% above.
      EXPECT_LT(t.acc.max_rel_err, 0.07);
      for (auto l : t.row_limit) EXPECT_EQ(l, scaling_limit::oversubscribed);
    }
  }
  EXPECT_FALSE(r.tables[0].bound_cpus);
  EXPECT_EQ(r.tables[1].bound_cpus, 1);
  EXPECT_EQ(r.n_train, 6u);
  EXPECT_EQ(r.overall.n, 6u);
}

// calibrate lists a point once when its threads fit the CPUs of several series: on a
// 4-CPU machine, T = 1 of the 2- and 4-CPU series is one row (cpus 2 of threads 2), T = 2 of
// the 4-CPU series has cpus 3. Each such row belongs to every series at least as wide.
TEST(ScalingProtocolTest, RowsWhoseThreadsFitTheirCpusJoinEveryWiderSeries) {
  observation_set data;
  data.source = "four cpus";
  auto row = [&](std::int64_t t, std::int64_t cpus) {
    observation o = producers_row(t, 1, 1e6 * static_cast<double>(t));
    o.k.cpus = cpus;
    data.rows.push_back(o);
  };
  for (std::int64_t t : {1, 2, 3, 4, 6, 8}) row(t, 1);
  row(1, 2);  // shared by the 2- and 4-CPU series
  for (std::int64_t t : {2, 3, 4, 6, 8}) row(t, 2);
  row(2, 3);  // the 4-CPU series' T = 2
  for (std::int64_t t : {3, 4, 6, 8, 12, 16}) row(t, 4);
  const scaling_result r = validate_scaling(data, {});
  ASSERT_EQ(r.tables.size(), 3u);
  std::map<std::int64_t, std::size_t> points;
  for (const auto& t : r.tables) points[*t.k.cpus] = t.n_train + t.rows.size();
  EXPECT_EQ(points[1], 6u);
  EXPECT_EQ(points[2], 6u);  // T = 1 (shared), 2, 3, 4, 6, 8
  EXPECT_EQ(points[4], 8u);  // T = 1 (shared), 2 (cpus 3), 3, 4, 6, 8, 12, 16
}

// The protocol: trained on one and two threads, where the two-CPU law is exact; past
// two threads its CPUs gain only what one CPU gains from sharing, and the bound says so.
TEST(ScalingProtocolTest, ThreadsBeyondTheCpusGainAtMostWhatOneCpuGains) {
  scaling_protocol p;
  p.train = "n_fds<=2";
  const scaling_result r = validate_scaling(planted(), p);
  ASSERT_EQ(r.tables.size(), 2u);
  const auto& two = r.tables[1];
  ASSERT_EQ(*two.k.cpus, 2);
  ASSERT_TRUE(two.fit);
  EXPECT_NEAR(two.fit->sigma, 0.3, 1e-6);
  EXPECT_LT(two.acc.max_rel_err, 1e-9);
  for (auto l : two.row_limit) EXPECT_EQ(l, scaling_limit::oversubscribed);
  // Without the bound the law would have said amdahl(8, 0.3) = 2.58e6, 55% over.
  EXPECT_NEAR(two.rows.back().predicted, two_cpus(8), 1e-3);
  EXPECT_NEAR(amdahl(8, 0.3) / two_cpus(8), 1.55, 0.01);
}

// The bound itself: the law at one thread per CPU times the narrower table's gain at the same
// threads per CPU, never below 1; the interval scaled alike.
TEST(ScalingProtocolTest, OversubscriptionBoundTakesTheNarrowerTablesGain) {
  scaling_fit own, narrow;
  own.law = narrow.law = scaling_law::amdahl;
  own.gamma = narrow.gamma = 1e6;
  own.sigma = 0.3;
  narrow.sigma = 0.5;
  own.n_max = narrow.n_max = 2;
  const scaling_prediction at_two = predict_scaling(own, 2);
  const scaling_prediction p = oversubscribed(own, 2, narrow, 1, 8);
  const double gain = amdahl(4, 0.5) / amdahl(1, 0.5);
  EXPECT_NEAR(p.value, at_two.value * gain, 1e-6);
  EXPECT_EQ(p.has_interval, at_two.has_interval);
  EXPECT_DOUBLE_EQ(p.extrapolation, 4);  // of N = 8 against the two trained
  // A narrower table that loses with threads (σ > 1) gains nothing: the law at C stands.
  narrow.sigma = 1.2;
  EXPECT_NEAR(oversubscribed(own, 2, narrow, 1, 8).value, at_two.value, 1e-6);
  // On a narrower table of two CPUs, four CPUs at 16 threads share as two do at 8.
  narrow.sigma = 0.5;
  EXPECT_NEAR(oversubscribed(own, 4, narrow, 2, 16).value,
              predict_scaling(own, 4).value * amdahl(8, 0.5) / amdahl(2, 0.5), 1e-6);
}

TEST(ScalingProtocolTest, TrainExpressionAndRequestedCounts) {
  const observation_set data = planted();
  scaling_protocol p;
  p.train = "n_fds<=2";
  p.at = {16, 128};
  const scaling_result r = validate_scaling(data, p);
  for (const auto& t : r.tables) {
    EXPECT_EQ(t.n_train, 2u);
    EXPECT_EQ(t.rows.size(), 4u);
    ASSERT_EQ(t.at.size(), 2u);
    EXPECT_EQ(t.at[1].first, 128);
    EXPECT_FALSE(t.at[1].second.has_interval);  // two points, two coefficients: df = 0
    EXPECT_DOUBLE_EQ(t.at[1].second.extrapolation, 64);
  }
  p.at = {0.5};
  EXPECT_THROW(validate_scaling(data, p), std::invalid_argument);
  p.at.clear();
  p.train = "n_fds<<2";
  EXPECT_THROW(validate_scaling(data, p), std::invalid_argument);
}

TEST(ScalingProtocolTest, ATableWithOneThreadCountIsReportedNotFitted) {
  observation_set data;
  data.source = "one";
  data.rows.push_back(producers_row(4, 2, 1e6));
  data.rows.push_back(producers_row(8, 2, 1.2e6));
  scaling_protocol p;
  p.train = "n_fds<=4";
  const scaling_result r = validate_scaling(data, p);
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_FALSE(r.tables[0].fit);
  EXPECT_NE(r.tables[0].not_fitted.find("two or more distinct N"), std::string::npos) << r.tables[0].not_fitted;
  // The split, not the table, left one N: the message says which N trained of those measured.
  EXPECT_NE(r.tables[0].not_fitted.find("the training rows hold N = 4 of the N = 4, 8 measured"), std::string::npos)
      << r.tables[0].not_fitted;
}

TEST(ScalingProtocolTest, ATableMeasuredAtOneThreadCountSaysNothingOfASplit) {
  observation_set data;
  data.source = "one";
  data.rows.push_back(producers_row(4, 2, 1e6));
  const scaling_result r = validate_scaling(data, {});
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_FALSE(r.tables[0].fit);
  EXPECT_EQ(r.tables[0].not_fitted.find("training rows"), std::string::npos) << r.tables[0].not_fitted;
}

TEST(ScalingProtocolTest, DataWithoutScalingRowsIsRefused) {
  observation_set data = planted();
  data.rows.erase(data.rows.begin(), data.rows.end() - 1);
  try {
    validate_scaling(data, {});
    ADD_FAILURE() << "no scaling rows, yet validated";
  } catch (const datasets::input_error& e) {
    // The message lists every scenario that would do.
    for (const char* s : {"producers", "private_sets", "shared_epoll"})
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
  }
}

// What N counts is said per scenario, each named only when there are several.
TEST(ScalingProtocolTest, TheAxisLegendNamesTheScenariosWhenThereAreSeveral) {
  datasets::key producers, private_sets, shared;
  producers.scenario = "producers";
  private_sets.scenario = "private_sets";
  shared.scenario = "shared_epoll";
  EXPECT_EQ(scaling_axis_legend({producers, producers}), std::string(scaling_axis_meaning(producers)));
  const std::string both = scaling_axis_legend({shared, private_sets, shared});
  EXPECT_EQ(both, "private_sets: " + std::string(scaling_axis_meaning(private_sets)) +
                      "; shared_epoll: " + std::string(scaling_axis_meaning(shared)));
  EXPECT_NE(scaling_axis_meaning(producers), scaling_axis_meaning(private_sets));
  EXPECT_NE(scaling_axis_meaning(private_sets), scaling_axis_meaning(shared));
}

TEST(ScalingProtocolTest, CostFormFitsLeaveScalingRowsToTheLaw) {
  observation_set data = planted();
  for (double n : {200.0, 400.0, 800.0, 1600.0}) {
    observation o = data.rows.back();
    o.k.n_fds = static_cast<std::int64_t>(n);
    o.value = 900 + n;
    data.rows.push_back(o);
  }
  rank_n_within_cells(data);
  fit_options options;
  options.skip_unfittable = true;
  const model_set m = fit_models(data, options);
  for (const auto& c : m.cells) EXPECT_FALSE(is_scaling_row(observation{c.cell, 0, {}, {}, "", "", "", "", -1}));
  ASSERT_FALSE(m.skipped.empty());
  EXPECT_NE(m.skipped.front().find("12 rows of CPU-scaling scenarios"), std::string::npos) << m.skipped.front();
}

// The published stress-epoll tables (docs/scaling.md): each table's larger half of thread
// counts predicted from its smaller half. The target is a median error <= 20%.
TEST(ScalingProtocolTest, PublishedStressEpollTablesFromTheirSmallerHalf) {
  const observation_set data = load_observations(published);
  const scaling_result r = validate_scaling(data, {});
  ASSERT_EQ(r.tables.size(), 4u);
  EXPECT_EQ(r.n_train, 10u);
  EXPECT_EQ(r.overall.n, 6u);
  EXPECT_LE(r.overall.median_rel_err, 0.20);
  for (const auto& t : r.tables) {
    ASSERT_TRUE(t.fit) << t.kernel;
    // Three thread counts cannot buy coherency; two fit Amdahl exactly and give no interval.
    EXPECT_NE(t.fit->law, scaling_law::usl) << t.kernel;
    for (const auto& row : t.rows) EXPECT_EQ(row.has_interval, t.n_train > 2) << t.kernel;
  }
}

}  // namespace
}  // namespace pollscale::model
