// The simulator's costs drawn from a fitted model's intervals (studies/model_costs.hpp):
// each cell's draw lands at one point of its interval, its 2.5% and 97.5% points at the
// interval's ends, the same seed gives the same costs, and cells draw together as much as
// the model's drift says (independently without one).

#include "studies/model_costs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <vector>

#include "model/prediction.hpp"
#include "tests/model/synthetic.hpp"
#include "tests/studies/synthetic_model.hpp"

namespace pollscale::studies {
namespace {

TEST(ModelCostsTest, AnIntervalsEndsAreItsDrawsTwoAndAHalfPercentPoints) {
  constexpr double z975 = 1.959963984540054;
  EXPECT_DOUBLE_EQ(drawn_from_interval(100, 80, 150, 0), 100);
  EXPECT_NEAR(drawn_from_interval(100, 80, 150, z975), 150, 1e-9);
  EXPECT_NEAR(drawn_from_interval(100, 80, 150, -z975), 80, 1e-9);
  // A lower end clamped at 0 says nothing about the spread below: the upper side's is used.
  EXPECT_NEAR(drawn_from_interval(100, 0, 150, -z975), 100 * 100 / 150.0, 1e-9);
  EXPECT_GT(drawn_from_interval(100, 0, 150, -10), 0);  // never a negative cost
}

TEST(ModelCostsTest, CellDrawsAreStandardNormalAndIndependentBetweenCells) {
  const int draws = 20000;
  double sum = 0, sum2 = 0, cross = 0;
  for (int i = 0; i < draws; ++i) {
    const double a = cell_draw_z(static_cast<std::uint64_t>(i), "find_active/poll/-/pipe time_per_call");
    const double b = cell_draw_z(static_cast<std::uint64_t>(i), "handler/-/tcp time_per_op");
    sum += a;
    sum2 += a * a;
    cross += a * b;
  }
  EXPECT_NEAR(sum / draws, 0, 0.03);                    // se 0.007
  EXPECT_NEAR(sum2 / draws, 1, 0.05);                   // se 0.01
  EXPECT_NEAR(cross / draws, 0, 0.03);                  // independent cells: no correlation
  EXPECT_EQ(cell_draw_z(7, "x"), cell_draw_z(7, "x"));  // same seed, same draw
  EXPECT_NE(cell_draw_z(7, "x"), cell_draw_z(8, "x"));
}

// With a shared part, each cell's draw stays standard normal (so its interval is still
// reproduced) and any two cells correlate by the share; 0 gives the independent draws above.
TEST(ModelCostsTest, CellDrawsCorrelateByTheMachinesSharedDrift) {
  const int draws = 20000;
  for (const double shared : {0.0, 0.3, 0.7, 1.0}) {
    double sum = 0, sum2 = 0, cross = 0, b2 = 0;
    for (int i = 0; i < draws; ++i) {
      const double a = cell_draw_z(static_cast<std::uint64_t>(i), "find_active/poll/-/pipe time_per_call", shared);
      const double b = cell_draw_z(static_cast<std::uint64_t>(i), "handler/-/tcp time_per_op", shared);
      sum += a;
      sum2 += a * a;
      b2 += b * b;
      cross += a * b;
    }
    EXPECT_NEAR(sum / draws, 0, 0.03) << shared;
    EXPECT_NEAR(sum2 / draws, 1, 0.05) << shared;
    EXPECT_NEAR(b2 / draws, 1, 0.05) << shared;
    EXPECT_NEAR(cross / draws, shared, 0.03) << shared;  // se of the correlation about 0.01
  }
  EXPECT_EQ(cell_draw_z(7, "x", 0.0), cell_draw_z(7, "x"));
  EXPECT_EQ(cell_draw_z(7, "x", 0.5), cell_draw_z(7, "x", 0.5));  // same seed, same draw
}

// On a model fitted to the synthetic fixture: the drawn wait-call cost at n = 500 spreads
// over the model's 95% prediction interval there (its 2.5% and 97.5% points within a few
// percent of the interval's ends over 2000 draws), one draw moves the cell's whole curve
// (the same quantile at every n), and a draw is reproducible from its seed.
// A server of two threads or more pays what a scan pays more in a multi-threaded process:
// the model's timeout-0 call over pipes with a second thread minus the call alone, added to
// the call over the simulated fd kind (and to the rescan); one thread pays none of it, and a
// model without the two-thread cells leaves every call as it was and says so.
TEST(ModelCostsTest, AServerOfSeveralThreadsPaysTheLookupsReferences) {
  model::observation_set s;
  std::mt19937_64 rng(5);
  const auto alone = model::test::cell_key("poll");
  auto two = alone;
  two.threads = 2;
  two.pinning = "0+0";
  auto tcp = alone;
  tcp.fd_kind = "tcp";
  const std::vector<std::int64_t> ns = {1, 10, 100, 300, 1000};
  auto add = [&](const datasets::key& k, double fixed_ns, double per_fd_ns) {
    model::test::add_points(
        s, k, ns, {1}, [=](double n, double) { return fixed_ns + per_fd_ns * n; }, 0.002, rng);
  };
  add(alone, 150, 28);
  add(two, 175, 52);
  add(tcp, 200, 40);
  const auto with_two = std::make_shared<const model::model_set>(model::fit_models(s));
  auto prov = std::make_shared<cost_provenance>();
  const sim::cost_model c = costs_from_model(with_two, {"poll", "tcp", "", cost_bound::predicted, 0}, prov);
  sim::wait_query q{500, 1, false};
  EXPECT_NEAR(c.wait_call_s(q) * 1e9, 200 + 40 * 500, 0.01 * (200 + 40 * 500));
  q.process_threads = 4;
  const double extra_ns = (175 + 52 * 500) - (150 + 28 * 500);
  EXPECT_NEAR(c.wait_call_s(q) * 1e9, 200 + 40 * 500 + extra_ns, 0.01 * (200 + 40 * 500 + extra_ns));
  EXPECT_NEAR(c.rescan_s(q) * 1e9, 200 + 40 * 500 + extra_ns, 0.01 * (200 + 40 * 500 + extra_ns));
  EXPECT_EQ(prov->sources.value("fd_lookup", "").rfind("model: ", 0), 0u) << prov->sources.dump();
  // ppoll is poll's family; io_uring was not measured so.
  auto ppoll_prov = std::make_shared<cost_provenance>();
  auto ppoll = s;
  for (auto& o : ppoll.rows)
    if (o.k.fd_kind == "tcp") o.k.mechanism = "ppoll";
  const auto ppoll_model = std::make_shared<const model::model_set>(model::fit_models(ppoll));
  const sim::cost_model p = costs_from_model(ppoll_model, {"ppoll", "tcp", "", cost_bound::predicted, 0}, ppoll_prov);
  EXPECT_NEAR(p.wait_call_s(q) * 1e9, 200 + 40 * 500 + extra_ns, 0.01 * (200 + 40 * 500 + extra_ns));

  model::observation_set one_only;
  for (const auto& o : s.rows)
    if (o.k.threads == 1) one_only.rows.push_back(o);
  auto plain_prov = std::make_shared<cost_provenance>();
  const sim::cost_model plain = costs_from_model(std::make_shared<const model::model_set>(model::fit_models(one_only)),
                                                 {"poll", "tcp", "", cost_bound::predicted, 0}, plain_prov);
  EXPECT_NEAR(plain.wait_call_s(q) * 1e9, 200 + 40 * 500, 0.01 * (200 + 40 * 500));
  EXPECT_EQ(plain_prov->sources.value("fd_lookup", "").rfind("none: ", 0), 0u) << plain_prov->sources.dump();
}

TEST(ModelCostsTest, DrawnCostsSpanTheModelsPredictionInterval) {
  const auto models = std::make_shared<const model::model_set>(test::synthetic_model());
  const model::prediction p = model::to_si(model::predict(*models, test::poll_pipe_call(500)));
  ASSERT_TRUE(p.has_interval);
  const sim::wait_query at500{500, 1, false}, at50{50, 1, false};
  auto cost_of = [&](std::uint64_t seed) {
    return costs_from_model(models, {"poll", "pipe", "", cost_bound::drawn, seed}, std::make_shared<cost_provenance>());
  };
  std::vector<double> drawn;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) drawn.push_back(cost_of(seed).wait_call_s(at500));
  std::sort(drawn.begin(), drawn.end());
  EXPECT_NEAR(drawn[50] / p.lo, 1, 0.05) << p.lo;
  EXPECT_NEAR(drawn[1949] / p.hi, 1, 0.05) << p.hi;
  EXPECT_NEAR(drawn[1000] / p.value, 1, 0.03);

