// pollscale compare end to end: two small datasets written to disk, the verdict's exit code
// under --fail-on-regression (3 for a planted 30% slowdown of one mechanism, 0 without the
// gate or without the slowdown), the JSON shape, and one-line errors with exit 2.

#include <gtest/gtest.h>

#include <array>

#include <algorithm>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "datasets/dataset.hpp"
#include "tests/app/cli_fixture.hpp"
#include "tests/app/run_command.hpp"

namespace pollscale::test {
namespace {

namespace fs = std::filesystem;

// 2 mechanisms x 12 n, 3 visits of 6 batches; each point scatters 5% between runs.
datasets::dataset run(unsigned seed, double poll_factor) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> point_off(0, 0.05), visit_off(0, 0.02), batch(0, 0.01);
  datasets::dataset d;
  d.context = {{"schema_version", datasets::schema_version}, {"host", "test"}};
  for (const char* mech : {"poll", "epoll"})
    for (int i = 0; i < 12; ++i) {
      datasets::key k;
      k.scenario = "find_active";
      k.mechanism = mech;
      k.fd_kind = "pipe";
      k.n_fds = 10 + 50 * i;
      k.n_active = 1;
      k.metric = "time_per_call";
      k.unit = "ns";
      const double point =
          (300 + 2.0 * double(*k.n_fds)) * (std::string(mech) == "poll" ? poll_factor : 1) * std::exp(point_off(rng));
      for (int v = 0; v < 3; ++v) {
        const double visit = point * std::exp(visit_off(rng));
        for (int b = 0; b < 6; ++b)
          d.samples.push_back({k, v * 6 + b, visit * std::exp(batch(rng)), 1, v, {}, {}, {}, {}});
      }
    }
  d.summaries = datasets::summarise_samples(d.samples);
  return d;
}

class CompareCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pollscale_compare_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    datasets::write_dataset(dir_ / "a", run(1, 1.0));
    datasets::write_dataset(dir_ / "same", run(2, 1.0));
    datasets::write_dataset(dir_ / "slow", run(2, 1.3));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const char* name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CompareCliTest, ARegressionBeyondTheGateExitsThree) {
  const auto gated = run_pollscale("compare " + at("a") + " " + at("slow") + " --fail-on-regression 10");
  EXPECT_EQ(gated.rc, 3) << gated.err;
  EXPECT_NE(gated.out.find("REGRESSION"), std::string::npos) << gated.out;
  EXPECT_NE(gated.out.find("find_active/poll/pipe"), std::string::npos);
  // Without the gate the same comparison is an answer, not a failure.
  const auto plain = run_pollscale("compare " + at("a") + " " + at("slow"));
  EXPECT_EQ(plain.rc, 0) << plain.err;
  EXPECT_NE(plain.out.find("slower"), std::string::npos);
  // A gate above the slowdown is not tripped.
  EXPECT_EQ(run_pollscale("compare " + at("a") + " " + at("slow") + " --fail-on-regression 60").rc, 0);
}

