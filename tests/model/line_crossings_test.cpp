// Cache lines that cross CPUs (model/line_crossings.hpp): a shared_epoll ring with a token for
// every thread, measured on one CPU, answers two CPUs by the capacity bound less the six lines
// a pass moves across half the time, priced at the cache_line probe's round trip — planted
// two-CPU rows recovered, an upper bound beyond two, the interval [0, the bound's hi], nothing
// for experiments without shared lines, a missing line said by name, model.json round trip.

#include "model/line_crossings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/cpu_scaling.hpp"
#include "model/model_json.hpp"
#include "model/scaling.hpp"
#include "model/scaling_wider.hpp"
#include "tests/model/model_json_refusals.hpp"
#include "tests/model/round_trip_rows.hpp"
#include "tests/model/shared_epoll_rows.hpp"

namespace pollscale::model {
namespace {

constexpr double ring_pass_s = 1e-6, ring_line_ns = 50;

// One CPU's rate at T threads: about 1 µs a pass, ±1% alternating so that the law's interval is
// not a point.
double ring_rate_on_one_cpu(std::int64_t t) { return (t % 2 ? 1.01 : 0.99) / ring_pass_s; }

// What C CPUs pass when each pass's six lines cross (C - 1)/C of the time.
double ring_rate_crossed(std::int64_t t, std::int64_t c) {
  const double cc = static_cast<double>(c);
  return cc / (1 / ring_rate_on_one_cpu(t) + 6 * (cc - 1) / cc * ring_line_ns * 1e-9);
}

// A ring of `variant` with a token for every thread: the one-CPU series T = 1..4, the two-CPU
// series at the planted crossings when `two`, the cache line when `line`.
observation_set token_ring_rows(datasets::variant v, bool two, bool line) {
  observation_set s;
  s.source = "planted ring";
  for (std::int64_t t : {1, 2, 3, 4}) {
    s.rows.push_back(test::ring_row(t, 1, t, datasets::metric::throughput, "1/s", ring_rate_on_one_cpu(t)));
    if (two && t >= 2)
      s.rows.push_back(test::ring_row(t, 2, t, datasets::metric::throughput, "1/s", ring_rate_crossed(t, 2)));
  }
  for (auto& o : s.rows) o.k.variant = std::string(datasets::name(v));
  if (line) s.rows.push_back(test::cache_line_at(ring_line_ns));
  return s;
}

wider_result wider_from_one_cpu(const observation_set& data) {
  wider_protocol p;
  p.from_cpus = 1;
  p.cpus = {4};
  p.at = {4};
  return predict_wider(data, p);
}

TEST(LineCrossingsTest, EachPassAddsItsLinesTimesTheShareThatCrosses) {
  const crossing_charge x{6, 50e-9, "the cache_line probe"};
  EXPECT_DOUBLE_EQ(x.added_s(1), 0);
  EXPECT_NEAR(x.added_s(2), 150e-9, 1e-18);
  EXPECT_NEAR(x.added_s(4), 225e-9, 1e-18);
  EXPECT_NEAR(x.crossed(2e6, 2, 1), 2 / (1e-6 + 150e-9), 1e-6);
  EXPECT_NEAR(x.crossed(2e3, 2, 1e3), 2 / (1e-3 + 150e-9 * 1e3), 1e-9);  // a rate in 1/ms
  EXPECT_DOUBLE_EQ(x.crossed(0, 2, 1), 0);
  EXPECT_TRUE(std::isinf(x.crossed(INFINITY, 2, 1)));
  for (auto v : {datasets::variant::lt, datasets::variant::oneshot, datasets::variant::exclusive}) {
    datasets::key k = test::ring_row(2, 1, 2, datasets::metric::throughput, "1/s", 1).k;
    k.variant = std::string(datasets::name(v));
    k.n_active.reset();  // the experiment's key: a token for every thread
    EXPECT_EQ(shared_lines(k), 6) << k.variant;
    k.n_active = 1;  // one token: one operation in flight, the chain's
    EXPECT_EQ(shared_lines(k), 0) << k.variant;
  }
  datasets::key other;
  other.scenario = std::string(datasets::name(datasets::scenario::private_sets));
  EXPECT_EQ(shared_lines(other), 0);
  other.scenario = std::string(datasets::name(datasets::scenario::producers));
  EXPECT_EQ(shared_lines(other), 0);
  std::string note;
  EXPECT_FALSE(crossings_of(other, line_estimate{50e-9, NAN}, std::nullopt, note));
  EXPECT_EQ(note, "");
}

TEST(LineCrossingsTest, WhereTheHostMovedTheCpusTheLineIsTheUsualPlacements) {
  datasets::key ring_key = test::ring_row(2, 1, 2, datasets::metric::throughput, "1/s", 1).k;
  ring_key.n_active.reset();
  std::string note;
  const line_estimate probe{364e-9, NAN};  // its visits met the far placement
  const auto alone = crossings_of(ring_key, probe, std::nullopt, note);
  ASSERT_TRUE(alone);
  EXPECT_DOUBLE_EQ(alone->line_s, 364e-9);  // the placement did not move: the probe's point
  EXPECT_EQ(alone->line_from, "the cache_line probe");
  datasets::placement_states moved;
  moved.split_ns = 150;
  moved.near_share = 0.55;
  moved.near_line_ns = 55;
  moved.far_line_ns = 380;
  const auto near = crossings_of(ring_key, probe, moved, note);
  ASSERT_TRUE(near);
  EXPECT_NEAR(near->line_s, 55e-9, 1e-18);
  EXPECT_EQ(near->line_from, "the placement sentinel, near state");
  moved.near_share = 0.3;
  EXPECT_NEAR(crossings_of(ring_key, probe, moved, note)->line_s, 380e-9, 1e-18);
  moved.near_line_ns = moved.far_line_ns = NAN;  // read back from a model.json: not kept
  EXPECT_DOUBLE_EQ(crossings_of(ring_key, probe, moved, note)->line_s, 364e-9);
  EXPECT_FALSE(crossings_of(ring_key, std::nullopt, moved, note));  // no cache_line row: none
}

TEST(LineCrossingsTest, FromOneCpuTheTwoCpuRowsAreTheBoundLessTheCrossings) {
  for (auto v : {datasets::variant::lt, datasets::variant::oneshot, datasets::variant::exclusive}) {
    const observation_set data = token_ring_rows(v, true, true);  // the result points into its rows
    const wider_result r = wider_from_one_cpu(data);
    ASSERT_EQ(r.families.size(), 1u);
    const auto& f = r.families[0];
    ASSERT_TRUE(f.crossings) << f.crossings_note;
    EXPECT_EQ(f.crossings->lines, 6);
    EXPECT_NE(f.caveat.find("line crossings"), std::string::npos) << f.caveat;
    ASSERT_EQ(f.series.size(), 2u);  // the two CPUs measured, then the four asked
    const auto& two = f.series[0];
    ASSERT_EQ(two.rows.size(), 3u);
    for (std::size_t i = 0; i < two.rows.size(); ++i) {
      const auto& row = two.rows[i];
      const auto t = static_cast<std::int64_t>(*scaling_axis(*row.o));
      EXPECT_EQ(two.row_limit[i], wider_limit::line_crossings) << "T = " << t;
      EXPECT_FALSE(two.row_upper_bound[i]);                   // a prediction on two CPUs
      EXPECT_LT(std::abs(row.rel_err), 0.02) << "T = " << t;  // the planted crossings, within the law's ±1%
      ASSERT_TRUE(row.has_interval);
      EXPECT_DOUBLE_EQ(row.lo, 0);  // a lock wait one CPU cannot show only takes away
      const scaling_prediction bound = predict_scaling(*f.capacity_fit, static_cast<double>(t));
      EXPECT_NEAR(row.hi / (2 * bound.hi), 1, 1e-12);  // no higher than the capacity bound's end
      EXPECT_NEAR(row.predicted / (2 / (1 / bound.value + 150e-9)), 1, 1e-12);
    }
    // Wider: the same charge, (C - 1)/C of it, and a ceiling (the lock waits grow with C).
    const auto& four = f.series[1];
    ASSERT_EQ(four.at.size(), 1u);
    EXPECT_EQ(four.at_limit[0], wider_limit::line_crossings);
    EXPECT_TRUE(four.at[0].second.upper_bound);
    const double bound4 = 4 * predict_scaling(*f.capacity_fit, 4).value;
    EXPECT_NEAR(four.at[0].second.value / (4 / (4 / bound4 + 6 * 0.75 * 50e-9)), 1, 1e-12);
  }
}

TEST(LineCrossingsTest, WithoutTheLineOrTheSharedLinesTheBoundAnswersAsBefore) {
  const observation_set no_line = token_ring_rows(datasets::variant::lt, true, false);
  const wider_result without = wider_from_one_cpu(no_line);
  const auto& f = without.families[0];
  EXPECT_FALSE(f.crossings);
  EXPECT_NE(f.crossings_note.find("cache_line"), std::string::npos) << f.crossings_note;
  for (std::size_t i = 0; i < f.series[0].rows.size(); ++i) {
    EXPECT_NE(f.series[0].row_limit[i], wider_limit::line_crossings);
    EXPECT_TRUE(f.series[0].row_upper_bound[i]);  // the serial stage unseen: a ceiling, as before
    EXPECT_GT(f.series[0].rows[i].rel_err, 0.1);  // 2 X1 over the planted 2/(1/X1 + 3 L)
  }
  // A series of two CPUs that trained paid its crossings: the serial stage answers wider.
  wider_protocol p;
  p.from_cpus = 2;
  p.cpus = {4};
  const observation_set both = token_ring_rows(datasets::variant::lt, true, true);
  const wider_result trained = predict_wider(both, p);
  EXPECT_FALSE(trained.families[0].crossings);
  EXPECT_EQ(trained.families[0].crossings_note, "");
  // One token: one operation in flight, which the chain answers, not the crossings.
  observation_set one_token = token_ring_rows(datasets::variant::lt, true, true);
  for (auto& o : one_token.rows)
    if (o.k.scenario == datasets::scenario::shared_epoll) o.k.n_active = 1;
  for (const auto& fam : wider_from_one_cpu(one_token).families) EXPECT_FALSE(fam.crossings);
}

TEST(LineCrossingsTest, AModelsLawsKeepTheCrossingsThroughModelJson) {
  model_set m;
  m.source = "planted";
  m.cpu_scaling = fit_cpu_scaling(token_ring_rows(datasets::variant::lt, false, true));  // one CPU measured
  ASSERT_EQ(m.cpu_scaling.size(), 1u);
  ASSERT_TRUE(m.cpu_scaling[0].crossings);
  const nlohmann::json j = to_json(m);
  const model_set back = model_set_from_json(nlohmann::json::parse(j.dump()), "m.json");
  ASSERT_TRUE(back.cpu_scaling[0].crossings);
  EXPECT_EQ(back.cpu_scaling[0].crossings->lines, 6);
  for (std::int64_t c : {2, 16}) {
    const double t = c == 2 ? 3 : 24;  // more threads than CPUs: fewer, and each its own CPU's law answers
    wider_limit la{}, lb{};
    const auto a = predict_cpu_scaling(m.cpu_scaling[0], c, t, la);
    const auto b = predict_cpu_scaling(back.cpu_scaling[0], c, t, lb);
    EXPECT_DOUBLE_EQ(b.value, a.value);
    EXPECT_EQ(la, wider_limit::line_crossings);
    EXPECT_EQ(lb, la);
    EXPECT_EQ(a.upper_bound, c > 2);
  }
  test::expect_each_block_refused(j, "line_crossings",
                                  {nlohmann::json("six"), nlohmann::json{{"lines", 0}, {"line_s", 5e-8}},
                                   nlohmann::json{{"lines", 6}, {"line_s", -1}},
                                   nlohmann::json{{"lines", 6.5}, {"line_s", 1}}, nlohmann::json{{"lines", 6}}},
                                  "line_crossings");
  nlohmann::json older = j;
  older["cpu_scaling"][0].erase("line_crossings");  // written before the crossings: none
  EXPECT_FALSE(model_set_from_json(older, "o.json").cpu_scaling[0].crossings);
}

}  // namespace
}  // namespace pollscale::model