  const sim::cost_model one = cost_of(11), again = cost_of(11), other = cost_of(12);
  EXPECT_EQ(one.wait_call_s(at500), again.wait_call_s(at500));
  EXPECT_NE(one.wait_call_s(at500), other.wait_call_s(at500));
  // The same cell at another n: above its prediction there exactly when above it at 500.
  const double pred50 =
      costs_from_model(models, {"poll", "pipe", "", cost_bound::predicted, 0}, std::make_shared<cost_provenance>())
          .wait_call_s(at50);
  EXPECT_EQ(one.wait_call_s(at500) > p.value, one.wait_call_s(at50) > pred50);
}

// The model's drift moves different cells' draws together: poll's and select's wait calls
// (two cells) drawn with one seed correlate by the drift correlation, the provenance says
// by how much, and without a drift they are independent as before.
TEST(ModelCostsTest, CellsOfOneDrawMoveTogetherByTheModelsDrift) {
  auto correlation_of_draws = [](const model::model_set& fitted, std::optional<double>& reported) {
    const auto models = std::make_shared<const model::model_set>(fitted);
    const sim::wait_query at500{500, 1, false};
    auto log_move = [&](const std::string& mechanism, std::uint64_t seed, cost_bound bound) {
      auto prov = std::make_shared<cost_provenance>();
      const double v = costs_from_model(models, {mechanism, "pipe", "", bound, seed}, prov).wait_call_s(at500);
      if (bound == cost_bound::drawn) reported = prov->draw_correlation;
      return std::log(v);
    };
    const double poll0 = log_move("poll", 0, cost_bound::predicted),
                 select0 = log_move("select", 0, cost_bound::predicted);
    std::vector<double> a, b;
    for (std::uint64_t seed = 0; seed < 3000; ++seed) {
      a.push_back(log_move("poll", seed, cost_bound::drawn) - poll0);
      b.push_back(log_move("select", seed, cost_bound::drawn) - select0);
    }
    double agree = 0;  // the signs' concordance, as the drift itself is estimated
    for (std::size_t i = 0; i < a.size(); ++i) agree += (a[i] > 0) == (b[i] > 0) ? 1 : 0;
    return std::sin(std::numbers::pi * (agree / static_cast<double>(a.size()) - 0.5));
  };
  model::model_set fitted = test::synthetic_model();
  std::optional<double> reported;
  fitted.drift.reset();
  EXPECT_NEAR(correlation_of_draws(fitted, reported), 0, 0.06);
  EXPECT_FALSE(reported.has_value());
  fitted.drift = datasets::simultaneous_drift{0.6, 0.6, 1000, 300, 1.0};
  EXPECT_NEAR(correlation_of_draws(fitted, reported), 0.6, 0.06);
  ASSERT_TRUE(reported.has_value());
  EXPECT_DOUBLE_EQ(*reported, 0.6);
}

// The simulator's discrepancy (model_set::simulator_check) scales every model cost of one
// draw by one factor exp(log_sd·z): two cells' draws then differ from the model without it
// by the same factor, whose log is normal with that sd across draws; predicted costs and a
// model without a check are untouched.
TEST(ModelCostsTest, TheSimulatorsDiscrepancyScalesEveryCostOfADrawTogether) {
  model::model_set fitted = test::synthetic_model();
  fitted.drift.reset();
  const auto without = std::make_shared<const model::model_set>(fitted);
  fitted.simulator_check = model::simulator_discrepancy{0.2, 16, 0.15, 0.2, {"epoll", "poll"}};
  const auto with = std::make_shared<const model::model_set>(fitted);
  const sim::wait_query at500{500, 1, false};
  auto cost = [&](const std::shared_ptr<const model::model_set>& m, const std::string& mechanism, std::uint64_t seed,
                  cost_bound bound) {
    return costs_from_model(m, {mechanism, "pipe", "", bound, seed}, std::make_shared<cost_provenance>())
        .wait_call_s(at500);
  };
  double sum = 0, sum2 = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const auto seed = static_cast<std::uint64_t>(i);
    const double f_poll = cost(with, "poll", seed, cost_bound::drawn) / cost(without, "poll", seed, cost_bound::drawn);
    const double f_select =
        cost(with, "select", seed, cost_bound::drawn) / cost(without, "select", seed, cost_bound::drawn);
    ASSERT_NEAR(f_poll / f_select, 1, 1e-12);
    EXPECT_DOUBLE_EQ(f_poll, simulator_draw_factor(seed, fitted));
    sum += std::log(f_poll);
    sum2 += std::log(f_poll) * std::log(f_poll);
  }
  EXPECT_NEAR(sum / draws, 0, 0.02);                // se 0.003
  EXPECT_NEAR(std::sqrt(sum2 / draws), 0.2, 0.01);  // se 0.002
  EXPECT_EQ(cost(with, "poll", 3, cost_bound::predicted), cost(without, "poll", 3, cost_bound::predicted));
  EXPECT_EQ(simulator_draw_factor(3, *without), 1);
  auto prov = std::make_shared<cost_provenance>();
  costs_from_model(with, {"poll", "pipe", "", cost_bound::drawn, 1}, prov);
  ASSERT_TRUE(prov->simulator_discrepancy.has_value());
  EXPECT_EQ(prov->simulator_discrepancy->rows, 16u);
}

