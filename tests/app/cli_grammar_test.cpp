// One grammar for every command (docs/cli.md): the input positional, -o/--out for what is
// written, option names spelled in full, placeholders in --help, cells left out with a
// one-line summary unless --strict, and `pollscale cells` naming what predict can answer.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/app/cli_fixture.hpp"

namespace pollscale::test {
namespace {

namespace fs = std::filesystem;

using CliGrammarTest = cli_test;

TEST_F(CliGrammarTest, TheInputIsPositionalAndTheOldFlagsStillWork) {
  const auto positional = run_pollscale("validate " + fixture + " --train 'n_fds<=1000' --format json");
  ASSERT_EQ(positional.rc, 0) << positional.err;
  const auto flagged = run_pollscale("validate --data " + fixture + " --train 'n_fds<=1000' --format json");
  ASSERT_EQ(flagged.rc, 0) << flagged.err;
  EXPECT_EQ(positional.out, flagged.out);

  const std::string a = (dir_ / "a.json").string(), b = (dir_ / "b.json").string();
  ASSERT_EQ(run_pollscale("fit " + fixture + " --out " + a).rc, 0);
  ASSERT_EQ(run_pollscale("fit " + fixture + " --output " + b).rc, 0);  // fit's spelling before --out
  EXPECT_EQ(slurp(a), slurp(b));
  const auto both = run_pollscale("fit " + fixture + " --out " + a + " --output " + b);
  EXPECT_EQ(both.rc, 2);
  EXPECT_NE(both.err.find("--output"), std::string::npos) << both.err;

  const auto scale = run_pollscale("scale " + historical + "/scaling --format json");
  ASSERT_EQ(scale.rc, 0) << scale.err;
  EXPECT_EQ(scale.out, run_pollscale("scale --data " + historical + "/scaling --format json").out);
}

TEST_F(CliGrammarTest, OptionNamesAreNotGuessedFromAPrefix) {
  const auto r = run_pollscale("validate " + fixture + " --tra 'n_fds<=1000'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'--tra'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliGrammarTest, HelpShowsPlaceholdersNotArg) {
  for (const char* command : {"study", "calibrate", "fit", "predict", "cells", "validate", "scale", "report",
                              "simulate", "whatif", "capacity", "compare"}) {
    SCOPED_TRACE(command);
    const auto r = run_pollscale(std::string(command) + " --help");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.find(" arg "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("(=0."), r.out.find("(=0.") == std::string::npos ? std::string::npos : r.out.find("(=0."))
        << r.out;
    EXPECT_EQ(r.out.find("99999"), std::string::npos) << r.out;  // no binary-float defaults
  }
  EXPECT_NE(run_pollscale("fit --help").out.find("-o [ --out ] FILE"), std::string::npos);
}

TEST_F(CliGrammarTest, UnfittableCellsAreLeftOutWithOneLineUnlessStrict) {
  // Trained on n <= 1 a cell of the fixture has at most one n: left out, counted once.
  const auto lenient = run_pollscale("validate " + fixture + " --train 'n_fds<=1' --format json");
  ASSERT_EQ(lenient.rc, 0) << lenient.err;
  EXPECT_EQ(lines(lenient.err), 1) << lenient.err;
  EXPECT_NE(lenient.err.find("left out"), std::string::npos) << lenient.err;
  EXPECT_NE(lenient.err.find("--strict"), std::string::npos) << lenient.err;
  const auto j = nlohmann::json::parse(lenient.out);
  EXPECT_FALSE(j["skipped"].empty());

  const auto strict = run_pollscale("validate " + fixture + " --train 'n_fds<=1' --strict");
  EXPECT_EQ(strict.rc, 2);
  EXPECT_EQ(lines(strict.err), 1) << strict.err;
  EXPECT_NE(strict.err.find("too few points"), std::string::npos) << strict.err;

  const auto fit = run_pollscale("fit " + historical + "/kegel_2000_poller_bench.csv -o " + (dir_ / "k.json").string());
  ASSERT_EQ(fit.rc, 0) << fit.err;
  EXPECT_EQ(lines(fit.err), 2) << fit.err;  // the summary and "written to"
  EXPECT_EQ(run_pollscale("fit " + fixture + " --strict --skip-unfittable").rc, 2);
}

TEST_F(CliGrammarTest, CellsListsWhatPredictCanAnswerAndHowToAskForIt) {
  const std::string model = (dir_ / "m.json").string();
  ASSERT_EQ(run_pollscale("fit " + fixture + " -o " + model).rc, 0);
  const auto r = run_pollscale("cells " + model + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "cells");
  EXPECT_EQ(j["schema_version"], 1);
  const auto m = nlohmann::json::parse(slurp(model));
  ASSERT_EQ(j["cells"].size(), m["models"].size());
  // Every cell's flags select exactly that cell: predict answers with it.
  for (const auto& c : j["cells"]) {
    const std::string flags = c["predict_flags"];
    SCOPED_TRACE(flags);
    const std::string n = c["n_max"].is_null() ? "" : " --n " + std::to_string(c["n_max"].get<long long>());
    const auto p = run_pollscale("predict " + model + " " + flags + n + " --format json");
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_GT(nlohmann::json::parse(p.out)["value"].get<double>(), 0);
  }
  const auto only = run_pollscale("cells " + model + " --scenario find_active --mechanism epoll --format csv");
  ASSERT_EQ(only.rc, 0) << only.err;
  EXPECT_GE(lines(only.out), 2);
  EXPECT_EQ(only.out.find("/poll/"), std::string::npos) << only.out;
  const auto none = run_pollscale("cells " + model + " --scenario nothing_like_it");
  EXPECT_EQ(none.rc, 2);
  EXPECT_EQ(lines(none.err), 1) << none.err;
}

TEST_F(CliGrammarTest, AHistoricalCellIsChosenByItsPlatform) {
  const std::string model = (dir_ / "h.json").string();
  ASSERT_EQ(run_pollscale("fit " + historical + "/gooch_1997_polling.csv -o " + model).rc, 0);
  const auto ambiguous = run_pollscale("predict " + model + " --scenario fd_range --mechanism poll --n 500");
  EXPECT_EQ(ambiguous.rc, 2);
  EXPECT_NE(ambiguous.err.find("platform"), std::string::npos) << ambiguous.err;
  const auto cells = nlohmann::json::parse(run_pollscale("cells " + model + " --mechanism poll --format json").out);
  ASSERT_FALSE(cells["cells"].empty());
  const std::string flags = cells["cells"][0]["predict_flags"];
  const auto chosen = run_pollscale("predict " + model + " " + flags + " --n 500");
  EXPECT_EQ(chosen.rc, 0) << chosen.err;
  const auto wrong = run_pollscale("predict " + model + " " + flags + " --n 500 --platform 'a VAX'");
  EXPECT_EQ(wrong.rc, 2);
}

std::vector<std::string> csv_header(const std::string& out) {
  std::vector<std::string> names;
  std::stringstream line(out.substr(0, out.find('\n')));
  for (std::string name; std::getline(line, name, ',');) names.push_back(name);
  return names;
}

// CSV is for programs too: each column named once, numbers as precise as the JSON's.
TEST_F(CliGrammarTest, CsvColumnsAreUniqueAndItsNumbersAsPreciseAsTheJson) {
  const std::string costs =
      " --wait-per-call-ns 1000 --handler-ns 20000 --duration 0.2 --min-replications 2 --max-replications 3";
  for (const std::string& args :
       {"simulate --mechanism poll" + costs, "whatif --mechanisms poll --sweep idle=0,100" + costs,
        "capacity --mechanism poll --vary idle --hi 1000 --max-p99 0.01" + costs,
        "capacity --mechanism poll --vary idle --hi 1000 --max-p99 0.01 --confirm" + costs}) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args + " --format csv");
    ASSERT_EQ(r.rc, 0) << r.err;
    auto names = csv_header(r.out);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << r.out;
  }
  const std::string model = (dir_ / "m.json").string();
  ASSERT_EQ(run_pollscale("fit " + fixture + " -o " + model).rc, 0);
  const std::string query = "predict " + model + " --scenario find_active --mechanism poll --n 123457";
  const auto j = nlohmann::json::parse(run_pollscale(query + " --format json").out);
  const std::string csv = run_pollscale(query + " --format csv").out;
  const std::string row = csv.substr(csv.find('\n') + 1);
  const double value = std::stod(row.substr(row.find(',') + 1));
  EXPECT_NEAR(value, j["value"].get<double>(), 1e-9 * j["value"].get<double>()) << csv;
}

}  // namespace
}  // namespace pollscale::test
