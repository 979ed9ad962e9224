// The CPU-scaling laws a model keeps (model/cpu_scaling.hpp): fitted from planted producers
// series of one and two CPUs whose consumer is a serial stage, they predict four to 128
// CPUs as the planted stage does, give exactly what `scale --from-cpus` gives from the data,
// survive model.json unchanged, and are refused by name when model.json is malformed.

#include "model/cpu_scaling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/model_json.hpp"
#include "model/observations.hpp"
#include "model/scaling_law.hpp"
#include "model/scaling_wider.hpp"
#include "model/stage_hold.hpp"
#include "tests/model/producers_rows.hpp"

namespace pollscale::model {
namespace {

using test::producers_row;

// One event costs (1 + 0.9 (T − 1)) / T µs of CPU (batching) and its consumer holds 0.4 µs
// of it alone once events cross CPUs: the serial stage of docs/scaling.md, exactly.
constexpr double consumer_hold_s = 0.4e-6;
double consumer_staged_value(std::int64_t t, std::int64_t c) {
  const double n = static_cast<double>(t), demand = (1 + 0.9 * (n - 1)) / (n * 1e6);
  return c == 1 ? 1 / demand : serial_stage_throughput(std::max(demand - consumer_hold_s, 0.0), consumer_hold_s, t, c);
}

// What a two-CPU machine measures: T = 1..8 producers on one CPU and on two, each row with a
// small deterministic scatter (so that the laws have intervals to carry).
observation_set planted_producers_series() {
  observation_set s;
  s.source = "planted two-CPU series";
  std::set<std::pair<std::int64_t, std::int64_t>> listed;
  for (std::int64_t c : {1, 2})
    for (std::int64_t t : {1, 2, 3, 4, 6, 8}) {
      const std::int64_t cpus = std::min(c, t + 1);
      const double wobble = 1 + 0.004 * static_cast<double>((t * 7 + c * 3) % 5 - 2);
      if (listed.insert({t, cpus}).second)
        s.rows.push_back(producers_row(t, cpus, consumer_staged_value(t, cpus) * wobble));
    }
  return s;
}

TEST(CpuScalingTest, LawsFromTwoCpusPredictWiderMachinesAsThePlantedStageDoes) {
  const auto laws = fit_cpu_scaling(planted_producers_series());
  ASSERT_EQ(laws.size(), 1u);
  const auto& l = laws[0];
  EXPECT_EQ(l.from_cpus, 2);
  EXPECT_EQ(l.widest(), 2);
  EXPECT_DOUBLE_EQ(l.largest_n(), 8);
  ASSERT_TRUE(l.serial);
  EXPECT_NEAR(l.serial->hold / consumer_hold_s, 1, 0.05);
  for (std::int64_t c : {4, 8, 16, 128})
    for (std::int64_t t : {4, 8, 16}) {
      wider_limit limit{};
      const auto p = predict_cpu_scaling(l, c, static_cast<double>(t), limit);
      EXPECT_NEAR(p.value / consumer_staged_value(t, c), 1, 0.03) << "C = " << c << ", T = " << t;
      EXPECT_EQ(limit, wider_limit::serial_stage) << "C = " << c << ", T = " << t;
      ASSERT_TRUE(p.has_interval);
      EXPECT_LE(p.lo, p.value);
      EXPECT_GE(p.hi, p.value);
      EXPECT_FALSE(p.upper_bound);  // the stage's hold was fitted: a prediction, not a ceiling
      EXPECT_GT(p.lo, 0);
    }
  // Past what the consumer can drain, more CPUs buy nothing: 1/hold events per second.
  wider_limit limit{};
  EXPECT_LT(predict_cpu_scaling(l, 128, 128, limit).value, 1.02 / consumer_hold_s);
}

TEST(CpuScalingTest, TheModelsLawsAnswerExactlyWhatScaleFromCpusAnswersFromTheData) {
  const observation_set data = planted_producers_series();
  wider_protocol p;
  p.from_cpus = 2;
  p.cpus = {4, 16, 64};
  p.at = {1, 3, 8, 32};
  const wider_result r = predict_wider(data, p);
  const auto laws = fit_cpu_scaling(data);
  ASSERT_EQ(r.families.size(), laws.size());
  for (const auto& s : r.families[0].series)
    for (std::size_t i = 0; i < s.at.size(); ++i) {
      wider_limit limit{};
      const auto q = predict_cpu_scaling(laws[0], s.cpus, s.at[i].first, limit);
      const auto& want = s.at[i].second;
      EXPECT_EQ(q.value, want.value);
      EXPECT_EQ(q.has_interval, want.has_interval);
      if (want.has_interval) {
        EXPECT_EQ(q.lo, want.lo);
        EXPECT_EQ(q.hi, want.hi);
      }
      EXPECT_EQ(limit, s.at_limit[i]);
    }
  // The simulator's holds are the same laws' serial stages, in seconds.
  const auto holds = stage_holds_of(laws);
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_DOUBLE_EQ(holds[0].hold_s, laws[0].serial->hold);
  EXPECT_EQ(fit_stage_holds(data).size(), 1u);
}

// A model fitted on a wide machine asked about the narrowest width it measured: that series'
// own law answers. The dedicated law's N threads on N CPUs are another machine — here one
// that passes half as much (a hand-off across CPUs costs more than one on a CPU, as
// accept_herd's does) — and capped the one-CPU answer to half the measurement before.
TEST(CpuScalingTest, TheNarrowestWidthMeasuredIsAnsweredByItsOwnSeries) {
  cpu_scaling_laws l;
  l.experiment = producers_row(1, 1, 1).k;
  l.experiment.cpus.reset();
  l.from_cpus = 2;
  l.measured_cpus = {1, 2};
  const std::vector<scaling_point> one_cpu = {{1, 28000, 3, 0.01}, {2, 27600, 3, 0.01}, {3, 27200, 3, 0.01},
                                              {4, 26900, 3, 0.01}, {6, 26500, 3, 0.01}, {8, 26100, 3, 0.01}};
  const std::vector<scaling_point> own_cpus = {{1, 28000, 3, 0.01}, {2, 15000, 3, 0.01}};  // 1 on 1, 2 on 2
  l.capacity_cpus = 1;
  l.capacity = fit_scaling(one_cpu);
  l.dedicated = fit_scaling(own_cpus);
  for (double n : {2.0, 4.0, 8.0}) {
    wider_limit limit{};
    const auto p = predict_cpu_scaling(l, 1, n, limit);
    EXPECT_EQ(limit, wider_limit::cpu_capacity) << "N = " << n;
    EXPECT_DOUBLE_EQ(p.value, l.capacity->at(n)) << "N = " << n;
  }
  // Wider than the narrowest series: the dedicated law still caps (two threads on two CPUs).
  wider_limit limit{};
  const auto two = predict_cpu_scaling(l, 2, 2, limit);
  EXPECT_EQ(limit, wider_limit::dedicated_law);
  EXPECT_NEAR(two.value / 15000, 1, 0.01);
}

TEST(CpuScalingTest, OneCpuStillBoundsWiderMachinesAndSaysWhatItCannotSee) {
  observation_set one;
  one.source = "one CPU";
  for (const auto& o : planted_producers_series().rows)
    if (*o.k.cpus == 1) one.rows.push_back(o);
  const auto laws = fit_cpu_scaling(one);
  ASSERT_EQ(laws.size(), 1u);
  EXPECT_FALSE(laws[0].serial);
  EXPECT_NE(laws[0].caveat.find("upper bounds"), std::string::npos) << laws[0].caveat;
  wider_limit limit{};
  const auto p = predict_cpu_scaling(laws[0], 16, 8, limit);
  EXPECT_GT(p.value, consumer_staged_value(8, 16));  // a bound from above: the stage is unseen
  // So the answer is a ceiling, and says so: the measurement may lie anywhere below it.
  EXPECT_EQ(limit, wider_limit::cpu_capacity);
  EXPECT_TRUE(p.upper_bound);
  EXPECT_TRUE(upper_bound_only(laws[0], 16, 8, limit));
  ASSERT_TRUE(p.has_interval);
  EXPECT_EQ(p.lo, 0);
  EXPECT_GT(p.hi, p.value);
  EXPECT_GT(p.hi, consumer_staged_value(8, 16));
  // One CPU is the series itself: no hand-off crosses CPUs, and what was measured is no ceiling.
  const auto on_one = predict_cpu_scaling(laws[0], 1, 8, limit);
  EXPECT_FALSE(on_one.upper_bound);
  EXPECT_GT(on_one.lo, 0);
  EXPECT_THROW(predict_cpu_scaling(laws[0], 0, 8, limit), std::invalid_argument);
  EXPECT_THROW(predict_cpu_scaling(laws[0], 4, 0.5, limit), std::invalid_argument);
  EXPECT_TRUE(fit_cpu_scaling(observation_set{}).empty());
}

class CpuScalingJsonTest : public ::testing::Test {
 protected:
  model_set planted() {
    model_set m;
    m.source = "planted";
    m.cpu_scaling = fit_cpu_scaling(planted_producers_series());
    return m;
  }
  std::string load_error(const nlohmann::json& j) {
    try {
      model_set_from_json(j, "m.json");
    } catch (const datasets::input_error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(CpuScalingJsonTest, LawsSurviveModelJsonAndPredictTheSame) {
  const model_set m = planted();
  const nlohmann::json j = to_json(m);
  const model_set back = model_set_from_json(nlohmann::json::parse(j.dump()), "m.json");
  ASSERT_EQ(back.cpu_scaling.size(), 1u);
  const auto& a = m.cpu_scaling[0];
  const auto& b = back.cpu_scaling[0];
  EXPECT_EQ(b.experiment, a.experiment);
  EXPECT_EQ(b.measured_cpus, a.measured_cpus);
  EXPECT_EQ(b.capacity_cpus, a.capacity_cpus);
  EXPECT_EQ(b.serial_structure, a.serial_structure);
  EXPECT_EQ(b.dedicated_note, a.dedicated_note);
  for (std::int64_t c : {1, 2, 4, 32})
    for (double t : {1.0, 5.0, 40.0}) {
      wider_limit la{}, lb{};
      const auto pa = predict_cpu_scaling(a, c, t, la), pb = predict_cpu_scaling(b, c, t, lb);
      EXPECT_DOUBLE_EQ(pb.value, pa.value);
      EXPECT_EQ(pb.has_interval, pa.has_interval);
      if (pa.has_interval) {
        EXPECT_DOUBLE_EQ(pb.hi, pa.hi);
      }
      EXPECT_EQ(lb, la);
    }
  // Files written before the block existed read as having no laws.
  nlohmann::json old = j;
  old.erase("cpu_scaling");
  old["models"] = nlohmann::json::array();
  EXPECT_TRUE(model_set_from_json(old, "old.json").cpu_scaling.empty());
}

TEST_F(CpuScalingJsonTest, MalformedLawsAreRefusedByName) {
  const nlohmann::json good = to_json(planted());
  const auto refused = [&](auto&& spoil, const std::string& want) {
    nlohmann::json j = good;
    spoil(j["cpu_scaling"][0]);
    const std::string e = load_error(j);
    EXPECT_NE(e.find("cpu_scaling[0]"), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << e;
  };
  refused([](auto& l) { l["capacity"]["law"]["law"] = "quadratic"; }, "quadratic");
  refused([](auto& l) { l["serial"]["hold"] = -1e-7; }, "'hold'");
  refused([](auto& l) { l["serial"]["cpus"] = 1; }, "'cpus'");
  refused([](auto& l) { l["capacity"]["law"]["covariance"] = {{1, 2}, {3, 4}}; }, "3 x 3");
  refused([](auto& l) { l["capacity"]["law"]["gamma"] = 0; }, "gamma");
  refused([](auto& l) { l["measured_cpus"] = {1, -2}; }, "measured_cpus");
  refused([](auto& l) { l["from_cpus"] = "two"; }, "from_cpus");
  refused(
      [](auto& l) {
        l["dedicated"] = nullptr;
        l["capacity"] = nullptr;
        l["serial"] = nullptr;
      },
      "neither");
  refused([](auto& l) { l.erase("serial"); }, "'serial'");
}

}  // namespace
}  // namespace pollscale::model