// The corpus's between-runs spread (model_set::between_runs) moves everything one draw's
// machine runs by exp(log_sd·z), independently of the simulator's discrepancy: model costs
// by the factor, the load generator through cost_model::machine_factor; its log is normal
// with that sd across draws and uncorrelated with the discrepancy's; predicted costs and a
// model without it are untouched, and the provenance names it.
TEST(ModelCostsTest, TheSpreadBetweenRunsMovesEachDrawsMachineByItsOwnFactor) {
  model::model_set fitted = test::synthetic_model();
  fitted.drift.reset();
  fitted.simulator_check = model::simulator_discrepancy{0.2, 16, 0.15, 0.2, {"epoll", "poll"}};
  const auto without = std::make_shared<const model::model_set>(fitted);
  fitted.between_runs = model::between_runs_spread{0.13, 576, 9, 8, "minutes", "2026-12-07", "b.json"};
  const auto with = std::make_shared<const model::model_set>(fitted);
  const sim::wait_query at500{500, 1, false};
  auto costs = [&](const std::shared_ptr<const model::model_set>& m, std::uint64_t seed, cost_bound bound) {
    return costs_from_model(m, {"poll", "pipe", "", bound, seed}, std::make_shared<cost_provenance>());
  };
  double sum2 = 0, cross = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const auto seed = static_cast<std::uint64_t>(i);
    const sim::cost_model a = costs(with, seed, cost_bound::drawn);
    const double f = a.wait_call_s(at500) / costs(without, seed, cost_bound::drawn).wait_call_s(at500);
    ASSERT_NEAR(f, machine_draw_factor(seed, fitted), 1e-12 * f);
    ASSERT_DOUBLE_EQ(a.machine_factor, f);
    sum2 += std::log(f) * std::log(f);
    cross += std::log(f) * std::log(simulator_draw_factor(seed, fitted));
  }
  EXPECT_NEAR(std::sqrt(sum2 / draws), 0.13, 0.0075);  // se 0.0015
  EXPECT_NEAR(cross / draws / (0.13 * 0.2), 0, 0.07);  // a correlation; se 0.016
  const sim::cost_model fixed = costs(with, 3, cost_bound::predicted);
  EXPECT_EQ(fixed.wait_call_s(at500), costs(without, 3, cost_bound::predicted).wait_call_s(at500));
  EXPECT_DOUBLE_EQ(fixed.machine_factor, 1);
  EXPECT_EQ(machine_draw_factor(3, *without), 1);
  auto prov = std::make_shared<cost_provenance>();
  costs_from_model(with, {"poll", "pipe", "", cost_bound::drawn, 1}, prov);
  ASSERT_TRUE(prov->between_runs.has_value());
  EXPECT_EQ(prov->between_runs->hosts, 8u);
}

