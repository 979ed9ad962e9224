// What a CPU beyond the measured ones delivers (model/capacity_efficiency.hpp): the bound
// moved by the planted factor per doubling and its interval widened in quadrature on the log
// scale, exactly; nothing moved at the measured width or for a bound with no interval; the
// laws of `predict --cpus` and `scale --from-cpus` price wider machines with it (and threads
// that share nothing past their widest dedicated row) and carry it through model.json; and every malformed corpus file
// refused in one line naming the file and the field.

#include "model/capacity_efficiency.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/cpu_scaling.hpp"
#include "model/model_json.hpp"
#include "tests/model/producers_rows.hpp"

namespace pollscale::model {
namespace {

namespace fs = std::filesystem;

constexpr double z = 1.959963984540054;

capacity_efficiency planted_efficiency(double log_mean, double log_sd) {
  capacity_efficiency e;
  e.log_mean = log_mean;
  e.log_sd = log_sd;
  e.rows = 109;
  e.runs = 19;
  e.hosts = 5;
  e.statistic = "median";
  e.estimated = "2026-12-08";
  e.source = "planted";
  return e;
}

scaling_prediction bound_of(double value, double lo, double hi) {
  scaling_prediction p;
  p.value = value;
  p.lo = lo;
  p.hi = hi;
  p.has_interval = true;
  return p;
}

TEST(CapacityEfficiencyTest, EachDoublingMovesTheBoundByItsFactorAndWidensItsEndsInQuadrature) {
  const capacity_efficiency e = planted_efficiency(-0.04, 0.05);
  // Ends at exp(∓z·0.02) and exp(+z·0.03) of the value: log spreads 0.02 below, 0.03 above.
  const scaling_prediction bound = bound_of(200, 200 * std::exp(-z * 0.02), 200 * std::exp(z * 0.03));
  for (double ratio : {2.0, 4.0, 16.0}) {
    const double d = std::log2(ratio);
    const scaling_prediction p = delivered(e, bound, ratio);
    const double centre = 200 * std::exp(-0.04 * d);
    EXPECT_NEAR(p.value, centre, 1e-9) << "ratio " << ratio;
    EXPECT_NEAR(std::log(centre / p.lo) / z, std::sqrt(0.02 * 0.02 + 0.05 * 0.05 * d), 1e-12) << "ratio " << ratio;
    EXPECT_NEAR(std::log(p.hi / centre) / z, std::sqrt(0.03 * 0.03 + 0.05 * 0.05 * d), 1e-12) << "ratio " << ratio;
    EXPECT_TRUE(p.has_interval);
  }
  // The interval widens with the extrapolation in C: each doubling adds its own spread.
  const auto two = delivered(e, bound, 2), sixteen = delivered(e, bound, 16);
  EXPECT_GT(std::log(sixteen.hi / sixteen.lo), std::log(two.hi / two.lo));
}

TEST(CapacityEfficiencyTest, TheMeasuredWidthAndAnEndSaidNothingAboutAreLeftAsTheyAre) {
  const capacity_efficiency e = planted_efficiency(-0.04, 0.05);
  const scaling_prediction bound = bound_of(200, 180, 230);
  const scaling_prediction same = delivered(e, bound, 1);
  EXPECT_EQ(same.value, 200);
  EXPECT_EQ(same.lo, 180);
  EXPECT_EQ(same.hi, 230);
  // A ceiling's [0, hi]: the floor stays 0, the top moves.
  const scaling_prediction ceiling = delivered(e, bound_of(200, 0, 230), 2);
  EXPECT_EQ(ceiling.lo, 0);
  EXPECT_GT(ceiling.hi, 230 * std::exp(-0.04));
  // No interval: only the value moves; the law's own spread is not known, so none is made up.
  scaling_prediction bare;
  bare.value = 200;
  bare.no_interval = "no interval: df = 0";
  const scaling_prediction moved = delivered(e, bare, 4);
  EXPECT_NEAR(moved.value, 200 * std::exp(-0.08), 1e-9);
  EXPECT_FALSE(moved.has_interval);
  EXPECT_EQ(moved.no_interval, bare.no_interval);
  EXPECT_THROW(delivered(e, bound, 0.5), std::invalid_argument);
  EXPECT_THROW(delivered(e, bound, std::nan("")), std::invalid_argument);
}

// Threads that share nothing, measured on one CPU: the capacity bound answers two and four
// CPUs, as the corpus's machines deliver it once the laws carry the estimate.
cpu_scaling_laws one_cpu_laws() {
  cpu_scaling_laws l;
  l.experiment = test::producers_row(1, 1, 1).k;
  l.experiment.scenario = std::string(datasets::name(datasets::scenario::private_sets));
  l.experiment.variant = "lt";
  l.experiment.fd_kind = "pipe";
  l.experiment.cpus.reset();
  l.from_cpus = 1;
  l.measured_cpus = {1};
  l.capacity_cpus = 1;
  const std::vector<scaling_point> one_cpu = {
      {1, 1000, 3, 0.01}, {2, 1004, 3, 0.01}, {3, 996, 3, 0.01}, {4, 1001, 3, 0.01}};
  l.capacity = fit_scaling(one_cpu);
  return l;
}

TEST(CapacityEfficiencyTest, WiderMachinesCapacityBoundIsDeliveredAsTheCorpusSays) {
  cpu_scaling_laws plain = one_cpu_laws(), priced = one_cpu_laws();
  priced.efficiency = planted_efficiency(-0.04, 0.05);
  for (std::int64_t c : {1, 2, 4}) {
    wider_limit la{}, lb{};
    const auto a = predict_cpu_scaling(plain, c, 4, la), b = predict_cpu_scaling(priced, c, 4, lb);
    ASSERT_EQ(la, wider_limit::cpu_capacity) << "C = " << c;
    ASSERT_EQ(lb, wider_limit::cpu_capacity) << "C = " << c;
    const double d = std::log2(static_cast<double>(c));
    EXPECT_NEAR(b.value / a.value, std::exp(-0.04 * d), 1e-9) << "C = " << c;
    ASSERT_TRUE(a.has_interval && b.has_interval);
    if (c == 1) {
      EXPECT_EQ(b.lo, a.lo);
      EXPECT_EQ(b.hi, a.hi);
    } else {
      EXPECT_LT(b.lo / b.value, a.lo / a.value) << "C = " << c;  // wider, relative to the value
      EXPECT_GT(b.hi / b.value, a.hi / a.value) << "C = " << c;
    }
  }
}

// Threads that share nothing, measured with a CPU each on one and two CPUs, the second CPU
// taxing the first 10%: past two threads on CPUs of their own, what more CPUs deliver is the
// two-CPU row's, N/2 times, priced for log2(N/2) doublings — not Amdahl's reading of the tax
// as a serial fraction. A scenario that shares a structure keeps its dedicated law.
TEST(CapacityEfficiencyTest, ThreadsThatShareNothingAreAnsweredPastTheirWidestRowAsTheCorpusPricesCpus) {
  cpu_scaling_laws amdahl = one_cpu_laws();
  amdahl.from_cpus = 2;
  amdahl.measured_cpus = {1, 2};
  const std::vector<scaling_point> own_cpus = {{1, 1000, 3, 0.01}, {2, 1800, 3, 0.01}};
  amdahl.dedicated = fit_scaling(own_cpus);
  cpu_scaling_laws priced = amdahl;
  priced.efficiency = planted_efficiency(-0.04, 0.05);
  for (double n : {4.0, 8.0, 16.0}) {
    const auto c = static_cast<std::int64_t>(n);
    wider_limit la{}, lb{};
    const auto a = predict_cpu_scaling(amdahl, c, n, la), b = predict_cpu_scaling(priced, c, n, lb);
    EXPECT_EQ(lb, wider_limit::dedicated_law) << "N = " << n;
    EXPECT_NEAR(b.value / (1800 * n / 2 * std::exp(-0.04 * std::log2(n / 2))), 1, 0.01) << "N = " << n;
    EXPECT_GT(b.value, a.value) << "N = " << n;  // Amdahl: σ ≈ 0.11, 16 threads pass 6.4x one
    EXPECT_FALSE(b.upper_bound) << "N = " << n;
  }
  // Inside the rows measured the law answers as before.
  wider_limit la{}, lb{};
  EXPECT_DOUBLE_EQ(predict_cpu_scaling(priced, 2, 2, lb).value, predict_cpu_scaling(amdahl, 2, 2, la).value);
  // A shared structure's contention is the dedicated law's to say.
  cpu_scaling_laws shared = priced;
  shared.experiment.scenario = std::string(datasets::name(datasets::scenario::shared_epoll));
  cpu_scaling_laws shared_plain = amdahl;
  shared_plain.experiment.scenario = shared.experiment.scenario;
  EXPECT_DOUBLE_EQ(predict_cpu_scaling(shared, 16, 16, lb).value, predict_cpu_scaling(shared_plain, 16, 16, la).value);
}

TEST(CapacityEfficiencyTest, ModelJsonCarriesItToEveryLawsAndOlderFilesReadWithout) {
  model_set m;
  m.source = "planted";
  m.cpu_scaling = {one_cpu_laws(), one_cpu_laws()};
  m.efficiency = planted_efficiency(-0.04, 0.05);
  for (auto& l : m.cpu_scaling) l.efficiency = m.efficiency;
  const nlohmann::json j = to_json(m);
  const model_set back = model_set_from_json(nlohmann::json::parse(j.dump()), "m.json");
  ASSERT_TRUE(back.efficiency);
  EXPECT_DOUBLE_EQ(back.efficiency->log_mean, -0.04);
  EXPECT_DOUBLE_EQ(back.efficiency->log_sd, 0.05);
  EXPECT_EQ(back.efficiency->hosts, 5u);
  EXPECT_EQ(back.efficiency->source, "planted");
  for (const auto& l : back.cpu_scaling) {
    ASSERT_TRUE(l.efficiency);
    wider_limit la{}, lb{};
    EXPECT_DOUBLE_EQ(predict_cpu_scaling(l, 4, 4, lb).value, predict_cpu_scaling(m.cpu_scaling[0], 4, 4, la).value);
  }
  nlohmann::json old = j;
  old.erase("capacity_efficiency");
  EXPECT_FALSE(model_set_from_json(old, "old.json").efficiency);
  nlohmann::json bad = j;
  bad["capacity_efficiency"]["log_sd"] = -1;
  try {
    model_set_from_json(bad, "bad.json");
    ADD_FAILURE() << "a negative log_sd was read";
  } catch (const datasets::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("capacity_efficiency"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("log_sd"), std::string::npos) << e.what();
  }
}

class CapacityEfficiencyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("pollscale_capacity_efficiency_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
  }
  void TearDown() override { fs::remove(path_); }

