// One producer beside its consumer (model/producer_pipeline.hpp): the one-CPU series splits
// into the planted write and consumer's share, the pipeline's rate is the slower stage with
// the cache line paid, `scale --from-cpus 1` answers one producer on two CPUs from it (and
// two or more from the capacity bound, as before), predict --cpus answers the same from a
// model's laws after model.json, and a missing part says which.

#include "model/producer_pipeline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/cpu_scaling.hpp"
#include "model/model_json.hpp"
#include "model/scaling.hpp"
#include "model/scaling_wider.hpp"
#include "tests/model/producers_rows.hpp"

namespace pollscale::model {
namespace {

using test::producers_row;

constexpr double planted_write_s = 1.2e-6, planted_consumer_s = 1.0e-6, planted_line_ns = 400;

// What one CPU measures when an event costs a write and the consumer's share a/T.
double one_cpu_pipeline_rate(std::int64_t t) {
  return 1 / (planted_write_s + planted_consumer_s / static_cast<double>(t));
}

observation cache_line_at(double ns, const std::string& pinning = "0+1") {
  observation o;
  o.k.scenario = std::string(datasets::name(datasets::scenario::cache_line));
  o.k.threads = 2;
  o.k.cpus = 2;
  o.k.pinning = pinning;
  o.k.metric = std::string(datasets::name(datasets::metric::round_trip));
  o.k.unit = "ns";
  o.value = ns;
  o.where = "test";
  return o;
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
  const auto f = fit_pipeline(t_rate, planted_line_ns * 1e-9, note);
  ASSERT_TRUE(f) << note;
  EXPECT_NEAR(f->write_s / planted_write_s, 1, 1e-9);
  EXPECT_NEAR(f->consumer_s / planted_consumer_s, 1, 1e-9);
  // The slower stage, each paying the line: the write here (1.2 µs + 0.4 µs).
  EXPECT_NEAR(f->rate(), 1 / (planted_write_s + planted_line_ns * 1e-9), 1e-6);
  // Refused, each saying why: one T, a rate that is not > 0, a consumer's share that grows with T.
  EXPECT_FALSE(fit_pipeline({{2, 5e5}, {2, 5.1e5}}, 4e-7, note));
  EXPECT_NE(note.find("fewer than two"), std::string::npos) << note;
  EXPECT_FALSE(fit_pipeline({{1, 5e5}, {2, -1}}, 4e-7, note));
  EXPECT_FALSE(fit_pipeline({{1, 5e5}, {2, NAN}}, 4e-7, note));
  EXPECT_FALSE(fit_pipeline({{1, 8e5}, {4, 4e5}}, 4e-7, note));
  EXPECT_NE(note.find("does not split"), std::string::npos) << note;
  EXPECT_FALSE(fit_pipeline(t_rate, NAN, note));
}

TEST(ProducerPipelineTest, TheCacheLineIsReadFromTheDataInSeconds) {
  EXPECT_FALSE(cache_line_round_trip_s(one_cpu_series(false)));
  EXPECT_NEAR(*cache_line_round_trip_s(one_cpu_series(true)), 4e-7, 1e-18);
  observation_set other;
  other.rows.push_back(cache_line_at(150, "0+15"));  // another pair of CPUs: not the first two
  EXPECT_FALSE(cache_line_round_trip_s(other));
  other.rows.push_back(cache_line_at(0.2));
  other.rows.back().k.unit = "us";
  EXPECT_NEAR(*cache_line_round_trip_s(other), 2e-7, 1e-18);
}

TEST(ProducerPipelineTest, ScaleFromOneCpuAnswersOneProducerByThePipelineAndMoreByTheBound) {
  wider_protocol p;
  p.from_cpus = 1;
  const double measured_two = 6e5;
  // The results point at the data's rows: the data outlives them.
  const observation_set with_line = one_cpu_series(true, measured_two);
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
  // One CPU is the series itself: no pipeline there.
  wider_limit l{};
  predict_cpu_scaling(m.cpu_scaling[0], 1, 1, l);
  EXPECT_NE(l, wider_limit::pipeline);
  // Malformed: refused by name; absent or null: none.
  for (const auto& bad : {nlohmann::json{{"write_s", 0}, {"consumer_s", 1e-6}, {"line_s", 4e-7}},
                          nlohmann::json{{"write_s", 1e-6}, {"consumer_s", 1e-6}}, nlohmann::json("fast")}) {
    nlohmann::json spoilt = j;
    spoilt["cpu_scaling"][0]["pipeline"] = bad;
    try {
      model_set_from_json(spoilt, "m.json");
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const datasets::input_error& e) {
      EXPECT_NE(std::string(e.what()).find("cpu_scaling[0]"), std::string::npos) << e.what();
    }
  }
  nlohmann::json old = j;
  old["cpu_scaling"][0].erase("pipeline");
  EXPECT_FALSE(model_set_from_json(old, "old.json").cpu_scaling[0].pipeline);
}

}  // namespace
}  // namespace pollscale::model
