// Ctrl-C and SIGTERM in the simulating commands: they stop within about a second of the
// signal, print what the completed replications say (marked interrupted) and exit 130;
// with nothing completed they say so and print nothing. `fit` of a large dataset stops
// likewise, writing nothing. The runs asked for here would
// take hours: a stop that is not honoured shows up as a timeout, not as a slow pass.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/cli_fixture.hpp"
#include "tests/app/run_command.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::test {
namespace {

struct stopped_run {
  command_result r;
  double wall_s = 0;
};

/// Runs pollscale with `args` and sends it `signal` (INT or TERM) after `delay_s` seconds.
stopped_run run_and_stop(const std::string& args, const char* signal, double delay_s = 1.5) {
  const std::string base = ::testing::TempDir() + "/pollscale_stop_" + std::to_string(::getpid());
  // --preserve-status: timeout exits with pollscale's status, not its own 124; -k: a run that
  // ignores the signal is killed 60 s later (and the test fails on its status).
  const std::string cmd = "timeout --preserve-status -k 60 -s " + std::string(signal) + " " + std::to_string(delay_s) +
                          " " + POLLSCALE_BINARY + " " + args + " >" + base + ".out 2>" + base + ".err";
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  stopped_run s;
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  s.r.out = slurp(base + ".out");
  s.r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return s;
}

// Short replications and a rule that is never met: replications go on until stopped.
const std::string endless =
    " --active 10 --think exp:0.001 --duration 0.05 --rel-halfwidth 1e-12"
    " --max-replications 100000 --format json" +
    fixed_costs;

TEST(StopCliTest, SimulateKeepsTheCompletedReplications) {
  for (const char* signal : {"INT", "TERM"}) {
    SCOPED_TRACE(signal);
    const auto s = run_and_stop("simulate --mechanism poll --idle 100" + endless, signal);
    ASSERT_EQ(s.r.rc, 130) << s.r.err;
    EXPECT_LT(s.wall_s, 30.0);  // not the 100000 replications asked for
    const auto j = nlohmann::json::parse(s.r.out);
    EXPECT_TRUE(j["interrupted"].get<bool>());
    EXPECT_GE(j["replications"].get<int>(), 1);
    EXPECT_LT(j["replications"].get<int>(), 100000);
    EXPECT_GT(j["throughput"]["mean"].get<double>(), 0);
    EXPECT_NE(s.r.err.find("interrupted"), std::string::npos) << s.r.err;
  }
}

TEST(StopCliTest, SimulateStoppedInItsFirstReplicationPrintsNothing) {
  const auto s = run_and_stop(
      "simulate --mechanism poll --idle 100 --active 10 --think exp:0.001 --duration 1e7 --format json" + fixed_costs,
      "INT");
  EXPECT_EQ(s.r.rc, 130) << s.r.err;
  EXPECT_LT(s.wall_s, 30.0);
  EXPECT_TRUE(s.r.out.empty()) << s.r.out;
  EXPECT_NE(s.r.err.find("nothing to report"), std::string::npos) << s.r.err;
}

TEST(StopCliTest, WhatifPrintsTheRowsSimulated) {
  const auto s = run_and_stop("whatif --mechanisms poll --sweep idle=0,1000" + endless, "INT");
  ASSERT_EQ(s.r.rc, 130) << s.r.err;
  EXPECT_LT(s.wall_s, 30.0);
  const auto j = nlohmann::json::parse(s.r.out);
  ASSERT_EQ(j["rows"].size(), 1U);  // the first row never converges: it is the one stopped
  EXPECT_TRUE(j["rows"][0]["interrupted"].get<bool>());
  EXPECT_NE(s.r.err.find("1 of 2 rows"), std::string::npos) << s.r.err;
}

TEST(CapacityStopCliTest, AnInterruptedSearchGivesNoCapacity) {
  const auto s =
      run_and_stop("capacity --vary idle --hi 100000 --max-p99 0.002 --mechanism poll --confirm" + endless, "INT");
  ASSERT_EQ(s.r.rc, 130) << s.r.err;
  EXPECT_LT(s.wall_s, 30.0);
  const auto j = nlohmann::json::parse(s.r.out);
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_TRUE(j["capacity"].is_null());
  EXPECT_TRUE(j["evaluations"].empty());  // the first evaluation was cut short: left out
  EXPECT_TRUE(j["bracket"]["meets"].is_null());
  EXPECT_NE(s.r.err.find("capacity: interrupted"), std::string::npos) << s.r.err;
}

// A summary of 2 x 10^5 points (40 MB) in 20 cells: seconds to read and fit, stopped
// after half a second, exit 130 within about a second and no model.json written.
TEST(StopCliTest, FitOfALargeDatasetStopsWritingNothing) {
  const scratch_dir scratch("stop_fit");
  const std::string dir = scratch.path().string();
  std::ofstream(dir + "/context.json") << R"({"schema_version": 1})";
  std::ofstream(dir + "/samples.csv") << "scenario,mechanism,variant,fd_kind,n_fds,n_active,active_pos,max_fd,blocking,"
                                         "threads,cpus,pinning,metric,unit,rep,value\n";
  {
    std::ofstream sum(dir + "/summary.csv");
    sum << "scenario,mechanism,variant,fd_kind,n_fds,n_active,active_pos,max_fd,blocking,threads,cpus,pinning,"
           "metric,unit,n,median,mean,stddev,stderr_mean,ci95_lo,ci95_hi,min,max\n";
    for (int cell = 0; cell < 20; ++cell)
      for (int n = 1; n <= 10000; ++n) {
        const double v = 150 + 28.0 * n + cell;
        sum << "find_active,poll,,pipe," << n << "," << 1 + cell << ",middle,,0,1,1,0,time_per_call,ns,7," << v << ","
            << v << ",1,0.4," << v * 0.99 << "," << v * 1.01 << "," << v * 0.98 << "," << v * 1.02 << "\n";
      }
  }
  const std::string model = dir + "/model.json";
  const auto s = run_and_stop("fit " + dir + " -o " + model, "INT", 0.5);
  EXPECT_EQ(s.r.rc, 130) << s.r.err;
  EXPECT_LT(s.wall_s, 20.0);
  EXPECT_NE(s.r.err.find("interrupted"), std::string::npos) << s.r.err;
  EXPECT_FALSE(std::filesystem::exists(model));
}

}  // namespace
}  // namespace pollscale::test