  static nlohmann::json good() {
    return nlohmann::json::parse(R"({
      "kind": "pollscale capacity efficiency", "schema_version": 1, "estimated": "2026-12-08",
      "per_statistic": {
        "median": {"log_mean": -0.038, "log_sd": 0.040, "rows": 109, "runs": 19, "hosts": 5, "per_host": []},
        "fastest": {"log_mean": -0.018, "log_sd": 0.021, "rows": 106, "runs": 19, "hosts": 5}}})");
  }
  void write_text(const std::string& text) const { std::ofstream(path_) << text; }
  std::string error_of(const nlohmann::json& j) const {
    write_text(j.dump());
    return error_now();
  }
  std::string error_now() const {
    try {
      read_capacity_efficiency(path_, "median");
    } catch (const datasets::input_error& e) {
      return e.what();
    }
    return "(read)";
  }

  fs::path path_;
};

TEST_F(CapacityEfficiencyFileTest, TheEstimateIsReadWithTheFilesDateAndName) {
  write_text(good().dump());
  const capacity_efficiency e = read_capacity_efficiency(path_, "median");
  EXPECT_EQ(e.statistic, "median");
  EXPECT_DOUBLE_EQ(e.log_mean, -0.038);
  EXPECT_DOUBLE_EQ(e.log_sd, 0.040);
  EXPECT_EQ(e.rows, 109u);
  EXPECT_EQ(e.runs, 19u);
  EXPECT_EQ(e.hosts, 5u);
  EXPECT_EQ(e.estimated, "2026-12-08");
  EXPECT_EQ(e.source, path_.string());
  const capacity_efficiency back = capacity_efficiency_from_json(to_json(e));
  EXPECT_DOUBLE_EQ(back.log_mean, e.log_mean);
  EXPECT_EQ(back.statistic, "median");
  EXPECT_EQ(back.source, e.source);
  // Each statistic its own estimate: the fastest batch meets less interference.
  const capacity_efficiency fastest = read_capacity_efficiency(path_, "fastest");
  EXPECT_DOUBLE_EQ(fastest.log_mean, -0.018);
  EXPECT_EQ(fastest.statistic, "fastest");
  try {
    read_capacity_efficiency(path_, "adjusted");
    ADD_FAILURE() << "a statistic the file has no estimate for was read";
  } catch (const datasets::input_error& x) {
    EXPECT_NE(std::string(x.what()).find("no estimate for the statistic 'adjusted'"), std::string::npos) << x.what();
  }
}

