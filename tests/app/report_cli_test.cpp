// pollscale report with --model: the report of a dataset and the model fitted on it shows the
// fitted curves with their bands and says where the model puts the poll/epoll crossover, as
// the study's report does; a model fitted on other data is drawn but said to be so; a model
// that cannot be read is one line and exit 2.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/app/run_command.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::test {
namespace {

namespace fs = std::filesystem;

const std::string synthetic = std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic";

TEST(ReportCliTest, AModelAddsTheFittedCurvesAndTheCrossoverToTheVerdict) {
  const scratch_dir s("report_cli");
  const auto model = (s.path() / "model.json").string();
  ASSERT_EQ(run_pollscale("fit " + synthetic + " -o " + model).rc, 0);
  const auto r = run_pollscale("report " + synthetic + " --model " + model + " -o " + (s.path() / "r").string());
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;  // fitted on this very dataset
  const std::string md = slurp((s.path() / "r" / "report.md").string());
  EXPECT_NE(md.find("## The fitted models against their points"), std::string::npos) << md;
  EXPECT_TRUE(fs::exists(s.path() / "r" / "figures" / "fitted_curves.svg"));
  // The crossover line sits inside the verdict, before the machine table.
  const auto crossover = md.find("By the fitted model, epoll's wait call");
  ASSERT_NE(crossover, std::string::npos) << md;
  EXPECT_LT(md.find("## Verdict"), crossover);
  EXPECT_LT(crossover, md.find("## Machine"));

  // Without --model: neither.
  const auto plain = run_pollscale("report " + synthetic + " -o " + (s.path() / "p").string());
  ASSERT_EQ(plain.rc, 0) << plain.err;
  const std::string plain_md = slurp((s.path() / "p" / "report.md").string());
  EXPECT_EQ(plain_md.find("## The fitted models against their points"), std::string::npos);
  EXPECT_EQ(plain_md.find("By the fitted model"), std::string::npos);
}

TEST(ReportCliTest, AModelOfOtherDataIsDrawnAndSaidToBe) {
  const scratch_dir s("report_cli");
  // The same measurements under another context: what a model from another host looks like.
  const fs::path other = s.path() / "other";
  fs::create_directories(other);
  for (const char* f : {"samples.csv", "summary.csv"}) fs::copy_file(fs::path(synthetic) / f, other / f);
  auto context = nlohmann::json::parse(slurp(synthetic + "/context.json"));
  context["hostname"] = "another-host";
  std::ofstream(other / "context.json") << context.dump(2) << "\n";
  const auto model = (s.path() / "other.json").string();
  ASSERT_EQ(run_pollscale("fit " + other.string() + " -o " + model).rc, 0);
  const auto r = run_pollscale("report " + synthetic + " --model " + model + " -o " + (s.path() / "r").string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + model + " was fitted on " + other.string()), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(s.path() / "r" / "figures" / "fitted_curves.svg"));
}

TEST(ReportCliTest, AModelThatCannotBeReadIsOneLineAndExitTwo) {
  const scratch_dir s("report_cli");
  std::ofstream(s.path() / "broken.json") << "{\"cells\": [";
  for (const std::string& m : {std::string("/nonexistent/model.json"), (s.path() / "broken.json").string()}) {
    SCOPED_TRACE(m);
    const auto r = run_pollscale("report " + synthetic + " --model " + m + " -o " + (s.path() / "r").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(m), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace pollscale::test