// The corpus's capacity efficiency (model_set::efficiency) and the fitted run's CPUs
// (context cpus_online) give a cost model its width pricing: drawn, a standard normal of the
// draw's own per seed (the same seed, the same z; across draws normal, uncorrelated with the
// machine's factor); predicted costs take z = 0; without the efficiency or a CPU count, none;
// the model costs themselves are not moved (the width is the server's), and the provenance
// names it.
TEST(ModelCostsTest, AWiderServerThanTheFittedRunsMachineIsPricedByTheCorpussEfficiency) {
  model::model_set fitted = test::synthetic_model();
  fitted.between_runs = model::between_runs_spread{0.13, 576, 9, 8, "minutes", "2026-12-07", "b.json"};
  const auto without = std::make_shared<const model::model_set>(fitted);
  fitted.context["cpus_online"] = 2;
  model::capacity_efficiency e;
  e.log_mean = -0.038;
  e.log_sd = 0.04;
  e.rows = 109;
  e.runs = 19;
  e.hosts = 5;
  fitted.efficiency = e;
  const auto with = std::make_shared<const model::model_set>(fitted);
  const sim::wait_query at500{500, 1, false};
  double sum = 0, sum2 = 0, cross = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const auto seed = static_cast<std::uint64_t>(i);
    auto prov = std::make_shared<cost_provenance>();
    const sim::cost_model c = costs_from_model(with, {"poll", "pipe", "", cost_bound::drawn, seed}, prov);
    ASSERT_EQ(c.width.measured_cpus, 2);
    ASSERT_EQ(c.width.z, width_pricing(seed, true, fitted).z);
    ASSERT_EQ(c.wait_call_s(at500),
              costs_from_model(without, {"poll", "pipe", "", cost_bound::drawn, seed}, prov).wait_call_s(at500));
    sum += c.width.z;
    sum2 += c.width.z * c.width.z;
    cross += c.width.z * std::log(c.machine_factor) / 0.13;
  }
  EXPECT_NEAR(sum / draws, 0, 0.05);              // se 0.016
  EXPECT_NEAR(std::sqrt(sum2 / draws), 1, 0.05);  // se 0.011
  EXPECT_NEAR(cross / draws, 0, 0.07);            // a correlation; se 0.016
  auto prov = std::make_shared<cost_provenance>();
  const sim::cost_model fixed = costs_from_model(with, {"poll", "pipe", "", cost_bound::predicted, 3}, prov);
  EXPECT_EQ(fixed.width.z, 0);
  EXPECT_NEAR(fixed.width.time_factor(8), std::exp(0.038 * 2), 1e-12);
  ASSERT_TRUE(prov->capacity_efficiency.has_value());
  EXPECT_EQ(prov->measured_cpus, 2);
  EXPECT_EQ(costs_from_model(without, {"poll", "pipe", "", cost_bound::drawn, 3}, prov).width.measured_cpus, 0);
}

