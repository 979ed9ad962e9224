#include "model/prediction.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "model/fit.hpp"
#include "tests/model/synthetic.hpp"

namespace pollscale::model {
namespace {

model_set two_kinds() {
  observation_set s;
  std::mt19937_64 rng(1);
  auto pipe = test::cell_key("poll");
  auto efd = pipe;
  efd.fd_kind = "eventfd";
  test::add_points(
      s, pipe, {1, 10, 100, 300, 1000}, {1}, [](double n, double) { return 150 + 30 * n; }, 0.01, rng);
  test::add_points(
      s, efd, {1, 10, 100, 300, 1000}, {1}, [](double n, double) { return 140 + 28 * n; }, 0.01, rng);
  test::add_points(
      s, test::cell_key("epoll", "throughput", "1/s", "token_ring"), {10, 100, 1000}, {1},
      [](double, double) { return 280000.0; }, 0.01, rng);
  return fit_models(s);
}

datasets::key query(const std::string& mechanism, const std::string& kind, std::int64_t n) {
  datasets::key q;
  q.scenario = "find_active";
  q.mechanism = mechanism;
  q.fd_kind = kind;
  q.n_fds = n;
  return q;
}

TEST(PredictionTest, PredictsWithAnIntervalAndTheExtrapolationFactor) {
  const auto m = two_kinds();
  const auto p = predict(m, query("poll", "pipe", 500));
  EXPECT_NEAR(p.value, 150 + 30 * 500, 0.02 * (150 + 30 * 500));
  EXPECT_TRUE(p.has_interval);
  EXPECT_LT(p.lo, p.value);
  EXPECT_GT(p.hi, p.value);
  EXPECT_FALSE(p.extrapolated);
  EXPECT_DOUBLE_EQ(p.extrapolation_factor, 0.5);
  EXPECT_EQ(p.unit, "ns");
  const auto far = predict(m, query("poll", "pipe", 100000));
  EXPECT_TRUE(far.extrapolated);
  EXPECT_DOUBLE_EQ(far.extrapolation_factor, 100);
  EXPECT_GT(far.hi - far.lo, (p.hi - p.lo) * 10);  // wider far away
  EXPECT_NE(far.formula.find("per_fd"), std::string::npos);
  EXPECT_TRUE(far.no_interval.empty());
  // The data span n = 1..1000 (1000x): an interval is given up to 1000x past n = 1000 and
  // not beyond, where the prediction stands alone and says why.
  const auto beyond = predict(m, query("poll", "pipe", 2'000'000));
  EXPECT_FALSE(beyond.has_interval);
  EXPECT_TRUE(std::isnan(beyond.lo) && std::isnan(beyond.hi));
  EXPECT_NEAR(beyond.value, 150 + 30 * 2e6, 0.02 * (150 + 30 * 2e6));
  EXPECT_EQ(beyond.no_interval,
            "extrapolated 2e+03x past the largest measured n, further than the data spans (1e+03x)");
}

TEST(PredictionTest, AmbiguousQueriesNameTheColumnsThatTellModelsApart) {
  const auto m = two_kinds();
  try {
    predict(m, query("poll", "", 500));
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("fd_kind"), std::string::npos) << w;
    EXPECT_NE(w.find("eventfd"), std::string::npos) << w;
  }
  EXPECT_THROW(predict(m, query("select", "pipe", 500)), std::invalid_argument);  // no such model
  EXPECT_THROW(predict(m, datasets::key{}), std::invalid_argument);               // matches all three
  auto no_n = query("poll", "pipe", 1);
  no_n.n_fds.reset();
  EXPECT_THROW(predict(m, no_n), std::invalid_argument);  // the model needs n
  EXPECT_EQ(matching_models(m, query("poll", "", 1)).size(), 2u);
}

// A timeout-0 call measured in a process of one thread and of two (the second parked, so
// every fd lookup takes a reference): asked without threads, the one-thread cell answers;
// threads 2 asks for the other. Cells that are not all timeout-0 calls stay ambiguous.
TEST(PredictionTest, ATimeoutZeroCallWithoutThreadsIsTheSingleThreadedOne) {
  observation_set s;
  std::mt19937_64 rng(3);
  const auto alone = test::cell_key("poll");
  auto shared = alone;
  shared.threads = 2;
  shared.pinning = "0+0";
  auto blocking = alone;
  blocking.metric = "time_per_op";
  blocking.blocking = 1;
  auto woken = blocking;
  woken.threads = 2;
  woken.pinning = "0+0";
  const std::vector<std::int64_t> ns = {1, 10, 100, 300, 1000};
  test::add_points(
      s, alone, ns, {1}, [](double n, double) { return 150 + 28 * n; }, 0.01, rng);
  test::add_points(
      s, shared, ns, {1}, [](double n, double) { return 175 + 52 * n; }, 0.01, rng);
  test::add_points(
      s, blocking, ns, {1}, [](double n, double) { return 900 + 120 * n; }, 0.01, rng);
  test::add_points(
      s, woken, ns, {1}, [](double n, double) { return 12000 + 150 * n; }, 0.01, rng);
  const auto m = fit_models(s);

  auto q = query("poll", "pipe", 500);
  q.blocking = 0;
  const auto one = find_cell(m, q);
  ASSERT_NE(one.model, nullptr);
  EXPECT_EQ(one.model->cell.threads, 1);
  EXPECT_NEAR(predict(m, q).value, 150 + 28 * 500, 0.03 * (150 + 28 * 500));
  q.threads = 2;
  const auto two = find_cell(m, q);
  ASSERT_NE(two.model, nullptr);
  EXPECT_EQ(two.model->cell.pinning, "0+0");
  EXPECT_NEAR(predict(m, q).value, 175 + 52 * 500, 0.03 * (175 + 52 * 500));

  // Without blocking, calls and blocking cycles match: nothing is chosen for the user.
  EXPECT_EQ(find_cell(m, query("poll", "pipe", 500)).ambiguous.size(), 4u);
  auto b = query("poll", "pipe", 500);
  b.blocking = 1;
  EXPECT_EQ(find_cell(m, b).ambiguous.size(), 2u);  // ready at entry or woken: the user says
}

TEST(PredictionTest, LookupIsAValueThatNamesTheNearestCells) {
  const auto m = two_kinds();
  const auto one = find_cell(m, query("poll", "pipe", 10));
  ASSERT_NE(one.model, nullptr);
  EXPECT_EQ(one.model->cell.fd_kind, "pipe");
  EXPECT_TRUE(one.why(query("poll", "pipe", 10)).empty());

  const auto two = find_cell(m, query("poll", "", 10));
  EXPECT_EQ(two.model, nullptr);
  EXPECT_EQ(two.ambiguous.size(), 2u);
  EXPECT_NE(two.why(query("poll", "", 10)).find("2 models match"), std::string::npos);

  // select/tcp: no cell; poll/pipe and poll/eventfd differ in two filled columns, and
  // epoll's token ring in three; the two nearest are listed with their differences.
  const auto q = query("select", "tcp", 10);
  const auto none = find_cell(m, q);
  EXPECT_EQ(none.model, nullptr);
  ASSERT_EQ(none.nearest.size(), 2u);
  ASSERT_EQ(none.nearest_difference.size(), 2u);
  EXPECT_EQ(none.nearest_difference[0], "mechanism poll, fd_kind eventfd");
  EXPECT_EQ(none.nearest_difference[1], "mechanism poll, fd_kind pipe");
  const std::string why = none.why(q);
  EXPECT_EQ(why.rfind("no model matches find_active/select/tcp n=10", 0), 0u) << why;
  EXPECT_NE(why.find("; nearest: find_active/poll/eventfd"), std::string::npos) << why;
  EXPECT_NE(why.find("(mechanism poll, fd_kind pipe)"), std::string::npos) << why;

  // try_predict: the same reasons, no exception; predict() throws them.
  std::string reason;
  EXPECT_FALSE(try_predict(m, q, &reason).has_value());
  EXPECT_EQ(reason, why);
  EXPECT_FALSE(try_predict(m, q).has_value());  // the reason is optional
  try {
    predict(m, q);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), why);
  }
  auto no_n = query("poll", "pipe", 1);
  no_n.n_fds.reset();
  EXPECT_FALSE(try_predict(m, no_n, &reason).has_value());
  EXPECT_NE(reason.find("needs n_fds"), std::string::npos) << reason;
  const auto fine = try_predict(m, query("poll", "pipe", 500), &reason);
  ASSERT_TRUE(fine.has_value());
  EXPECT_DOUBLE_EQ(fine->value, predict(m, query("poll", "pipe", 500)).value);
}

TEST(PredictionTest, RatesComeBackAsRatesAndConvertToSi) {
  const auto m = two_kinds();
  datasets::key q;
  q.scenario = "token_ring";
  q.n_fds = 5000;
  const auto p = predict(m, q);
  EXPECT_EQ(p.unit, "1/s");
  EXPECT_NEAR(p.value, 280000, 280000 * 0.02);
  EXPECT_LE(p.lo, p.value);
  EXPECT_GE(p.hi, p.value);
  const auto t = to_si(predict(m, query("poll", "pipe", 1000)));
  EXPECT_EQ(t.unit, "s");
  EXPECT_NEAR(t.value, 30150e-9, 30150e-9 * 0.02);
}

}  // namespace
}  // namespace pollscale::model
