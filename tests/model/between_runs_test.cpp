// The corpus file of the spread between runs (model/between_runs.hpp): each horizon read
// with the file's date and name, and every malformed file refused in one line naming the
// file and the field.

#include "model/between_runs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "datasets/input_error.hpp"

namespace pollscale::model {
namespace {

namespace fs = std::filesystem;

class BetweenRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("pollscale_between_runs_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
  }
  void TearDown() override { fs::remove(path_); }

  static nlohmann::json good() {
    return nlohmann::json::parse(R"({
      "kind": "pollscale between-runs spread", "schema_version": 1, "estimated": "2026-12-07",
      "horizons": {
        "minutes": {"log_sd": 0.128, "rows": 576, "pairs": 9, "hosts": 8, "per_host": []},
        "hours": {"log_sd": 0.371, "rows": 352, "pairs": 7, "hosts": 4}}})");
  }
  void write(const nlohmann::json& j) const { std::ofstream(path_) << j.dump(); }
  std::string error_of(const nlohmann::json& j, const std::string& horizon = "minutes") const {
    write(j);
    try {
      read_between_runs(path_, horizon);
    } catch (const datasets::input_error& e) {
      return e.what();
    }
    return "(read)";
  }

  fs::path path_;
};

TEST_F(BetweenRunsTest, EachHorizonIsReadWithTheFilesDateAndName) {
  write(good());
  const between_runs_spread m = read_between_runs(path_, "minutes");
  EXPECT_DOUBLE_EQ(m.log_sd, 0.128);
  EXPECT_EQ(m.rows, 576u);
  EXPECT_EQ(m.pairs, 9u);
  EXPECT_EQ(m.hosts, 8u);
  EXPECT_EQ(m.horizon, "minutes");
  EXPECT_EQ(m.estimated, "2026-12-07");
  EXPECT_EQ(m.source, path_.string());
  const between_runs_spread h = read_between_runs(path_, "hours");
  EXPECT_DOUBLE_EQ(h.log_sd, 0.371);
  EXPECT_EQ(h.hosts, 4u);
  EXPECT_EQ(h.horizon, "hours");
  EXPECT_THROW(read_between_runs(path_, "days"), std::invalid_argument);
}

TEST_F(BetweenRunsTest, AMalformedFileIsRefusedNamingTheFileAndTheField) {
  const std::string p = path_.string();
  auto j = good();
  j["kind"] = "pollscale model set";
  EXPECT_EQ(error_of(j), p + ": not a between-runs file (kind \"pollscale model set\"; "
                             "scripts/corpus_between_runs.py writes one)");
  j = good();
  j["schema_version"] = 2;
  EXPECT_EQ(error_of(j), p + ": schema_version 2 is not supported (this build reads 1)");
  j = good();
  j["horizons"].erase("hours");
  EXPECT_EQ(error_of(j, "hours"),
            p + ": no 'hours' horizon (the corpus has no two runs of one host an hour or more apart)");
  for (const auto& [field, bad, says] :
       {std::tuple{"log_sd", nlohmann::json(-1), "log_sd -1 is not a number in [0, 5]"},
        std::tuple{"log_sd", nlohmann::json(nullptr), "log_sd null is not a number in [0, 5]"},
        std::tuple{"log_sd", nlohmann::json(1e300), "log_sd 1e+300 is not a number in [0, 5]"},
        std::tuple{"rows", nlohmann::json(0), "rows 0 is not a count > 0"},
        std::tuple{"pairs", nlohmann::json(2.5e30), "pairs 2.5e+30 is not a count > 0"},
        std::tuple{"hosts", nlohmann::json("8"), "hosts \"8\" is not a count > 0"}}) {
    j = good();
    j["horizons"]["minutes"][field] = bad;
    EXPECT_EQ(error_of(j), p + ": horizons.minutes: " + says);
  }
  std::ofstream(path_) << "{\"kind\": ";  // cut short
  EXPECT_THROW(read_between_runs(path_, "minutes"), datasets::input_error);
  fs::remove(path_);
  EXPECT_THROW(read_between_runs(path_, "minutes"), datasets::input_error);
}

}  // namespace
}  // namespace pollscale::model