// A model fitted on a run whose host moved its two CPUs: poll's timeout-0 calls over pipes, the
// wakeup round trip on one CPU and across two, and the handler with its peer on the other CPU.
model::model_set placement_model(std::optional<datasets::placement_states> placement) {
  model::observation_set s;
  std::mt19937_64 rng(9);
  model::test::add_points(
      s, model::test::cell_key("poll"), {1, 10, 100, 1000}, {1}, [](double n, double) { return 150 + 28 * n; }, 0.002,
      rng, 20);
  for (const char* pinning : {"0+0", "0+1"}) {
    datasets::key w = model::test::cell_key("poll", "round_trip", "ns", "wakeup");
    w.blocking = 1;
    w.threads = 2;
    w.pinning = pinning;
    w.cpus = std::string(pinning) == "0+0" ? 1 : 2;
    const double rt = std::string(pinning) == "0+0" ? 5000 : 32000;
    model::test::add_points(
        s, w, {1, 10, 100, 1000}, {1}, [=](double n, double) { return rt + 2 * n; }, 0.002, rng, 20);
  }
  model::observation h;
  h.k = model::test::cell_key("", "time_per_op", "ns", "handler");
  h.k.threads = 2;
  h.k.cpus = 2;
  h.k.pinning = "0+1";
  h.value = 4500;
  h.samples.assign(20, 4500);
  h.where = "planted:1";
  s.rows.push_back(h);
  s.placement = placement;
  return model::fit_models(s);
}

