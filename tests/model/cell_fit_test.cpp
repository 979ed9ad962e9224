#include "model/cell_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "datasets/interruption.hpp"
#include "model/evaluate.hpp"
#include "model/fit.hpp"
#include "tests/model/synthetic.hpp"

namespace pollscale::model {
namespace {

using test::add_points;
using test::cell_key;

const std::vector<std::int64_t> small_ns = {1, 4, 16, 64, 128, 256, 512, 1000};

cell_model only(const model_set& s) {
  EXPECT_EQ(s.cells.size(), 1u);
  return s.cells.front();
}

std::vector<std::string> term_names(const cell_model& m) {
  std::vector<std::string> out;
  for (const auto& t : m.terms) out.push_back(t.name);
  return out;
}

TEST(CellFitTest, LeaveOneOutPicksThePlantedPollForm) {
  // poll pays per fd, nothing per ready fd: the per_ready rival must lose.
  observation_set s;
  s.context = test::cache_context();
  std::mt19937_64 rng(1);
  add_points(
      s, cell_key("poll"), small_ns, {1, 10, 100}, [](double n, double) { return 150 + 28 * n; }, 0.01, rng);
  const auto& m = only(fit_models(s));
  EXPECT_EQ(term_names(m), (std::vector<std::string>{"fixed", "per_fd", "working_set"}));
  EXPECT_TRUE(m.terms[2].from_prior);  // no point reaches past L2
  EXPECT_NEAR(m.terms[1].coefficient, 28, 0.5);
  EXPECT_LE(m.terms[1].ci95_lo, 28);
  EXPECT_GE(m.terms[1].ci95_hi, 28);
  EXPECT_GT(m.rivals.size(), 1u);
}

TEST(CellFitTest, LeaveOneOutPicksThePlantedEpollForm) {
  // epoll_wait pays per ready event and is flat in n: per_fd must lose.
  observation_set s;
  s.context = test::cache_context();
  std::mt19937_64 rng(2);
  add_points(
      s, cell_key("epoll"), small_ns, {1, 10, 100}, [](double, double k) { return 200 + 75 * k; }, 0.01, rng);
  const auto& m = only(fit_models(s));
  EXPECT_EQ(term_names(m), (std::vector<std::string>{"fixed", "per_ready"}));
  EXPECT_NEAR(m.terms[1].coefficient, 75, 1.5);
  EXPECT_EQ(m.chosen_by.find("leave-one-out"), 0u);
}

// A cell of thousands of points is cross-validated in ten folds interleaved in n, not by
// leave-one-out (m refits, O(m^2): 29 s at 10^5 rows): the same planted forms win, the
// progress callback sees every cell, and the chosen_by text says which it was.
TEST(CellFitTest, LargeCellsAreCrossValidatedInFolds) {
  observation_set s;
  s.context = test::cache_context();
  std::mt19937_64 rng(3);
  std::vector<std::int64_t> many_ns;
  for (std::int64_t n = 1; n <= 1000; n += 2) many_ns.push_back(n);  // 500 sizes x 3 k
  add_points(
      s, cell_key("poll"), many_ns, {1, 10, 100}, [](double n, double) { return 150 + 28 * n; }, 0.01, rng);
  add_points(
      s, cell_key("epoll"), many_ns, {1, 10, 100}, [](double, double k) { return 200 + 75 * k; }, 0.01, rng);
  fit_options o;
  std::vector<std::size_t> seen;
  o.progress = [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 2u);
    seen.push_back(done);
  };
  const auto models = fit_models(s, o);
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2}));
  ASSERT_EQ(models.cells.size(), 2u);
  for (const auto& m : models.cells) {
    SCOPED_TRACE(m.cell.mechanism);
    EXPECT_EQ(m.chosen_by.find("10-fold cross-validation"), 0u) << m.chosen_by;
    EXPECT_NE(m.chosen_by.find("1500 points"), std::string::npos) << m.chosen_by;
    if (m.cell.mechanism == "poll") {
      EXPECT_EQ(term_names(m)[1], "per_fd");
      EXPECT_NEAR(m.terms[1].coefficient, 28, 0.2);
    } else {
      EXPECT_EQ(term_names(m), (std::vector<std::string>{"fixed", "per_ready"}));
      EXPECT_NEAR(m.terms[1].coefficient, 75, 0.5);
    }
  }
  // At the threshold and below, leave-one-out as before.
  o.loo_max_points = 1500;
  for (const auto& m : fit_models(s, o).cells) EXPECT_EQ(m.chosen_by.find("leave-one-out"), 0u) << m.chosen_by;
}