TEST_F(CapacityEfficiencyFileTest, EveryMalformedFileIsRefusedNamingTheFileAndTheField) {
  struct bad_case {
    const char* field;
    nlohmann::json value;
    const char* said;
  };
  const std::vector<bad_case> cases = {
      {"log_mean", -1.5, "log_mean -1.5 is not a number in [-1, 1]"},
      {"log_mean", "nan", "log_mean \"nan\" is not a number in [-1, 1]"},
      {"log_mean", nullptr, "log_mean null is not a number in [-1, 1]"},
      {"log_sd", -0.01, "log_sd -0.01 is not a number in [0, 1]"},
      {"log_sd", 2, "log_sd 2 is not a number in [0, 1]"},
      {"rows", 0, "rows 0 is not a count > 0"},
      {"runs", -3, "runs -3 is not a count > 0"},
      {"hosts", "five", "hosts \"five\" is not a count > 0"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = good();
    j["per_statistic"]["median"][c.field] = c.value;
    const std::string what = error_of(j);
    EXPECT_EQ(what.rfind(path_.string() + ": per_statistic.median: ", 0), 0u) << what;
    EXPECT_NE(what.find(c.said), std::string::npos) << what;
  }
  nlohmann::json other = good();
  other["kind"] = "pollscale between-runs spread";
  EXPECT_NE(error_of(other).find("not a capacity-efficiency file"), std::string::npos);
  nlohmann::json later = good();
  later["schema_version"] = 2;
  EXPECT_NE(error_of(later).find("schema_version 2 is not supported"), std::string::npos);
  nlohmann::json none = good();
  none.erase("per_statistic");
  EXPECT_NE(error_of(none).find("no estimate for the statistic 'median'"), std::string::npos);
  nlohmann::json scalar = good();
  scalar["per_statistic"]["median"] = 3;
  EXPECT_NE(error_of(scalar).find("per_statistic.median: not an object"), std::string::npos);
  write_text("{ not json");
  EXPECT_NE(error_now().find(path_.string()), std::string::npos);
  fs::remove(path_);
  EXPECT_NE(error_now().find(path_.string()), std::string::npos);
}

}  // namespace
}  // namespace pollscale::model
