// One producer beside its consumer (model/producer_pipeline.hpp): the one-CPU series splits
// into the planted write and consumer's share, the pipeline's rate is the slower stage with
// the cache line paid, `scale --from-cpus 1` answers one producer on two CPUs from it (and
// two or more from the capacity bound, as before), predict --cpus answers the same from a
// model's laws after model.json, and a missing part says which.

#include "model/producer_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/cpu_scaling.hpp"
#include "model/model_json.hpp"
#include "model/scaling.hpp"
#include "model/scaling_wider.hpp"
#include "tests/model/model_json_refusals.hpp"
#include "tests/model/producers_rows.hpp"
#include "tests/model/round_trip_rows.hpp"

namespace pollscale::model {
namespace {

using test::producers_row;

constexpr double planted_write_s = 1.2e-6, planted_consumer_s = 1.0e-6, planted_line_ns = 400;

// What one CPU measures when an event costs a write and the consumer's share a/T.
double one_cpu_pipeline_rate(std::int64_t t) {
  return 1 / (planted_write_s + planted_consumer_s / static_cast<double>(t));
}

using test::cache_line_at;

// The split of a one-CPU series as measured (no switches counted).
std::optional<pipeline_fit> fit_measured(const std::vector<std::pair<double, double>>& t_rate,
                                         const line_estimate& line, std::string& note) {
  std::vector<one_cpu_row> rows;
  for (const auto& [t, x] : t_rate) rows.push_back({t, x});
  return fit_pipeline(rows, line, std::nullopt, note);
}

// A one-CPU producers series (T = 1..8), its two-CPU series measured at `two` (or not at
// all), and the cache line when `line`.
observation_set one_cpu_series(bool line, double two = NAN) {
  observation_set s;
  s.source = "planted one-CPU series";
  for (std::int64_t t : {1, 2, 3, 4, 6, 8}) {
    s.rows.push_back(producers_row(t, 1, one_cpu_pipeline_rate(t)));
    if (!std::isnan(two)) s.rows.push_back(producers_row(t, 2, two));
  }
  if (line) s.rows.push_back(cache_line_at(planted_line_ns));
  return s;
}

TEST(ProducerPipelineTest, TheOneCpuSeriesSplitsIntoTheWriteAndTheConsumersShare) {
  std::vector<std::pair<double, double>> t_rate;
  for (std::int64_t t : {1, 2, 4, 8}) t_rate.emplace_back(static_cast<double>(t), one_cpu_pipeline_rate(t));
  std::string note;
  const auto f = fit_measured(t_rate, line_estimate{planted_line_ns * 1e-9}, note);
  ASSERT_TRUE(f) << note;
  EXPECT_NEAR(f->write_s / planted_write_s, 1, 1e-9);
  EXPECT_NEAR(f->consumer_s / planted_consumer_s, 1, 1e-9);
  // The slower stage, each paying the line: the write here (1.2 µs + 0.4 µs).
  EXPECT_NEAR(f->rate(), 1 / (planted_write_s + planted_line_ns * 1e-9), 1e-6);
  // Refused, each saying why: one T, a rate that is not > 0, a consumer's share that grows with T.
  EXPECT_FALSE(fit_measured({{2, 5e5}, {2, 5.1e5}}, line_estimate{4e-7}, note));
  EXPECT_NE(note.find("fewer than two"), std::string::npos) << note;
  EXPECT_FALSE(fit_measured({{1, 5e5}, {2, -1}}, line_estimate{4e-7}, note));
  EXPECT_FALSE(fit_measured({{1, 5e5}, {2, NAN}}, line_estimate{4e-7}, note));
  EXPECT_FALSE(fit_measured({{1, 8e5}, {4, 4e5}}, line_estimate{4e-7}, note));
  EXPECT_NE(note.find("does not split"), std::string::npos) << note;
  EXPECT_FALSE(fit_measured(t_rate, line_estimate{NAN}, note));
}

TEST(ProducerPipelineTest, BothCpusBusyChargeTheLineOnEveryEvent) {
  const pipeline_fit f{planted_write_s, planted_consumer_s, planted_line_ns * 1e-9};
  // Solved by hand: the second CPU writes at 1/(w + L); the first shares its time between
  // the consumer's a/T + L an event and its own producers' w an event.
  for (double t : {2.0, 4.0, 8.0}) {
    const double x = f.both_busy_rate(t);
    const double second = 1 / (planted_write_s + planted_line_ns * 1e-9);
    const double first_busy = x * (planted_consumer_s / t + planted_line_ns * 1e-9) + (x - second) * planted_write_s;
    EXPECT_NEAR(first_busy, 1, 1e-9) << t;
  }
  EXPECT_LT(f.both_busy_rate(2), f.both_busy_rate(8));  // the consumer's share shrinks with T
}

// One CPU where the consumer also sleeps h(T) times an event, each sleep a same-CPU hand-off
// of planted_switch_s (the ninth host's parts and counts, rounded: a write of 0.27 µs, the
// consumer's share 0.19 µs, about 1/(12 T) sleeps an event, none from six). As measured, the
// switches make the consumer look the slower stage.
constexpr double planted_switch_s = 2.1e-6, apart_write_s = 0.27e-6, apart_consumer_s = 0.19e-6;
double consumer_sleeps(std::int64_t t) { return t >= 6 ? 0.001 : 1.0 / (12.0 * static_cast<double>(t)); }
double one_cpu_switching_rate(std::int64_t t) {
  return 1 / (apart_write_s + apart_consumer_s / static_cast<double>(t) + consumer_sleeps(t) * planted_switch_s);
}

// The switching one-CPU series with its consumer's sleeps counted (when `counted`), the cache
// line, and the wakeup probe's same-CPU round trip (twice the hand-off) when `hand_off`.
observation_set switching_series(bool counted, bool hand_off) {
  observation_set s;
  s.source = "planted switching series";
  for (std::int64_t t : {1, 2, 3, 4, 6, 8}) {
    s.rows.push_back(producers_row(t, 1, one_cpu_switching_rate(t)));
    if (!counted) continue;
    observation w = producers_row(t, 1, consumer_sleeps(t));
    w.k.metric = std::string(datasets::name(datasets::metric::wakeups));
    w.k.unit = "1";
    s.rows.push_back(w);
  }
  s.rows.push_back(cache_line_at(planted_line_ns));
  if (hand_off) s.rows.push_back(test::wakeup_round_trip(2 * planted_switch_s * 1e9));
  return s;
}

TEST(ProducerPipelineTest, TheConsumersSwitchesOnOneCpuAreTakenOutOfTheSplit) {
  std::vector<one_cpu_row> rows;
  for (std::int64_t t : {1, 2, 3, 4, 6, 8})
    rows.push_back({static_cast<double>(t), one_cpu_switching_rate(t), consumer_sleeps(t)});
  std::string note;
  const auto apart = fit_pipeline(rows, line_estimate{planted_line_ns * 1e-9}, planted_switch_s, note);
  ASSERT_TRUE(apart) << note;
  EXPECT_NEAR(apart->write_s / apart_write_s, 1, 1e-9);
  EXPECT_NEAR(apart->consumer_s / apart_consumer_s, 1, 1e-9);
  EXPECT_DOUBLE_EQ(apart->switch_s, planted_switch_s);
  EXPECT_NEAR(apart->rate() * (apart_write_s + planted_line_ns * 1e-9), 1, 1e-9);  // the write binds
  // As measured (no hand-off known, or a row without its count) the switches stay in the
  // split and the rate is slower: the consumer's share carries them.
  std::vector<one_cpu_row> uncounted = rows;
  uncounted[2].sleeps = NAN;
  for (const auto& measured :
       {fit_pipeline(rows, line_estimate{planted_line_ns * 1e-9}, std::nullopt, note),
        fit_pipeline(uncounted, line_estimate{planted_line_ns * 1e-9}, planted_switch_s, note)}) {
    ASSERT_TRUE(measured) << note;
    EXPECT_TRUE(std::isnan(measured->switch_s));
    EXPECT_GT(measured->consumer_s, measured->write_s);  // the consumer carries them and binds
    EXPECT_LT(measured->rate(), apart->rate() * 0.9);
    // Both CPUs busy (a floor) keeps the split as measured wherever the rate does not.
    EXPECT_DOUBLE_EQ(apart->measured_write_s, measured->write_s);
    EXPECT_DOUBLE_EQ(apart->measured_consumer_s, measured->consumer_s);
    for (double t : {2.0, 8.0}) EXPECT_DOUBLE_EQ(apart->both_busy_rate(t), measured->both_busy_rate(t)) << t;
  }
  // A take-out that leaves no positive split falls back to the series as measured, saying so.
  const auto too_dear = fit_pipeline(rows, line_estimate{planted_line_ns * 1e-9}, 1e-4, note);
  ASSERT_TRUE(too_dear);
  EXPECT_TRUE(std::isnan(too_dear->switch_s));
  EXPECT_NE(note.find("as measured"), std::string::npos) << note;
}

TEST(ProducerPipelineTest, ScaleTakesTheCountedSwitchesOutAndModelJsonKeepsThem) {
  wider_protocol p;
  p.from_cpus = 1;
  p.cpus = {2};
  p.at = {1};
  const wider_result with = predict_wider(switching_series(true, true), p);
  ASSERT_EQ(with.families.size(), 1u);
  ASSERT_TRUE(with.families[0].pipeline) << with.families[0].pipeline_note;
  EXPECT_NEAR(with.families[0].pipeline->consumer_s / apart_consumer_s, 1, 1e-9);
  EXPECT_NEAR(with.families[0].pipeline->switch_s, planted_switch_s, 1e-18);
  for (const auto& without : {switching_series(false, true), switching_series(true, false)}) {
    const wider_result r = predict_wider(without, p);
    ASSERT_TRUE(r.families[0].pipeline);
    EXPECT_TRUE(std::isnan(r.families[0].pipeline->switch_s));
  }
  model_set m;
  m.source = "planted";
  m.cpu_scaling = fit_cpu_scaling(switching_series(true, true));
  ASSERT_EQ(m.cpu_scaling.size(), 1u);
  ASSERT_TRUE(m.cpu_scaling[0].pipeline);
  const nlohmann::json j = to_json(m);
  ASSERT_TRUE(j["cpu_scaling"][0]["pipeline"].contains("switches_out")) << j["cpu_scaling"][0]["pipeline"].dump();
  const model_set back = model_set_from_json(nlohmann::json::parse(j.dump()), "m.json");
  ASSERT_TRUE(back.cpu_scaling[0].pipeline);
  EXPECT_DOUBLE_EQ(back.cpu_scaling[0].pipeline->switch_s, m.cpu_scaling[0].pipeline->switch_s);
  for (double t : {1.0, 3.0}) {
    wider_limit la{}, lb{};
    EXPECT_DOUBLE_EQ(predict_cpu_scaling(back.cpu_scaling[0], 2, t, lb).value,
                     predict_cpu_scaling(m.cpu_scaling[0], 2, t, la).value)
        << t;
    EXPECT_EQ(lb, la);
  }
  // The floor's split survives too; a malformed one is refused by name.
  EXPECT_DOUBLE_EQ(back.cpu_scaling[0].pipeline->both_busy_rate(4), m.cpu_scaling[0].pipeline->both_busy_rate(4));
  nlohmann::json spoilt = j;
  spoilt["cpu_scaling"][0]["pipeline"]["switches_out"]["measured_consumer_s"] = -1;
  try {
    model_set_from_json(spoilt, "m.json");
    ADD_FAILURE() << "accepted a negative measured consumer's share";
  } catch (const datasets::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("switches_out"), std::string::npos) << e.what();
  }
}

TEST(ProducerPipelineTest, TheCacheLineIsReadFromTheDataInSeconds) {
  EXPECT_FALSE(cache_line_round_trip(one_cpu_series(false)));
  const auto planted = cache_line_round_trip(one_cpu_series(true));
  ASSERT_TRUE(planted);
  EXPECT_NEAR(planted->s, 4e-7, 1e-18);
  EXPECT_TRUE(std::isnan(planted->var_s2));  // one visit: how much it moves is not known
  observation_set other;
  other.rows.push_back(cache_line_at(150, "0+15"));  // another pair of CPUs: not the first two
  EXPECT_FALSE(cache_line_round_trip(other));
  other.rows.push_back(cache_line_at(0.2));
  other.rows.back().k.unit = "us";
  other.rows.back().visit_medians = {0.18, 0.2, 0.22};  // us
  const auto visited = cache_line_round_trip(other);
  ASSERT_TRUE(visited);
  EXPECT_NEAR(visited->s, 2e-7, 1e-18);
  // The visits' variance (0.02 us)^2 plus their mean's, a third of it, in s^2.
  EXPECT_NEAR(visited->var_s2, 4e-16 * (1 + 1.0 / 3), 1e-24);
}

TEST(ProducerPipelineTest, TheIntervalIsTheSlowerStagesTimeWithItsPartsVariances) {
  std::vector<std::pair<double, double>> t_rate;
  for (std::int64_t t : {1, 2, 3, 4, 6, 8}) t_rate.emplace_back(static_cast<double>(t), one_cpu_pipeline_rate(t));
  std::string note, why;
  // An exact series: only the line's variance is left, t(4) = 2.7764 times its root.
  const double line_sd = 50e-9;
  const auto exact = fit_measured(t_rate, line_estimate{planted_line_ns * 1e-9, line_sd * line_sd}, note);
  ASSERT_TRUE(exact) << note;
  EXPECT_EQ(exact->df, 4);
  const auto in = exact->interval(why);
  ASSERT_TRUE(in) << why;
  const double time = planted_write_s + planted_line_ns * 1e-9, half = 2.776445105 * line_sd;
  EXPECT_NEAR(in->first * (time + half), 1, 1e-6);
  EXPECT_NEAR(in->second * (time - half), 1, 1e-6);
  // No interval, each saying why: a line of one visit, two producer counts, the parts unknown.
  EXPECT_FALSE(fit_measured(t_rate, line_estimate{4e-7}, note)->interval(why));
  EXPECT_NE(why.find("fewer than two visits"), std::string::npos) << why;
  EXPECT_FALSE(fit_measured({t_rate[0], t_rate[1]}, line_estimate{4e-7, 1e-16}, note)->interval(why));
  EXPECT_NE(why.find("df = 0"), std::string::npos) << why;
  pipeline_fit bare{planted_write_s, planted_consumer_s, 4e-7};
  EXPECT_FALSE(bare.interval(why));
  EXPECT_NE(why.find("not known"), std::string::npos) << why;
  EXPECT_FALSE(bare.open_interval_lo());  // nor a lower end alone
  bare = *exact;
  bare.line_var = 1e-12;  // a line that moves by a microsecond: the interval would reach zero time
  EXPECT_FALSE(bare.interval(why));
  EXPECT_NE(why.find("zero"), std::string::npos) << why;
  // Its lower end still holds, the upper one is open (the CPUs' capacity closes it: below).
  const auto lo = bare.open_interval_lo();
  ASSERT_TRUE(lo);
  EXPECT_NEAR(*lo * (time + 2.776445105 * std::sqrt(1e-12)), 1, 1e-6);
  EXPECT_FALSE(exact->open_interval_lo());  // closed: interval() has both ends
}

// Where the pipeline's own interval is open above, a two-CPU answer takes its upper end from
// the capacity bound (twice the one-CPU law's), and says no interval only where that bound
// has none either.
TEST(ProducerPipelineTest, AnOpenIntervalIsClosedByTheCapacityBound) {
  model_set m;
  m.source = "planted";
  observation_set d = one_cpu_series(true, NAN);
  m.cpu_scaling = fit_cpu_scaling(d);
  ASSERT_EQ(m.cpu_scaling.size(), 1u);
  auto& l = m.cpu_scaling[0];
  ASSERT_TRUE(l.pipeline);
  l.pipeline->cov_ww = l.pipeline->cov_aa = l.pipeline->residual_var = 0;
  l.pipeline->df = 4;
  l.pipeline->line_var = 1e-12;  // the pipeline's own interval reaches zero time
  wider_limit limit{};
  const auto p = predict_cpu_scaling(l, 2, 1, limit);
  ASSERT_EQ(limit, wider_limit::pipeline);
  ASSERT_TRUE(p.has_interval) << p.no_interval;
  EXPECT_DOUBLE_EQ(p.lo, *l.pipeline->open_interval_lo());
  const auto capacity = predict_scaling(*l.capacity, 1);
  ASSERT_TRUE(capacity.has_interval);
  EXPECT_NEAR(p.hi / (2 * capacity.hi), 1, 1e-9);
  EXPECT_LT(p.lo, p.value);
  EXPECT_LT(p.value, p.hi);
}

TEST(ProducerPipelineTest, SeededNoisyMeasurementsGiveIntervalsThatCoverThePlantedRate) {
  // 3% noise on each one-CPU rate, the line measured in three visits with 10% noise: the
  // planted rate inside at least 90% of 400 seeded trials' intervals, and the intervals
  // not wider than needed (median half-width under 15%).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  const double truth = 1 / (planted_write_s + planted_line_ns * 1e-9);
  int inside = 0, trials = 400;
  std::vector<double> widths;
  for (int i = 0; i < trials; ++i) {
    std::vector<std::pair<double, double>> t_rate;
    for (std::int64_t t : {1, 2, 3, 4, 6, 8})
      t_rate.emplace_back(static_cast<double>(t), one_cpu_pipeline_rate(t) * (1 + 0.03 * z(rng)));
    observation line = cache_line_at(planted_line_ns);
    for (int v = 0; v < 3; ++v) line.visit_medians.push_back(planted_line_ns * (1 + 0.1 * z(rng)));
    line.value = (line.visit_medians[0] + line.visit_medians[1] + line.visit_medians[2]) / 3;
    observation_set d;
    d.rows.push_back(line);
    std::string note, why;
    const auto f = fit_measured(t_rate, *cache_line_round_trip(d), note);
    ASSERT_TRUE(f) << note;
    const auto in = f->interval(why);
    ASSERT_TRUE(in) << why;
    inside += in->first <= truth && truth <= in->second;
    widths.push_back((in->second - in->first) / 2 / f->rate());
  }
  EXPECT_GE(inside, trials * 90 / 100);
  std::nth_element(widths.begin(), widths.begin() + trials / 2, widths.end());
  EXPECT_LT(widths[static_cast<std::size_t>(trials / 2)], 0.15);
}

TEST(ProducerPipelineTest, ScaleFromOneCpuAnswersOneProducerByThePipelineAndMoreByTheBound) {
  wider_protocol p;
  p.from_cpus = 1;
  const double measured_two = 6e5;
  // The results point at the data's rows: the data outlives them.
  const observation_set with_line = one_cpu_series(true, measured_two);  // one visit: no interval
  const observation_set without_line = one_cpu_series(false, measured_two);
  const auto r = predict_wider(with_line, p);
  ASSERT_EQ(r.families.size(), 1u);
  const auto& f = r.families[0];
  ASSERT_TRUE(f.pipeline) << f.pipeline_note;
  ASSERT_EQ(f.series.size(), 1u);
  const auto& s = f.series[0];
  ASSERT_EQ(s.cpus, 2);
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const double t = *scaling_axis(*s.rows[i].o);
    if (t == 1) {
      EXPECT_EQ(s.row_limit[i], wider_limit::pipeline);
      EXPECT_NEAR(s.rows[i].predicted, f.pipeline->rate(), 1e-6);
      EXPECT_FALSE(s.rows[i].has_interval);
      EXPECT_NE(s.rows[i].no_interval.find("pipeline"), std::string::npos);
    } else {
      EXPECT_EQ(s.row_limit[i], wider_limit::cpu_capacity) << "T = " << t;
      // A ceiling whose floor is both CPUs busy, the line paid on every event.
      EXPECT_TRUE(s.row_upper_bound[i]) << "T = " << t;
      ASSERT_TRUE(s.rows[i].has_interval) << s.rows[i].no_interval;
      EXPECT_NEAR(s.rows[i].lo / f.pipeline->both_busy_rate(t), 1, 1e-9) << "T = " << t;
      EXPECT_LT(s.rows[i].lo, s.rows[i].predicted);
    }
  }
  EXPECT_STREQ(name(wider_limit::pipeline), "pipeline");
  // Without the cache line: the bound, and the note says what was missing.
  const auto without = predict_wider(without_line, p);
  EXPECT_FALSE(without.families[0].pipeline);
  EXPECT_NE(without.families[0].pipeline_note.find("cache line"), std::string::npos);
  // Where two CPUs were measured the dedicated row answers; no pipeline is made.
  p.from_cpus = 2;
  p.cpus = {4};
  p.at = {1};
  EXPECT_FALSE(predict_wider(with_line, p).families[0].pipeline);
}

