#include "model/validation.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "datasets/csv_table.hpp"
#include "datasets/dataset.hpp"
#include "datasets/input_error.hpp"
#include "datasets/schema.hpp"
#include "model/observations.hpp"
#include "tests/model/synthetic.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::model {
namespace {

namespace fs = std::filesystem;

const fs::path fixture = fs::path(POLLSCALE_SOURCE_DIR) / "tests/model/data/synthetic";
const fs::path historical = fs::path(POLLSCALE_SOURCE_DIR) / "datasets/historical";

TEST(ValidationTest, FixtureDatasetIsPredictedWithinTargets) {
  const auto data = load_observations(fixture);
  validation_options o;
  o.train = "n_fds<=1000";
  const auto v = validate(data, o);
  EXPECT_EQ(v.rows.size(), 24u);  // six cells, four larger n each
  EXPECT_GE(v.overall.coverage, 0.9);
  EXPECT_LE(v.overall.median_rel_err, 0.05);
  EXPECT_EQ(v.overall.n, v.rows.size());
  for (const auto& r : v.rows) {
    EXPECT_GT(*r.o->k.n_fds, 1000);
    EXPECT_TRUE(r.extrapolated);
    EXPECT_NEAR(r.extrapolation, static_cast<double>(*r.o->k.n_fds) / 1000, 1e-9);
  }
  ASSERT_EQ(v.groups.size(), 6u);
  for (const auto& g : v.groups) EXPECT_LE(g.acc.mape, 0.10) << g.group[1] << "/" << g.group[2];
}

TEST(ValidationTest, HistoricalTablesArePredictedFromTheirSmallerN) {
  const auto data = load_observations(historical);
  validation_options o;
  o.train = "n_fds<max";
  o.group_by = {"source", "platform", "kernel", "scenario", "mechanism", "variant", "metric"};
  o.fit.skip_unfittable = true;  // tables with one point per platform (Kegel's select)
  const auto v = validate(data, o);
  EXPECT_GE(v.rows.size(), 15u);
  EXPECT_FALSE(v.skipped.empty());
  EXPECT_LE(v.overall.median_rel_err, 0.15);
}

// --statistic fastest reads summary.csv's fastest batch (min; max for a rate) instead of
// the median, without raw samples to bootstrap from; the historical record is unchanged.
TEST(ValidationTest, TheFastestBatchIsReadWhenAsked) {
  const auto median = load_observations(fixture);
  const auto fastest = load_observations(fixture, point_statistic::fastest);
  ASSERT_EQ(median.rows.size(), fastest.rows.size());
  EXPECT_EQ(fastest.statistic, point_statistic::fastest);
  const auto summaries = datasets::read_dataset(fixture).summaries;
  ASSERT_EQ(summaries.size(), fastest.rows.size());
  for (std::size_t i = 0; i < fastest.rows.size(); ++i) {
    const bool rate = summaries[i].k.unit.starts_with("1/");
    EXPECT_EQ(fastest.rows[i].value, rate ? summaries[i].s.max : summaries[i].s.min);
    EXPECT_EQ(median.rows[i].value, summaries[i].s.median);
    EXPECT_LE(fastest.rows[i].value, rate ? 1e300 : median.rows[i].value);
    EXPECT_TRUE(fastest.rows[i].samples.empty());
  }
  const auto hist = load_observations(historical, point_statistic::fastest);
  const auto hist_median = load_observations(historical);
  ASSERT_EQ(hist.rows.size(), hist_median.rows.size());
  EXPECT_EQ(hist.rows[0].value, hist_median.rows[0].value);
  EXPECT_EQ(std::string(statistic_name(parse_point_statistic("fastest"))), "fastest");
  EXPECT_THROW(parse_point_statistic("mean"), std::invalid_argument);
}

// --statistic adjusted brings every visit to the run's fast mode by the drift sentinel read
// at it: a planted machine that ran 1.5x slower in one visit of each point (and said so in
// its sentinel) reads the planted cost back; a rate the same way, inverted; a count as
// measured. The samples the bootstrap resamples are the adjusted ones.
TEST(ValidationTest, TheAdjustedStatisticBringsEveryVisitToTheFastMode) {
  const pollscale::test::scratch_dir scratch("adjusted");
  const fs::path& dir = scratch.path();
  constexpr double fast_ns = 2000;
  const auto make = [&](bool with_stability) {
    datasets::dataset d;
    d.context = {{"schema_version", datasets::schema_version}, {"host", "test"}};
    if (with_stability) d.context["stability"] = {{"p10_ns", fast_ns}, {"median_ns", 2400.0}};
    const auto add = [&](const std::string& metric, const std::string& unit, double value, bool rate) {
      datasets::key k = test::cell_key("poll", metric, unit);
      k.n_fds = 100;
      k.n_active = 1;
      for (int v = 0; v < 3; ++v) {
        const double slow = v == 1 ? 1.5 : (v == 2 ? 1.2 : 1.0);  // the machine's state at the visit
        for (int b = 0; b < 5; ++b) {
          datasets::sample_row r;
          r.k = k;
          r.rep = v * 5 + b;
          r.value = rate ? value / slow : (unit == "1" ? value : value * slow);
          r.visit = v;
          r.sentinel_ns = fast_ns * slow;
          d.samples.push_back(r);
        }
      }
    };
    add("time_per_call", "ns", 1000, false);
    add("throughput", "1/s", 5e5, true);
    add("wakeups", "1", 2, false);
    d.summaries = datasets::summarise_samples(d.samples);
    return d;
  };
  datasets::write_dataset(dir / "with", make(true));
  const auto median = load_observations(dir / "with");
  const auto adjusted = load_observations(dir / "with", point_statistic::adjusted);
  ASSERT_EQ(adjusted.rows.size(), 3u);
  EXPECT_EQ(adjusted.statistic, point_statistic::adjusted);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& o = adjusted.rows[i];
    const double planted = o.k.metric == "time_per_call" ? 1000 : (o.k.metric == "throughput" ? 5e5 : 2);
    EXPECT_NEAR(o.value, planted, planted * 1e-12) << o.k.metric;
    ASSERT_EQ(o.visit_medians.size(), 3u);
    for (const double m : o.visit_medians) EXPECT_NEAR(m, planted, planted * 1e-12);
    for (const double x : o.samples) EXPECT_NEAR(x, planted, planted * 1e-12);
  }
  // The plain median keeps the slow visit's share: 1.2x the planted cost, 1/1.2 the rate.
  for (const auto& o : median.rows) {
    const double planted = o.k.metric == "time_per_call" ? 1200 : (o.k.metric == "throughput" ? 5e5 / 1.2 : 2);
    EXPECT_NEAR(o.value, planted, planted * 1e-12) << o.k.metric;
  }
  EXPECT_EQ(std::string(statistic_name(parse_point_statistic("adjusted"))), "adjusted");
  // A run without a drift sentinel cannot be adjusted: refused, naming its context.json.
  datasets::write_dataset(dir / "without", make(false));
  try {
    load_observations(dir / "without", point_statistic::adjusted);
    ADD_FAILURE() << "a dataset without stability.p10_ns was adjusted";
  } catch (const datasets::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("context.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("p10_ns"), std::string::npos) << e.what();
  }
}

TEST(ValidationTest, AccuracyStatisticsAreNamedForWhatTheyAre) {
  validation_row a, b, c;
  a.measured = 100, a.predicted = 110, a.rel_err = 0.10, a.lo = 90, a.hi = 120, a.has_interval = true;
  b.measured = 100, b.predicted = 80, b.rel_err = -0.20, b.lo = 70, b.hi = 95, b.has_interval = true;
  c.measured = 100, c.predicted = 101, c.rel_err = 0.01;
  const auto acc = accuracy_of({&a, &b, &c});
  EXPECT_EQ(acc.n, 3u);
  EXPECT_NEAR(acc.mape, (0.10 + 0.20 + 0.01) / 3, 1e-12);
  EXPECT_NEAR(acc.median_rel_err, 0.10, 1e-12);
  EXPECT_NEAR(acc.max_rel_err, 0.20, 1e-12);
  EXPECT_EQ(acc.n_with_interval, 2u);
  EXPECT_NEAR(acc.coverage, 0.5, 1e-12);
  // Half-widths relative to the prediction: 15/110 and 12.5/80; their median.
  EXPECT_NEAR(acc.median_rel_halfwidth, (15.0 / 110 + 12.5 / 80) / 2, 1e-12);
  // Interval scores relative to the measurement: a covers (width 30); b misses by 5,
  // charged 2/0.05 = 40 times: (25 + 200) / 100.
  EXPECT_NEAR(relative_interval_score(a.lo, a.hi, a.measured), 0.30, 1e-12);
  EXPECT_NEAR(relative_interval_score(b.lo, b.hi, b.measured), 2.25, 1e-12);
  EXPECT_NEAR(acc.median_interval_score, (0.30 + 2.25) / 2, 1e-12);
  // A rate's interval open above is infinitely wide, not silently dropped.
  c.lo = 50, c.hi = std::numeric_limits<double>::infinity(), c.has_interval = true;
  const auto open = accuracy_of({&a, &b, &c});
  EXPECT_NEAR(open.median_interval_score, 2.25, 1e-12);  // median of 0.30, 2.25 and inf
  EXPECT_NEAR(open.median_rel_halfwidth, 12.5 / 80, 1e-12);
}

TEST(ValidationTest, BadProtocolsAreRejected) {
  const auto data = load_observations(fixture);
  validation_options o;
  o.train = "n_fds<0";
  EXPECT_THROW(validate(data, o), datasets::input_error);  // empty training set
  o.train = "n_fds>=0";
  EXPECT_THROW(validate(data, o), datasets::input_error);  // nothing held out
  o.train = "nfds<=1000";
  EXPECT_THROW(validate(data, o), std::invalid_argument);
  o.train = "n_fds<=1000";
  o.group_by = {"scenario", "colour"};
  EXPECT_THROW(validate(data, o), std::invalid_argument);
  o.group_by = default_group_by();
  o.train = "n_fds<=1";  // one n per cell: per_fd cannot be fitted
  try {
    validate(data, o);
    FAIL();
  } catch (const too_few_points& e) {
    EXPECT_NE(std::string(e.what()).find("too few points"), std::string::npos);
  }
}

class MalformedDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pollscale_malformed_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(fixture, dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void replace_line(const std::string& file, std::size_t line, const std::string& text) {
    std::ifstream in(dir_ / file);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    lines.at(line - 1) = text;
    std::ofstream out(dir_ / file);
    for (const auto& l : lines) out << l << "\n";
  }

  std::string error() {
    try {
      validate(load_observations(dir_), {});
    } catch (const datasets::input_error& e) {
      return e.what();
    }
    return "no error";
  }

  std::string line(const std::string& file, std::size_t n) {
    std::ifstream in(dir_ / file);
    std::string l;
    for (std::size_t i = 0; i < n; ++i) std::getline(in, l);
    return l;
  }

  fs::path dir_;
};

TEST_F(MalformedDatasetTest, NaNNegativeAndTextValuesNameFileAndLine) {
  for (const std::string bad : {"nan", "-3", "fast", "inf"}) {
    SetUp();
    std::string l = line("summary.csv", 5);
    l = l.substr(0, l.rfind(',')) + "," + bad;  // the max column
    replace_line("summary.csv", 5, l);
    const std::string e = error();
    EXPECT_NE(e.find("summary.csv:5"), std::string::npos) << bad << ": " << e;
  }
}

TEST_F(MalformedDatasetTest, MissingColumnsAndEmptyFilesAreNamed) {
  replace_line("summary.csv", 1, line("summary.csv", 1).substr(std::string("scenario,").size()));
  EXPECT_NE(error().find("summary.csv"), std::string::npos);
  SetUp();
  std::ofstream(dir_ / "summary.csv") << "";
  EXPECT_NE(error().find("summary.csv"), std::string::npos);
  SetUp();
  fs::remove(dir_ / "context.json");
  EXPECT_NE(error().find("context.json: missing"), std::string::npos);
  EXPECT_THROW(load_observations(dir_ / "absent"), datasets::input_error);
}

TEST_F(MalformedDatasetTest, AHistoricalFileWithABadRowNamesIt) {
  const fs::path csv = dir_ / "bad_table.csv";
  std::ofstream(csv) << "scenario,mechanism,variant,fd_kind,n_fds,n_active,active_pos,max_fd,blocking,threads,cpus,"
                        "metric,unit,value,stddev,source,platform,kernel,cpu_mhz,note\n"
                        "find_active,poll,,pipe,100,1,,,0,,,time_per_op,us,49,,seed,pc,2.4,,\n"
                        "find_active,poll,,pipe,1000,1,,,0,,,time_per_op,us,NaN,,seed,pc,2.4,,\n";
  try {
    load_observations(csv);
    FAIL();
  } catch (const datasets::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad_table.csv:3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pollscale::model