// Cross-validation passes an interruption point at every refit: a fit stops there once
// the app's check throws (Ctrl-C), without finishing the cell.
TEST(CellFitTest, AFitStopsAtItsNextRefitWhenInterrupted) {
  observation_set s;
  s.context = test::cache_context();
  std::mt19937_64 rng(4);
  add_points(
      s, cell_key("poll"), small_ns, {1, 10, 100}, [](double n, double) { return 150 + 28 * n; }, 0.01, rng);
  struct stop {};
  int calls = 0;
  datasets::set_interruption_check([&] {
    if (++calls == 5) throw stop{};
  });
  EXPECT_THROW(fit_models(s), stop);
  EXPECT_EQ(calls, 5);
  datasets::set_interruption_check({});
  EXPECT_EQ(fit_models(s).cells.size(), 1u);
}

TEST(CellFitTest, RealtimeSignalOverflowCliffIsFound) {
  // Per event on both sides until the queue (64 signals) overflows; then the recovery
  // polls all n fds.
  const auto truth = [](double n, double k) { return 300 + 550 * k + (k > 64 ? 30 * n : 0); };
  for (bool limit_known : {false, true}) {
    observation_set s;
    s.context = nlohmann::json::object();
    if (limit_known) s.context["rlimit_sigpending"] = {{"soft", 64}, {"hard", 64}};
    std::mt19937_64 rng(10);
    add_points(s, cell_key("rtsig", "time_per_op"), {100, 300, 1000}, {1, 4, 16, 32, 128, 256, 512}, truth, 0.01, rng);
    const auto m = only(fit_models(s));
    const auto it = std::find_if(m.terms.begin(), m.terms.end(), [](const term& t) { return t.name == "overflow"; });
    ASSERT_NE(it, m.terms.end()) << m.formula;
    EXPECT_DOUBLE_EQ(it->b.threshold, limit_known ? 64 : 80);  // the limit, or midway between 32 and 128
    EXPECT_NEAR(it->coefficient, 30, 1.5);
    const auto p = evaluate(m, point{5000, 200, 0, 0});
    EXPECT_NEAR(p.value / truth(5000, 200), 1, 0.05);
  }
}