TEST(ProducerPipelineTest, AModelsLawsKeepThePipelineThroughModelJson) {
  model_set m;
  m.source = "planted";
  m.cpu_scaling = fit_cpu_scaling(one_cpu_series(true));
  ASSERT_EQ(m.cpu_scaling.size(), 1u);
  ASSERT_TRUE(m.cpu_scaling[0].pipeline);
  const nlohmann::json j = to_json(m);
  const model_set back = model_set_from_json(nlohmann::json::parse(j.dump()), "m.json");
  ASSERT_TRUE(back.cpu_scaling[0].pipeline);
  for (std::int64_t c : {2, 16})
    for (double t : {1.0, 3.0}) {
      wider_limit la{}, lb{};
      const auto a = predict_cpu_scaling(m.cpu_scaling[0], c, t, la);
      const auto b = predict_cpu_scaling(back.cpu_scaling[0], c, t, lb);
      EXPECT_DOUBLE_EQ(b.value, a.value);
      EXPECT_EQ(lb, la);
      EXPECT_EQ(la == wider_limit::pipeline, t == 1) << "C = " << c << ", T = " << t;
    }
  // The interval's parts survive the round trip; a file without them gives no interval.
  model_set visited = m;
  visited.cpu_scaling[0].pipeline->line_var = 2.5e-15;
  const nlohmann::json jv = to_json(visited);
  const model_set back_v = model_set_from_json(nlohmann::json::parse(jv.dump()), "m.json");
  wider_limit lv{};
  const auto before = predict_cpu_scaling(visited.cpu_scaling[0], 2, 1, lv);
  const auto after = predict_cpu_scaling(back_v.cpu_scaling[0], 2, 1, lv);
  ASSERT_TRUE(before.has_interval) << before.no_interval;
  ASSERT_TRUE(after.has_interval) << after.no_interval;
  EXPECT_DOUBLE_EQ(after.lo, before.lo);
  EXPECT_DOUBLE_EQ(after.hi, before.hi);
  nlohmann::json older = jv;
  older["cpu_scaling"][0]["pipeline"].erase("uncertainty");
  EXPECT_FALSE(predict_cpu_scaling(model_set_from_json(older, "o.json").cpu_scaling[0], 2, 1, lv).has_interval);
  for (const auto& bad :
       {nlohmann::json("wide"), nlohmann::json{{"cov_ww", -1e-14}},
        nlohmann::json{{"cov_ww", 0}, {"cov_wa", 0}, {"cov_aa", 0}, {"residual_var", 0}, {"df", -1}, {"line_var", 0}},
        nlohmann::json{
            {"cov_ww", 0}, {"cov_wa", 0}, {"cov_aa", 0}, {"residual_var", -1}, {"df", 4}, {"line_var", 0}}}) {
    nlohmann::json spoilt = jv;
    spoilt["cpu_scaling"][0]["pipeline"]["uncertainty"] = bad;
    try {
      model_set_from_json(spoilt, "m.json");
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const datasets::input_error& e) {
      EXPECT_NE(std::string(e.what()).find("cpu_scaling[0]"), std::string::npos) << e.what();
    }
  }
  // One CPU is the series itself: no pipeline there.
  wider_limit l{};
  predict_cpu_scaling(m.cpu_scaling[0], 1, 1, l);
  EXPECT_NE(l, wider_limit::pipeline);
  // Malformed: refused by name; absent or null: none.
  test::expect_each_block_refused(j, "pipeline",
                                  {nlohmann::json{{"write_s", 0}, {"consumer_s", 1e-6}, {"line_s", 4e-7}},
                                   nlohmann::json{{"write_s", 1e-6}, {"consumer_s", 1e-6}}, nlohmann::json("fast")},
                                  "cpu_scaling[0]");
  nlohmann::json old = j;
  old["cpu_scaling"][0].erase("pipeline");
  EXPECT_FALSE(model_set_from_json(old, "old.json").cpu_scaling[0].pipeline);
}

}  // namespace
}  // namespace pollscale::model
