#include "model/model_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <tuple>

#include "datasets/csv_table.hpp"
#include "model/evaluate.hpp"
#include "model/fit.hpp"
#include "model/prediction.hpp"
#include "tests/model/synthetic.hpp"

namespace pollscale::model {
namespace {

namespace fs = std::filesystem;

model_set small_models(std::size_t bootstrap = 0) {
  observation_set s;
  s.context = test::cache_context();
  s.source = "synthetic";
  std::mt19937_64 rng(1);
  test::add_points(
      s, test::cell_key("poll"), {1, 10, 100, 300, 1000}, {1, 10}, [](double n, double) { return 150 + 28 * n; }, 0.01,
      rng, 5);
  test::add_points(
      s, test::cell_key("epoll", "throughput", "1/s", "token_ring"), {10, 100, 1000}, {1},
      [](double, double) { return 280000.0; }, 0.01, rng);
  fit_options o;
  o.bootstrap_replicates = bootstrap;
  return fit_models(s, o);
}

class ModelJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("pollscale_model_json_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
  }
  void TearDown() override { fs::remove(path_); }

  std::string load_error(const std::string& text) {
    std::ofstream(path_) << text;
    try {
      load_model(path_);
    } catch (const datasets::input_error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path path_;
};

TEST_F(ModelJsonTest, RoundTripGivesTheSamePredictions) {
  for (std::size_t reps : {std::size_t{0}, std::size_t{50}}) {
    const auto m = small_models(reps);
    save_model(path_, m);
    const auto back = load_model(path_);
    ASSERT_EQ(back.cells.size(), m.cells.size());
    for (std::size_t i = 0; i < m.cells.size(); ++i) {
      const point x{5000, 3, 2500, 80};
      const auto a = evaluate(m.cells[i], x), b = evaluate(back.cells[i], x);
      EXPECT_NEAR(a.value, b.value, 1e-9 * a.value);
      EXPECT_NEAR(a.lo, b.lo, 1e-9 * a.value);
      EXPECT_NEAR(a.hi, b.hi, 1e-9 * a.value);
      EXPECT_EQ(m.cells[i].formula, back.cells[i].formula);
      EXPECT_EQ(m.cells[i].cell, back.cells[i].cell);
    }
    EXPECT_EQ(back.context, m.context);
  }
}

TEST_F(ModelJsonTest, HoldsWhatArchitectureAsksFor) {
  const auto j = to_json(small_models());
  const auto& m = j["models"][0];
  for (const char* k : {"formula", "terms", "fit", "domain", "cell", "selection"}) EXPECT_TRUE(m.contains(k)) << k;
  for (const char* k : {"name", "meaning", "coefficient", "unit", "ci95_lo", "ci95_hi"})
    EXPECT_TRUE(m["terms"][0].contains(k)) << k;
  for (const char* k : {"mape_in_sample", "mape_loo", "residual_spread"}) EXPECT_TRUE(m["fit"].contains(k)) << k;
  EXPECT_TRUE(m["domain"].contains("n_min"));
  EXPECT_TRUE(m["domain"].contains("n_max"));
  EXPECT_TRUE(j.contains("context"));
}

TEST_F(ModelJsonTest, MalformedFilesAreNamedWithTheField) {
  EXPECT_NE(load_error("{not json").find("invalid JSON"), std::string::npos);
  EXPECT_NE(load_error("{}").find("schema_version"), std::string::npos);
  EXPECT_NE(load_error(R"({"schema_version": 99})").find("99"), std::string::npos);
  auto j = to_json(small_models());
  j["models"][1]["terms"][0]["coefficient"] = "fast";
  const std::string e = load_error(j.dump());
  EXPECT_NE(e.find("models[1]"), std::string::npos) << e;
  EXPECT_NE(e.find("coefficient"), std::string::npos) << e;
  EXPECT_EQ(e.rfind(path_.string(), 0), 0u) << e;
  j = to_json(small_models());
  j["models"][0]["covariance"] = nlohmann::json::array({{1.0}});
  EXPECT_NE(load_error(j.dump()).find("covariance"), std::string::npos);
  j = to_json(small_models());
  j["models"][0]["cell"]["mechanism"] = "kqueue2";
  EXPECT_NE(load_error(j.dump()).find("kqueue2"), std::string::npos);
  EXPECT_NE(load_error("").find(path_.string()), std::string::npos);
  // What the models predict: one of the point statistics, read back as written.
  for (const char* statistic : {"median", "fastest", "adjusted"}) {
    j = to_json(small_models());
    j["statistic"] = statistic;
    std::ofstream(path_) << j.dump();
    EXPECT_EQ(load_model(path_).statistic, statistic);
  }
  j = to_json(small_models());
  j["statistic"] = "mean";
  EXPECT_NE(load_error(j.dump()).find("statistic 'mean'"), std::string::npos);
  fs::remove(path_);
  EXPECT_NE(load_error("x").find("invalid JSON"), std::string::npos);
}

// The machine's shared drift travels with the model (a drawn simulation reads it back) and
// is checked like every other field; files without it (written before it, or fitted on
// historical tables) read as none.
TEST_F(ModelJsonTest, TheSharedDriftRoundTripsAndIsCheckedWhenRead) {
  auto m = small_models();
  EXPECT_FALSE(m.drift.has_value());  // the synthetic observations have no visit times
  EXPECT_TRUE(to_json(m)["drift"].is_null());
  m.drift = datasets::simultaneous_drift{0.42, 0.4375, 1234, 700, 1.0};
  save_model(path_, m);
  const auto back = load_model(path_);
  ASSERT_TRUE(back.drift.has_value());
  EXPECT_DOUBLE_EQ(back.drift->correlation, 0.42);
  EXPECT_DOUBLE_EQ(back.drift->raw_correlation, 0.4375);
  EXPECT_EQ(back.drift->pairs, 1234u);
  EXPECT_EQ(back.drift->points, 700u);
  EXPECT_DOUBLE_EQ(back.drift->window_s, 1.0);
  auto j = to_json(m);
  j.erase("drift");
  std::ofstream(path_) << j.dump();
  EXPECT_FALSE(load_model(path_).drift.has_value());
  j = to_json(m);
  j["drift"]["correlation"] = 1.5;
  EXPECT_NE(load_error(j.dump()).find("correlation 1.5"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["drift"]["pairs"] = -3;
  EXPECT_NE(load_error(j.dump()).find("pairs"), std::string::npos);
  j = to_json(m);
  j["drift"] = "strong";
  EXPECT_NE(load_error(j.dump()).find("drift"), std::string::npos);
}

// Where the fitted run's host kept its two CPUs travels with the model (a drawn simulation
// draws each replication's placement from it), each field checked when read; files without
// it read as none.
TEST_F(ModelJsonTest, ThePlacementsRoundTripAndAreCheckedWhenRead) {
  auto m = small_models();
  EXPECT_FALSE(m.placement.has_value());  // the synthetic dataset keeps no placement sentinel
  EXPECT_TRUE(to_json(m)["placement"].is_null());
  m.placement = datasets::placement_states{130.5, 0.78, 1.45, 518, 142};
  save_model(path_, m);
  const auto back = load_model(path_);
  ASSERT_TRUE(back.placement.has_value());
  EXPECT_DOUBLE_EQ(back.placement->split_ns, 130.5);
  EXPECT_DOUBLE_EQ(back.placement->near_share, 0.78);
  EXPECT_DOUBLE_EQ(back.placement->far_over_near, 1.45);
  EXPECT_EQ(back.placement->near_readings, 518u);
  EXPECT_EQ(back.placement->far_readings, 142u);
  auto j = to_json(m);
  j.erase("placement");
  std::ofstream(path_) << j.dump();
  EXPECT_FALSE(load_model(path_).placement.has_value());
  for (const auto& [field, bad, says] : {std::tuple{"near_share", nlohmann::json(1.2), "near_share 1.2"},
                                         std::tuple{"far_over_near", nlohmann::json(0), "far_over_near 0"},
                                         std::tuple{"split_ns", nlohmann::json(-1), "split_ns -1"},
                                         std::tuple{"far_readings", nlohmann::json(-2), "far_readings"}}) {
    j = to_json(m);
    j["placement"][field] = bad;
    EXPECT_NE(load_error(j.dump()).find(says), std::string::npos) << load_error(j.dump());
  }
  j = to_json(m);
  j["placement"] = 7;
  EXPECT_NE(load_error(j.dump()).find("'placement' is not an object"), std::string::npos);
}

// The corpus's spread between runs travels with the model (drawn simulations move each
// replication's machine by it), each field checked when read; files without it read as none.
TEST_F(ModelJsonTest, TheSpreadBetweenRunsRoundTripsAndIsCheckedWhenRead) {
  auto m = small_models();
  EXPECT_TRUE(to_json(m)["between_runs"].is_null());
  m.between_runs = between_runs_spread{0.128, 576, 9, 8, "minutes", "2026-12-07", "datasets/machines/b.json"};
  save_model(path_, m);
  const auto back = load_model(path_);
  ASSERT_TRUE(back.between_runs.has_value());
  EXPECT_DOUBLE_EQ(back.between_runs->log_sd, 0.128);
  EXPECT_EQ(back.between_runs->rows, 576u);
  EXPECT_EQ(back.between_runs->pairs, 9u);
  EXPECT_EQ(back.between_runs->hosts, 8u);
  EXPECT_EQ(back.between_runs->horizon, "minutes");
  EXPECT_EQ(back.between_runs->estimated, "2026-12-07");
  EXPECT_EQ(back.between_runs->source, "datasets/machines/b.json");
  auto j = to_json(m);
  j.erase("between_runs");
  std::ofstream(path_) << j.dump();
  EXPECT_FALSE(load_model(path_).between_runs.has_value());
  for (const auto& [field, bad, says] :
       {std::tuple{"log_sd", nlohmann::json(-0.1), "log_sd -0.1"},
        std::tuple{"log_sd", nlohmann::json("NaN"), "log_sd \"NaN\""},
        std::tuple{"log_sd", nlohmann::json(6), "log_sd 6"}, std::tuple{"rows", nlohmann::json(0), "rows 0"},
        std::tuple{"hosts", nlohmann::json(-1), "hosts -1"}}) {
    j = to_json(m);
    j["between_runs"][field] = bad;
    EXPECT_NE(load_error(j.dump()).find(std::string("'between_runs': ") + says), std::string::npos)
        << load_error(j.dump());
  }
  j = to_json(m);
  j["between_runs"] = 7;
  EXPECT_NE(load_error(j.dump()).find("'between_runs': not an object"), std::string::npos);
}

// The simulator's discrepancy travels with the model (drawn simulations scale their costs
// by it), each field checked when read; files without it read as none.
TEST_F(ModelJsonTest, TheSimulatorCheckRoundTripsAndIsCheckedWhenRead) {
  auto m = small_models();
  EXPECT_TRUE(to_json(m)["simulator_check"].is_null());
  m.simulator_check = simulator_discrepancy{0.125, 16, 0.147, 0.16, {"epoll", "poll"}};
  save_model(path_, m);
  const auto back = load_model(path_);
  ASSERT_TRUE(back.simulator_check.has_value());
  EXPECT_DOUBLE_EQ(back.simulator_check->log_sd, 0.125);
  EXPECT_EQ(back.simulator_check->rows, 16u);
  EXPECT_DOUBLE_EQ(back.simulator_check->median_abs_error, 0.147);
  EXPECT_DOUBLE_EQ(back.simulator_check->rms_log_error, 0.16);
  EXPECT_EQ(back.simulator_check->mechanisms, (std::vector<std::string>{"epoll", "poll"}));
  auto j = to_json(m);
  j.erase("simulator_check");
  std::ofstream(path_) << j.dump();
  EXPECT_FALSE(load_model(path_).simulator_check.has_value());
  j = to_json(m);
  j["simulator_check"]["log_sd"] = -0.1;
  EXPECT_NE(load_error(j.dump()).find("log_sd -0.1"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["simulator_check"]["rows"] = 0;
  EXPECT_NE(load_error(j.dump()).find("rows"), std::string::npos);
  j = to_json(m);
  j["simulator_check"]["mechanisms"] = {1};
  EXPECT_NE(load_error(j.dump()).find("mechanisms"), std::string::npos);
  j = to_json(m);
  j["simulator_check"] = 3;
  EXPECT_NE(load_error(j.dump()).find("simulator_check"), std::string::npos);
}

// The serial stages travel with the model (a simulation of threads on one epoll instance
// charges their hold), each field checked when read; files without them read as none.
TEST_F(ModelJsonTest, TheSerialStagesRoundTripAndAreCheckedWhenRead) {
  auto m = small_models();
  EXPECT_TRUE(m.serial_stages.empty());
  EXPECT_TRUE(to_json(m)["serial_stages"].empty());
  stage_hold h;
  h.experiment.scenario = "shared_epoll";
  h.experiment.mechanism = "epoll";
  h.experiment.variant = "lt";
  h.experiment.fd_kind = "pipe";
  h.experiment.metric = "throughput";
  h.experiment.unit = "1/s";
  h.experiment.n_active = 1;  // one token among the threads: kept apart from a token each
  h.structure = "the one epoll instance";
  h.hold_s = 1.25e-6;
  h.hold_sd_s = 0.1e-6;
  h.residual_sd = std::numeric_limits<double>::quiet_NaN();
  h.df = 0;
  h.points = 1;
  h.cpus = 2;
  h.max_threads = 2;
  m.serial_stages = {h};
  save_model(path_, m);
  const auto back = load_model(path_);
  ASSERT_EQ(back.serial_stages.size(), 1u);
  EXPECT_EQ(back.serial_stages[0].experiment, h.experiment);
  EXPECT_DOUBLE_EQ(back.serial_stages[0].hold_s, 1.25e-6);
  EXPECT_DOUBLE_EQ(back.serial_stages[0].hold_sd_s, 0.1e-6);
  EXPECT_TRUE(std::isnan(back.serial_stages[0].residual_sd));
  EXPECT_EQ(back.serial_stages[0].cpus, 2);
  auto j = to_json(m);
  j.erase("serial_stages");
  std::ofstream(path_) << j.dump();
  EXPECT_TRUE(load_model(path_).serial_stages.empty());
  j = to_json(m);
  j["serial_stages"][0]["hold_s"] = -1e-6;
  EXPECT_NE(load_error(j.dump()).find("serial_stages[0]: 'hold_s'"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["serial_stages"][0]["cpus"] = 1;
  EXPECT_NE(load_error(j.dump()).find("'cpus' 1 is below 2"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["serial_stages"][0]["experiment"]["mechanism"] = "kqueue2";
  EXPECT_NE(load_error(j.dump()).find("kqueue2"), std::string::npos);
  j = to_json(m);
  j["serial_stages"] = "held";
  EXPECT_NE(load_error(j.dump()).find("serial_stages"), std::string::npos);
}

// The call spread travels with the model too (a simulation varies each call by it), each
// shape checked when read; files without it read as none.
TEST_F(ModelJsonTest, TheCallSpreadRoundTripsAndIsCheckedWhenRead) {
  auto m = small_models();
  EXPECT_FALSE(m.call_spread.has_value());
  EXPECT_TRUE(to_json(m)["call_spread"].is_null());
  datasets::spread_shape slow, fast;
  slow.point = "call_spread/poll/pipe n=4096";
  slow.mean_ns = 60000;
  slow.ratios = {0.8, 0.85, 0.9, 0.92, 0.95, 0.98, 1.01, 1.05, 1.1, 1.6, 3.0, 9.5};
  slow.samples = 3000;
  slow.visits = 3;
  fast = slow;
  fast.point = "call_spread/poll/pipe n=16";
  fast.mean_ns = 1200;
  m.call_spread = datasets::call_spread{{slow, fast}, {fast}, {fast}, {}};  // out of order: read back sorted
  save_model(path_, m);
  const auto back = load_model(path_);
  ASSERT_TRUE(back.call_spread.has_value());
  ASSERT_EQ(back.call_spread->wait_calls.size(), 2u);
  EXPECT_EQ(back.call_spread->wait_calls[0].point, fast.point);
  EXPECT_EQ(back.call_spread->wait_calls[1].ratios, slow.ratios);
  EXPECT_DOUBLE_EQ(back.call_spread->wait_calls[1].mean_ns, 60000);
  EXPECT_EQ(back.call_spread->handlers.size(), 1u);
  EXPECT_EQ(back.call_spread->handlers[0].samples, 3000u);
  EXPECT_EQ(back.call_spread->wakeups_same_cpu.size(), 1u);
  EXPECT_TRUE(back.call_spread->wakeups_cross_cpu.empty());
  auto j = to_json(m);
  j.erase("call_spread");
  std::ofstream(path_) << j.dump();
  EXPECT_FALSE(load_model(path_).call_spread.has_value());
  j = to_json(m);
  j["call_spread"]["wait_calls"][0]["ratios"].erase(0);
  EXPECT_NE(load_error(j.dump()).find("call_spread.wait_calls[0].ratios"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["call_spread"]["handlers"][0]["ratios"][3] = 0.1;
  EXPECT_NE(load_error(j.dump()).find("must not decrease"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["call_spread"]["probabilities"][1] = 0.02;
  EXPECT_NE(load_error(j.dump()).find("probabilities"), std::string::npos);
  j = to_json(m);
  j["call_spread"]["wait_calls"][0]["mean_ns"] = -5;
  EXPECT_NE(load_error(j.dump()).find("mean_ns"), std::string::npos);
  j = to_json(m);
  j["call_spread"].erase("wakeups_cross_cpu");
  EXPECT_NE(load_error(j.dump()).find("wakeups_cross_cpu is missing"), std::string::npos) << load_error(j.dump());
  j = to_json(m);
  j["call_spread"] = 3;
  EXPECT_NE(load_error(j.dump()).find("call_spread"), std::string::npos);
}

TEST_F(ModelJsonTest, AMissingFileIsAFormatError) {
  EXPECT_THROW(load_model(path_.string() + ".absent"), datasets::input_error);
}

}  // namespace
}  // namespace pollscale::model