TEST(CellFitTest, ExtraPPicksThePlantedExponent) {
  struct planted {
    std::function<double(double, double)> f;
    std::string name;
  };
  const std::vector<planted> cases = {{[](double n, double) { return 50 + 0.8 * std::pow(n, 1.5); }, "n^1.5"},
                                      {[](double n, double) { return 20 + 3 * n * std::log2(n); }, "n^1*log2(n)^1"},
                                      {[](double n, double) { return 1000 + 40 * std::sqrt(n); }, "n^0.5"}};
  std::uint64_t seed = 3;
  for (const auto& c : cases) {
    observation_set s;
    std::mt19937_64 rng(seed++);
    add_points(s, cell_key("", "time_per_op", "ns", "custom"), {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, {1}, c.f,
               0.005, rng);
    const auto& m = only(fit_models(s));
    EXPECT_EQ(m.terms.back().name, c.name) << m.formula;
  }
}

// With the curvature rule on, three sizes cannot choose a curve however well it fits them;
// ten sizes of a planted n^1.5 still can, because it beats the straight line by far.
TEST(CellFitTest, CurvatureEarnsItsPlaceOnlyWithEnoughSizesWhenAsked) {
  fit_options o;
  o.curvature_min_distinct_n = 4;
  o.curvature_margin = 0.2;
  auto truth = [](double n, double) { return 50 + 0.8 * std::pow(n, 1.5); };
  std::mt19937_64 rng(11);
  observation_set three;
  add_points(three, cell_key("", "time_per_op", "ns", "custom"), {10, 100, 1000}, {1}, truth, 0.005, rng);
  const auto& m3 = only(fit_models(three, o));
  EXPECT_EQ(m3.formula.find("1.5"), std::string::npos) << m3.formula;
  bool told = false;
  for (const auto& r : m3.rivals) told |= r.note == "curvature needs points at 4 or more distinct n (3 here)";
  EXPECT_TRUE(told);
  observation_set ten;
  add_points(ten, cell_key("", "time_per_op", "ns", "custom"), {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, {1}, truth,
             0.005, rng);
  EXPECT_NE(only(fit_models(ten, o)).formula.find("n^1.5"), std::string::npos);
}

TEST(CellFitTest, PredictionIntervalsCoverHeldOutPointsAtLeast90Percent) {
  // Train on n <= 1000, predict 2x-4x beyond, many seeded replications.
  int covered = 0, total = 0;
  for (std::uint64_t seed = 100; seed < 260; ++seed) {
    observation_set s;
    std::mt19937_64 rng(seed);
    const auto truth = [](double n, double) { return 150 + 28 * n; };
    add_points(s, cell_key("poll"), small_ns, {1}, truth, 0.02, rng);
    const auto& m = only(fit_models(s));
    std::normal_distribution<double> e(0.0, 0.02);
    for (double n : {2000.0, 4000.0}) {
      const auto p = evaluate(m, point{n, 1, n / 2, 0});
      const double measured = truth(n, 1) * (1 + e(rng));
      ASSERT_TRUE(p.has_interval);
      ++total;
      covered += p.lo <= measured && measured <= p.hi;
    }
  }
  EXPECT_GE(covered, total * 90 / 100) << covered << " of " << total;
}

TEST(CellFitTest, WorkingSetStepIsPredictedFromSmallNOrCoveredByTheInterval) {
  // Planted 1.5 loads per fd past L2 (prior: 2): trained below the knee only, the
  // prediction at 16000 fds must be close and its interval must hold the truth.
  const auto dlat = [](double w) {
    return 9 * std::max(0.0, 1 - (1 << 20) / w) + 75 * std::max(0.0, 1 - (32 << 20) / w);
  };
  const auto truth = [&](double n, double) { return 170 + 30 * n + 1.5 * n * dlat(144 * n); };
  int covered = 0;
  for (std::uint64_t seed = 7; seed < 47; ++seed) {
    observation_set s;
    s.context = test::cache_context();
    std::mt19937_64 rng(seed);
    add_points(s, cell_key("poll"), small_ns, {1}, truth, 0.01, rng);
    const auto& m = only(fit_models(s));
    const auto p = evaluate(m, point{16000, 1, 8000, 0});
    EXPECT_NEAR(p.value / truth(16000, 1), 1.0, 0.10);
    EXPECT_TRUE(p.extrapolated);
    EXPECT_DOUBLE_EQ(p.extrapolation_factor, 16.0);
    covered += p.lo <= truth(16000, 1) && truth(16000, 1) <= p.hi;
  }
  EXPECT_GE(covered, 38);
  // A straight line (no cache geometry) misses the same point by more.
  observation_set plain;
  std::mt19937_64 rng(7);
  add_points(plain, cell_key("poll"), small_ns, {1}, truth, 0.01, rng);
  const auto line = evaluate(only(fit_models(plain)), point{16000, 1, 8000, 0});
  EXPECT_LT(line.value / truth(16000, 1), 0.85);
}

TEST(CellFitTest, EpollCtlModPredictsTheLapOfWatchedFdsFromSmallSets) {
  // epoll_ctl(MOD) cycling through n watched eventfds: planted 3 dependent misses a call
  // (the prior's mean) over 264 B a watched fd. Trained on sets of at most 1000 fds (264
  // KB, inside L2), the prediction for 400 000 (105 MB, past L3) must carry the step, and
  // its interval hold the truth.
  const auto dlat = [](double w) {
    return 9 * std::max(0.0, 1 - (1 << 20) / w) + 75 * std::max(0.0, 1 - (32 << 20) / w);
  };
  const auto truth = [&](double n, double) { return 1200 + 3 * dlat(264 * n); };
  auto key = cell_key("epoll", "mod", "ns", "interest_churn");
  key.fd_kind = "eventfd";
  int covered = 0;
  for (std::uint64_t seed = 7; seed < 47; ++seed) {
    observation_set s;
    s.context = test::cache_context();
    std::mt19937_64 rng(seed);
    add_points(s, key, small_ns, {1}, truth, 0.01, rng);
    const auto& m = only(fit_models(s));
    EXPECT_EQ(m.terms.back().name, "cycle_set");
    const auto p = evaluate(m, point{400000, 1, 200000, 0});
    EXPECT_NEAR(p.value / truth(400000, 1), 1.0, 0.05);
    covered += p.lo <= truth(400000, 1) && truth(400000, 1) <= p.hi;
  }
  EXPECT_GE(covered, 38);
  EXPECT_GT(truth(400000, 1) / truth(1000, 1), 1.13);  // what a flat fit would miss
}

TEST(CellFitTest, RatesAreModelledThroughTheirReciprocal) {
  observation_set s;
  std::mt19937_64 rng(4);
  add_points(
      s, cell_key("epoll", "throughput", "1/s", "token_ring"), small_ns, {1},
      [](double n, double) { return 1e9 / (3000 + 0.5 * n); }, 0.01, rng);
  const auto& m = only(fit_models(s));
  EXPECT_TRUE(m.reciprocal);
  EXPECT_EQ(m.terms[0].unit, "s");
  const auto p = evaluate(m, point{500, 1, 250, 0});
  EXPECT_NEAR(p.value, 1e9 / 3250, 1e9 / 3250 * 0.02);
  EXPECT_LT(p.lo, p.value);
  EXPECT_GT(p.hi, p.value);
}

TEST(CellFitTest, HuberKeepsAWildPointFromPullingTheFit) {
  observation_set s;
  std::mt19937_64 rng(5);
  add_points(
      s, cell_key("poll"), {1, 4, 16, 64, 128, 256, 384, 512, 768, 1000}, {1},
      [](double n, double) { return 150 + 28 * n; }, 0.003, rng);
  s.rows[6].value *= 1.6;  // a neighbour's build stole the CPU during one point
  const auto& m = only(fit_models(s));
  EXPECT_NEAR(m.terms[1].coefficient, 28, 0.5);
}

TEST(CellFitTest, BootstrapIsSeeded) {
  observation_set s;
  std::mt19937_64 rng(6);
  add_points(
      s, cell_key("poll"), small_ns, {1}, [](double n, double) { return 150 + 28 * n; }, 0.02, rng, 9);
  fit_options o;
  o.bootstrap_replicates = 200;
  o.seed = 42;
  const auto a = only(fit_models(s, o));
  const auto b = only(fit_models(s, o));
  o.seed = 43;
  const auto c = only(fit_models(s, o));
  ASSERT_EQ(a.bootstrap.rows(), 200);
  EXPECT_EQ(a.bootstrap, b.bootstrap);
  EXPECT_NE(a.bootstrap, c.bootstrap);
  const auto p = evaluate(a, point{2000, 1, 1000, 0});
  EXPECT_LT(p.lo, p.value);
  EXPECT_GT(p.hi, p.value);
  EXPECT_NEAR(p.value, 150 + 28 * 2000, 0.05 * (150 + 28 * 2000));
}

// The batches of one visit agree to 0.5% but the visits of a point disagree by ±15% (a
// host that flips between speeds): a bootstrap over the raw samples alone would be sure of
// itself; over the visits it carries the drift.
TEST(CellFitTest, BootstrapResamplesVisitsWhenThePointsHaveThem) {
  observation_set s;
  std::mt19937_64 rng(9);
  add_points(
      s, cell_key("poll"), small_ns, {1}, [](double n, double) { return 150 + 28 * n; }, 0.005, rng, 9);
  fit_options o;
  o.bootstrap_replicates = 400;
  const point far{2000, 1, 1000, 0};
  const auto samples_only = evaluate(only(fit_models(s, o)), far);
  std::uniform_real_distribution<double> u(-0.15, 0.15);
  for (auto& row : s.rows)
    for (int v = 0; v < 3; ++v) row.visit_medians.push_back(row.value * (1 + u(rng)));
  const auto with_visits = evaluate(only(fit_models(s, o)), far);
  EXPECT_GT(with_visits.hi - with_visits.lo, 2 * (samples_only.hi - samples_only.lo))
      << "[" << samples_only.lo << ", " << samples_only.hi << "] vs [" << with_visits.lo << ", " << with_visits.hi
      << "]";
}

// A cell measured at one point has no residuals, but its visits say what measuring again
// would read: the median's relative standard error se = √(π/2)·s/√R from the visits' log
// spread s, a new point within ±t(R−1)·√2·se. Without visits there is no interval.
TEST(CellFitTest, OnePointCellsTakeTheirIntervalFromTheirVisits) {
  observation_set s;
  std::mt19937_64 rng(10);
  add_points(
      s, cell_key("", "time_per_op", "ns", "handler"), {1}, {1}, [](double, double) { return 8000; }, 0, rng);
  const point at{1, 1, 0, 0};
  const auto bare = evaluate(only(fit_models(s)), at);
  EXPECT_FALSE(bare.has_interval);
  EXPECT_NE(bare.no_interval.find("too few points"), std::string::npos) << bare.no_interval;

  s.rows.front().visit_medians = {7600, 8000, 8800};
  const auto m = only(fit_models(s));
  const auto p = evaluate(m, at);
  ASSERT_TRUE(p.has_interval) << p.no_interval;
  EXPECT_EQ(m.stats.df, 2u);
  EXPECT_NE(m.stats.method.find("3 visits"), std::string::npos) << m.stats.method;
  const double l0 = std::log(7600), l1 = std::log(8000), l2 = std::log(8800), mean = (l0 + l1 + l2) / 3;
  const double sd = std::sqrt(((l0 - mean) * (l0 - mean) + (l1 - mean) * (l1 - mean) + (l2 - mean) * (l2 - mean)) / 2);
  const double se = std::sqrt(std::acos(-1.0) / 2) * sd / std::sqrt(3.0);
  EXPECT_NEAR(p.value, 8000, 1e-6);
  EXPECT_NEAR((p.hi - p.value) / p.value, 4.302652729911275 * std::sqrt(2.0) * se, 1e-6);
  EXPECT_NEAR(p.value - p.lo, p.hi - p.value, 1e-6);
  const auto away = evaluate(m, point{100, 1, 0, 0});  // nothing says how it moves with n
  EXPECT_FALSE(away.has_interval);
  EXPECT_NE(away.no_interval.find("one point"), std::string::npos) << away.no_interval;
}

TEST(CellFitTest, TooFewPointsForTheFormIsAnErrorNamingTheCell) {
  observation_set s;
  std::mt19937_64 rng(8);
  add_points(
      s, cell_key("poll"), {1000}, {1, 10}, [](double n, double) { return 150 + 28 * n; }, 0.01, rng);
  try {
    fit_models(s);
    FAIL();
  } catch (const too_few_points& e) {
    EXPECT_NE(std::string(e.what()).find("per_fd"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("synthetic:"), std::string::npos) << e.what();
  }
  fit_options o;
  o.skip_unfittable = true;
  add_points(
      s, cell_key("epoll"), {10, 100}, {1}, [](double, double) { return 250; }, 0.01, rng);
  const auto m = fit_models(s, o);
  EXPECT_EQ(m.cells.size(), 1u);
  EXPECT_EQ(m.skipped.size(), 1u);
}

TEST(CellFitTest, ZeroValuesAreRejectedNamingTheRow) {
  observation_set s;
  std::mt19937_64 rng(9);
  add_points(
      s, cell_key("poll"), small_ns, {1}, [](double n, double) { return 150 + 28 * n; }, 0.01, rng);
  s.rows[3].value = 0;
  try {
    fit_models(s);
    FAIL();
  } catch (const datasets::input_error& e) {
    EXPECT_NE(std::string(e.what()).find(s.rows[3].where), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pollscale::model
