// pollscale study on an existing dataset: every step runs, its output is kept, a step
// that cannot run is recorded (not fatal), the report is written; bad input exits 2.

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/app/run_command.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::test {
namespace {

namespace fs = std::filesystem;

TEST(StudyCliTest, RunsEveryStepOnAnExistingDatasetAndWritesTheReport) {
  const scratch_dir scratch("study");
  const fs::path out = scratch.path() / "out";  // study makes it
  const std::string data = std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic";
  const auto r = run_pollscale("study --data " + data + " --out " + out.string());
  const auto manifest = nlohmann::json::parse(slurp((out / "study.json").string()));
  std::map<std::string, nlohmann::json> steps;
  for (const auto& s : manifest["steps"]) steps[s["step"].get<std::string>()] = s;
  for (const char* name :
       {"fit", "validate (extrapolation)", "validate (interpolation)", "validate (historical)", "scale (published)"}) {
    ASSERT_TRUE(steps.count(name)) << name;
    EXPECT_EQ(steps[name]["exit_code"], 0) << name << ": " << steps[name]["error"];
  }
  EXPECT_TRUE(fs::exists(out / "model.json"));
  EXPECT_TRUE(fs::exists(out / "predictions.json"));
  const auto extrapolation = nlohmann::json::parse(slurp((out / "validation" / "extrapolation.json").string()));
  EXPECT_GT(extrapolation["summary"]["n"].get<int>(), 0);
  // The fixture has no producers rows: only the published scaling tables are fitted.
  EXPECT_FALSE(steps.count("scale (this machine)"));
  const auto published = nlohmann::json::parse(slurp((out / "validation" / "scaling_published.json").string()));
  EXPECT_EQ(published["tables"].size(), 4u);
  // The synthetic fixture has no ipc or wakeup rows: the simulation has no handler cost,
  // which is recorded as a failed step with its reason, and the study says so by exit 1.
  ASSERT_TRUE(steps.count("simulate a server (whatif)"));
  EXPECT_NE(steps["simulate a server (whatif)"]["error"].get<std::string>().find("handler"), std::string::npos);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(manifest["status"], "some steps failed");
  const std::string md = slurp((out / "report" / "report.md").string());
  for (const char* section :
       {"## Fitted cost models", "## Extrapolation on this machine", "## The historical record",
        "## Predictions beyond what this machine can register", "## CPU scaling", "### Published stress-epoll tables"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  // The answer first: the verdict heads the report, and the study adds the model's accuracy.
  EXPECT_LT(md.find("## Verdict"), md.find("## Machine"));
  EXPECT_NE(md.find("accuracy targets on this machine's calibration"), std::string::npos) << md;
  // Historical tables are labelled by their citation, not the seed file they were read from.
  EXPECT_EQ(md.find("| seeds/"), std::string::npos) << md;
  // study.json's commands can be pasted into a shell: a --train expression is one quoted word.
  EXPECT_NE(slurp((out / "study.json").string()).find("--train 'n_fds<=1000'"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "report" / "report.html"));
  EXPECT_NE(r.out.find("validate (historical)"), std::string::npos);  // the step table on stdout
}

TEST(StudyCliTest, BadInputIsOneLineAndExitTwo) {
  for (const char* args :
       {"study --data /nonexistent/dataset", "study --quick --full", "study --active 0", "study --data /tmp --quick"}) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace pollscale::test