TEST_F(CompareCliTest, TwoRunsOfTheSameMachinePassTheGate) {
  const auto r = run_pollscale("compare " + at("a") + " " + at("same") + " --fail-on-regression 5 --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["points"].size(), 24u);
  EXPECT_EQ(j["series"].size(), 2u);
  EXPECT_EQ(j["series_regressions"], 0);
  EXPECT_EQ(j["gate"], "mechanisms");
  for (const char* f :
       {"a", "b", "alpha", "regression_min", "between_run_sd", "between_series_sd", "median_ratio", "only_a", "only_b"})
    EXPECT_TRUE(j.contains(f)) << f;
  const auto& p = j["points"][0];
  for (const char* f : {"key", "a", "b", "ratio", "ratio_lo", "ratio_hi", "slowdown", "p_holm", "p_welch_raw",
                        "p_mw_raw", "significant", "regression"})
    EXPECT_TRUE(p.contains(f)) << f;
  EXPECT_EQ(p["a"]["visits"], 3);
  EXPECT_TRUE(p["key"]["n_fds"].is_number_integer());  // counts as integers, as in calibrate's JSON
  EXPECT_DOUBLE_EQ(j["regression_min"].get<double>(), 0.05);
}

// B on a machine 30% slower in everything: against no change both mechanisms are
// regressions; against the machine's own shift (--relative) neither moved, and the shift is
// reported as the reference.
TEST_F(CompareCliTest, RelativeJudgesAgainstTheMachinesShift) {
  auto slower = run(2, 1.0);
  for (auto& x : slower.samples) x.value *= 1.3;
  slower.summaries = datasets::summarise_samples(slower.samples);
  datasets::write_dataset(dir_ / "machine_slower", slower);
  const std::string pair = "compare " + at("a") + " " + at("machine_slower") + " --fail-on-regression 10";
  EXPECT_EQ(run_pollscale(pair).rc, 3);
  const auto r = run_pollscale(pair + " --relative --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["relative_to_machine"].get<bool>());
  EXPECT_NEAR(j["reference_ratio"].get<double>(), 1.3, 0.05);
  EXPECT_EQ(j["mechanism_regressions"], 0);
  for (const auto& m : j["mechanisms"]) EXPECT_NEAR(m["ratio"].get<double>(), 1.0, 0.05) << m;
  const auto text = run_pollscale(pair + " --relative");
  EXPECT_NE(text.out.find("relative to the machine's shift"), std::string::npos) << text.out;
  EXPECT_FALSE(nlohmann::json::parse(run_pollscale(pair + " --format json").out)["relative_to_machine"].get<bool>());
}

// B met its machine's slow mode (1.3x, and its drift sentinel said so) in two visits of
// three. As measured, every mechanism reads about 1.3x with an interval as wide as the spells
// (not significant: compare is honest about the visits' spread); brought to each run's fast
// mode by its own sentinel (--statistic adjusted), the mix is gone, the intervals are a few
// percent wide, and a real 15% slowdown of poll under the same spells is a regression. A
// run without a drift sentinel cannot be adjusted: one line naming its context.json, exit 2.
TEST_F(CompareCliTest, AdjustedSeesThroughTheSlowSpellsTheSentinelSaw) {
  const auto with_sentinel = [](datasets::dataset d, bool slow_spells) {
    d.context["stability"] = {{"p10_ns", 2000.0}, {"median_ns", 2000.0}};
    for (auto& x : d.samples) {
      const double slow = slow_spells && x.visit > 0 ? 1.3 : 1.0;
      x.value *= slow;
      x.sentinel_ns = 2000.0 * slow;
    }
    d.summaries = datasets::summarise_samples(d.samples);
    return d;
  };
  datasets::write_dataset(dir_ / "a_s", with_sentinel(run(1, 1.0), false));
  datasets::write_dataset(dir_ / "b_s", with_sentinel(run(2, 1.0), true));
  datasets::write_dataset(dir_ / "b_poll", with_sentinel(run(2, 1.15), true));
  const std::string pair = "compare " + at("a_s") + " " + at("b_s") + " --fail-on-regression 10 --format json";
  const auto ratios = [](const nlohmann::json& j, const std::string& mechanism) {
    for (const auto& m : j["mechanisms"])
      if (m["key"]["mechanism"] == mechanism)
        return std::array{m["ratio"].get<double>(), m["ratio_lo"].get<double>(), m["ratio_hi"].get<double>()};
    ADD_FAILURE() << "no mechanism " << mechanism;
    return std::array{0.0, 0.0, 0.0};
  };
  const auto measured = run_pollscale(pair);
  ASSERT_EQ(measured.rc, 0) << measured.err;
  const auto m = nlohmann::json::parse(measured.out);
  EXPECT_EQ(m["statistic"], "median");
  const auto adjusted_run = run_pollscale(pair + " --statistic adjusted");
  ASSERT_EQ(adjusted_run.rc, 0) << adjusted_run.err;
  const auto a = nlohmann::json::parse(adjusted_run.out);
  EXPECT_EQ(a["statistic"], "adjusted");
  for (const char* mechanism : {"poll", "epoll"}) {
    const auto before = ratios(m, mechanism), after = ratios(a, mechanism);
    EXPECT_GT(before[0], 1.2) << mechanism;
    EXPECT_GT(before[2] - before[1], 0.4) << mechanism;
    EXPECT_NEAR(after[0], 1.0, 0.06) << mechanism;
    EXPECT_LT(after[2] - after[1], 0.15) << mechanism;
  }
  const auto poll = run_pollscale("compare " + at("a_s") + " " + at("b_poll") +
                                  " --fail-on-regression 10 --format json --statistic adjusted");
  EXPECT_EQ(poll.rc, 3) << poll.err;
  EXPECT_NEAR(ratios(nlohmann::json::parse(poll.out), "poll")[0], 1.15, 0.06);
  const auto none = run_pollscale("compare " + at("a") + " " + at("b_s") + " --statistic adjusted");
  EXPECT_EQ(none.rc, 2);
  EXPECT_NE(none.err.find((dir_ / "a" / "context.json").string()), std::string::npos) << none.err;
  EXPECT_EQ(run_pollscale(pair + " --statistic fastest").rc, 2);
}

TEST_F(CompareCliTest, SeveralRunsPerSideAreCommaSeparated) {
  datasets::write_dataset(dir_ / "a2", run(3, 1.0));
  datasets::write_dataset(dir_ / "slow2", run(4, 1.3));
  const auto r = run_pollscale("compare " + at("a") + "," + at("a2") + " " + at("slow") + "," + at("slow2") +
                               " --fail-on-regression 10 --format json");
  EXPECT_EQ(r.rc, 3) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["points"][0]["a"]["runs"], 2);
  EXPECT_EQ(j["points"][0]["a"]["visits"], 6);
  EXPECT_EQ(run_pollscale("compare " + at("a") + ",," + at("a2") + " " + at("slow")).rc, 2);
}

TEST_F(CompareCliTest, CsvHasOneRowPerMechanismSeriesAndPoint) {
  const auto r = run_pollscale("compare " + at("a") + " " + at("slow") + " --format csv");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("level,scenario,", 0), 0u) << r.out.substr(0, 200);
  const std::string header = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(header.find(",pinning,"), header.rfind(",pinning,")) << header;  // one column per key field
  EXPECT_EQ(lines(r.out), 1 + 2 + 2 + 24);                                   // header, mechanisms, series, points
}

TEST_F(CompareCliTest, BadInputIsOneLineAndExitTwo) {
  for (const std::string& args :
       {"compare " + at("a") + " " + at("missing"), "compare " + at("a") + " " + at("same") + " --alpha 2",
        "compare " + at("a") + " " + at("same") + " --fail-on-regression -1",
        "compare " + at("a") + " " + at("same") + " --points some",
        "compare " + at("a") + " " + at("same") + " --gate everything", "compare " + at("a")}) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace
}  // namespace pollscale::test