// A drawn cost model of such a run meets the far placement as often as the run did, and
// there (and only there) its cross-CPU costs — the wake-up across CPUs, the handler whose
// peer ran on the other CPU, and through cross_cpu_factor the load generator's — cost
// far_over_near times what they cost in the run's usual placement; same-CPU costs, the
// predictions and a model without placements are untouched. When the run was mostly far,
// the near draws are the cheaper ones.
TEST(ModelCostsTest, EachDrawMeetsOnePlacementAndPricesWhatCrossesTheCpusInIt) {
  const datasets::placement_states mostly_near{130, 0.7, 1.4, 300, 100};
  const auto with = std::make_shared<const model::model_set>(placement_model(mostly_near));
  const auto without = std::make_shared<const model::model_set>(placement_model(std::nullopt));
  auto costs = [](const std::shared_ptr<const model::model_set>& m, cost_bound bound, std::uint64_t seed,
                  const std::shared_ptr<cost_provenance>& prov) {
    return costs_from_model(m, {"poll", "pipe", "", bound, seed}, prov);
  };
  const auto prov = std::make_shared<cost_provenance>();
  const sim::wait_query q{100, 1, false};
  int far = 0;
  const int draws = 2000;
  for (int i = 0; i < draws; ++i) {
    const auto seed = static_cast<std::uint64_t>(i);
    const sim::cost_model a = costs(with, cost_bound::drawn, seed, prov);
    const sim::cost_model b = costs(without, cost_bound::drawn, seed, std::make_shared<cost_provenance>());
    const bool is_far = placement_far_draw(seed, mostly_near);
    far += is_far ? 1 : 0;
    const double f = is_far ? 1.4 : 1.0;
    ASSERT_DOUBLE_EQ(a.cross_cpu_factor, f);
    ASSERT_NEAR(a.wakeup_cross_cpu_s / b.wakeup_cross_cpu_s, f, 1e-12);
    ASSERT_NEAR(a.handler_s / b.handler_s, f, 1e-12);
    ASSERT_DOUBLE_EQ(a.wakeup_same_cpu_s, b.wakeup_same_cpu_s);
    ASSERT_DOUBLE_EQ(a.wait_call_s(q), b.wait_call_s(q));
    EXPECT_DOUBLE_EQ(b.cross_cpu_factor, 1);
  }
  EXPECT_NEAR(static_cast<double>(far) / draws, 0.3, 0.035);  // se 0.010
  ASSERT_TRUE(prov->placement.has_value());
  EXPECT_EQ(prov->placement_draws, static_cast<std::size_t>(draws));
  EXPECT_EQ(prov->placement_far_draws, static_cast<std::size_t>(far));

  const auto fixed_prov = std::make_shared<cost_provenance>();
  const sim::cost_model fixed = costs(with, cost_bound::predicted, 0, fixed_prov);
  EXPECT_NEAR(fixed.wakeup_cross_cpu_s, 16e-6, 16e-6 * 0.01);
  EXPECT_NEAR(fixed.handler_s, 4.5e-6, 4.5e-6 * 0.01);
  EXPECT_DOUBLE_EQ(fixed.cross_cpu_factor, 1);
  EXPECT_FALSE(fixed_prov->placement.has_value());

  // Near or far of a model that knows one placement: refused, naming the placement.
  try {
    costs_from_model(without, {"poll", "pipe", "", cost_bound::predicted, 0, true, placement_choice::far},
                     std::make_shared<cost_provenance>());
    ADD_FAILURE() << "placement far of a model without placements was priced";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("placement far: the model knows one placement", 0), 0u) << e.what();
  }
  EXPECT_EQ(placement_unavailable(*with, placement_choice::far), "");
  EXPECT_EQ(placement_unavailable(*without, placement_choice::usual), "");

  datasets::placement_states mostly_far = mostly_near;
  mostly_far.near_share = 0.3;
  const auto far_model = std::make_shared<const model::model_set>(placement_model(mostly_far));
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const sim::cost_model a = costs(far_model, cost_bound::drawn, seed, std::make_shared<cost_provenance>());
    const sim::cost_model b = costs(without, cost_bound::drawn, seed, std::make_shared<cost_provenance>());
    const double f = placement_far_draw(seed, mostly_far) ? 1.0 : 1 / 1.4;
    ASSERT_NEAR(a.wakeup_cross_cpu_s / b.wakeup_cross_cpu_s, f, 1e-12);
    ASSERT_NEAR(a.handler_s / b.handler_s, f, 1e-12);
  }
}
}  // namespace
}  // namespace pollscale::studies
