// The independent references (calibrate/reference.hpp) and the child runner under them
// (calibrate/sys/child.hpp). No timing is asserted: the machine drifts; only that the
// figures are finite and positive, that the output is parsed, that failures say why, and
// that no child is left behind (zombie or orphan).

#include "calibrate/reference.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "calibrate/sys/child.hpp"
#include "calibrate/sys/syscall.hpp"

#ifndef POLLSCALE_CROSSCHECK_POLL
#error "tests/calibrate/CMakeLists.txt passes the built pollscale-crosscheck-poll as POLLSCALE_CROSSCHECK_POLL"
#endif

namespace pollscale::calibrate {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path crosscheck_poll = POLLSCALE_CROSSCHECK_POLL;

/// Gone: no such process, or a zombie (an orphan reparented to a PID 1 that does not reap
/// is dead all the same; zombies of our own are caught by expect_no_children).
bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

/// No child of ours is left, running or zombie.
void expect_no_children() {
  int status = 0;
  errno = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

class RunCaptureTest : public ::testing::Test {
 protected:
  void TearDown() override { sys::stop_requested = false; }
};

TEST_F(RunCaptureTest, CapturesStdoutAndExitStatus) {
  const auto r = sys::run_capture({"/bin/sh", "-c", "echo hello; echo to-stderr >&2; exit 3"});
  EXPECT_EQ(r.how, sys::capture_result::outcome::exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.out, "hello\n");  // stderr went to /dev/null
  EXPECT_EQ(r.describe(), "exited with status 3");
  expect_no_children();
}

TEST_F(RunCaptureTest, MissingProgramIsASpawnFailureNotAnException) {
  const auto r = sys::run_capture({"/nonexistent/pollscale-no-such-tool"});
  EXPECT_EQ(r.how, sys::capture_result::outcome::spawn_failed);
  EXPECT_EQ(r.spawn_errno, ENOENT);
  EXPECT_NE(r.describe().find("could not be started"), std::string::npos) << r.describe();
  expect_no_children();
}

TEST_F(RunCaptureTest, TimeoutKillsAndReapsTheChild) {
  sys::capture_options opt;
  opt.timeout = 300ms;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = sys::run_capture({"/bin/sleep", "30"}, opt);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.how, sys::capture_result::outcome::timed_out);
  EXPECT_NE(r.describe().find("timed out"), std::string::npos);
  EXPECT_LT(took, 5s);  // the timeout, not the 30 s of sleep
  expect_no_children();
}

TEST_F(RunCaptureTest, TimeoutAlsoKillsWhatTheChildForked) {
  sys::capture_options opt;
  opt.timeout = 1500ms;  // time enough, even on a loaded machine, to print the pid
  // The grandchild's pid is printed, then both sleep past the timeout.
  const auto r = sys::run_capture({"/bin/sh", "-c", "sleep 30 & echo $!; wait"}, opt);
  EXPECT_EQ(r.how, sys::capture_result::outcome::timed_out);
  ASSERT_FALSE(r.out.empty());
  const pid_t grandchild = std::stoi(r.out);
  for (int i = 0; i < 100 && !gone(grandchild); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(gone(grandchild)) << "grandchild " << grandchild << " still runs";
  expect_no_children();
}

TEST_F(RunCaptureTest, ExitWhileAHelperHoldsStdoutDoesNotWaitForTheHelper) {
  sys::capture_options opt;
  opt.timeout = 10s;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = sys::run_capture({"/bin/sh", "-c", "sleep 30 & echo $!"}, opt);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const pid_t helper = std::stoi(r.out);
  for (int i = 0; i < 100 && !gone(helper); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(gone(helper)) << "helper " << helper << " left running";
  expect_no_children();
}

TEST_F(RunCaptureTest, StopRequestedKillsReapsAndThrowsInterrupted) {
  std::thread stopper([] {
    std::this_thread::sleep_for(200ms);
    sys::stop_requested = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(sys::run_capture({"/bin/sleep", "30"}), sys::interrupted);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  expect_no_children();
}

TEST_F(RunCaptureTest, OutputBeyondTheCapIsDroppedNotBlocking) {
  sys::capture_options opt;
  opt.max_output = 1000;
  const auto r = sys::run_capture({"/bin/sh", "-c", "head -c 200000 /dev/zero"}, opt);
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_TRUE(r.truncated);
}

TEST_F(RunCaptureTest, FindProgram) {
  EXPECT_FALSE(sys::find_program("sh").empty());
  EXPECT_TRUE(sys::find_program("pollscale-surely-not-a-program").empty());
  EXPECT_EQ(sys::find_program("/bin/sh"), std::filesystem::path("/bin/sh"));
  EXPECT_TRUE(sys::find_program("/etc/passwd").empty());  // not executable
  EXPECT_TRUE(sys::find_program("/bin").empty());         // not a regular file
}

class ReferenceTest : public ::testing::Test {
 protected:
  void TearDown() override { sys::stop_requested = false; }
};

TEST_F(ReferenceTest, PollLoopPathFindsTheToolInADirectory) {
  EXPECT_EQ(poll_loop_path(crosscheck_poll.parent_path()), crosscheck_poll);
  EXPECT_TRUE(poll_loop_path("/nonexistent").empty());
  EXPECT_TRUE(poll_loop_path(std::filesystem::path()).empty());
  // Beside this test executable it is not built: empty, or (if someone put it there) it.
  const auto here = poll_loop_path();
  EXPECT_TRUE(here.empty() || here.filename() == poll_loop_name) << here;
}

TEST_F(ReferenceTest, PollLoopGivesAPositiveFigure) {
  for (const std::int64_t n : {10, 100}) {
    std::string why;
    const auto r = run_poll_loop(crosscheck_poll, n, 21, &why);
    ASSERT_TRUE(r) << why;
    EXPECT_TRUE(std::isfinite(r->ns_per_op));
    EXPECT_GT(r->ns_per_op, 0);
    EXPECT_NE(r->tool.find("n=" + std::to_string(n)), std::string::npos) << r->tool;
  }
  expect_no_children();
}

TEST_F(ReferenceTest, PollLoopMissingExeSaysWhichPath) {
  std::string why;
  EXPECT_FALSE(run_poll_loop("/nonexistent/pollscale-crosscheck-poll", 10, 5, &why));
  EXPECT_NE(why.find("/nonexistent/pollscale-crosscheck-poll"), std::string::npos) << why;
  EXPECT_NE(why.find("could not be started"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(run_poll_loop({}, 10, 5, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(run_poll_loop("/nonexistent/x", 10, 5, nullptr));  // why is optional
}

TEST_F(ReferenceTest, PollLoopGarbageOrFailureGivesAReason) {
  std::string why;
  EXPECT_FALSE(run_poll_loop("/bin/echo", 10, 5, &why));  // prints "10 5"
  EXPECT_NE(why.find("/bin/echo"), std::string::npos) << why;
  EXPECT_NE(why.find("median_ns"), std::string::npos) << why;
  EXPECT_NE(why.find("'10 5'"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(run_poll_loop("/bin/false", 10, 5, &why));
  EXPECT_NE(why.find("exited with status 1"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(run_poll_loop(crosscheck_poll, 0, 5, &why));
  EXPECT_NE(why.find("must be positive"), std::string::npos) << why;
  expect_no_children();
}

TEST_F(ReferenceTest, ParsePollLoop) {
  std::string why;
  EXPECT_EQ(parse_poll_loop("n=100 median_ns=3462.8 mean_ns=3603.0 min_ns=3450.2 max_ns=5019.4 reps=21 "
                            "calls_per_rep=8\n",
                            100, &why),
            3462.8);
  EXPECT_FALSE(parse_poll_loop("n=10 median_ns=3462.8 mean_ns=1\n", 100, &why));  // another n
  EXPECT_NE(why.find("n=100"), std::string::npos) << why;
  EXPECT_FALSE(parse_poll_loop("n=100 median_ns=nan mean_ns=1\n", 100, &why));
  EXPECT_FALSE(parse_poll_loop("n=100 median_ns=inf\n", 100, &why));
  EXPECT_FALSE(parse_poll_loop("n=100 median_ns=0.0\n", 100, &why));
  EXPECT_FALSE(parse_poll_loop("n=100 median_ns=-5\n", 100, &why));
  EXPECT_FALSE(parse_poll_loop("n=100 mean_ns=5\n", 100, &why));
  EXPECT_FALSE(parse_poll_loop("", 100, &why));
  EXPECT_NE(why.find("nothing"), std::string::npos) << why;
}

TEST_F(ReferenceTest, ParsePerfPipe) {
  const std::string out =
      "# Running 'sched/pipe' benchmark:\n"
      "# Executed 20000 pipe operations between two threads\n\n"
      "     Total time: 1.383 [sec]\n\n"
      "      69.175950 usecs/op\n"
      "          14455 ops/sec\n";
  std::string why;
  EXPECT_EQ(parse_perf_pipe(out, &why), 69.17595);
  EXPECT_FALSE(parse_perf_pipe("     Total time: 1.383 [sec]\n", &why));
  EXPECT_NE(why.find("usecs/op"), std::string::npos) << why;
  EXPECT_FALSE(parse_perf_pipe("   nan usecs/op\n", &why));
  EXPECT_FALSE(parse_perf_pipe("   usecs/op\n", &why));
}

TEST_F(ReferenceTest, PerfPipeGivesAPositiveFigure) {
  if (sys::find_program("perf").empty()) GTEST_SKIP() << "perf is not on PATH";
  std::string why;
  const auto r = run_perf_pipe(2000, &why);
  // perf on PATH may still refuse to run (Debian's wrapper without a perf_<version> for
  // this kernel exits non-zero): skipped. Any other failure (a timeout, output that does
  // not parse) is ours.
  if (!r && why.find("exited with status") != std::string::npos) GTEST_SKIP() << "perf unusable here: " << why;
  ASSERT_TRUE(r) << why;
  EXPECT_TRUE(std::isfinite(r->ns_per_op));
  EXPECT_GT(r->ns_per_op, 0);
  EXPECT_NE(r->tool.find("perf bench sched pipe -T"), std::string::npos) << r->tool;
  expect_no_children();
}

TEST_F(ReferenceTest, PerfPipeRejectsNonPositiveLoops) {
  std::string why;
  EXPECT_FALSE(run_perf_pipe(0, &why));
  EXPECT_NE(why.find("must be positive"), std::string::npos) << why;
}

}  // namespace
}  // namespace pollscale::calibrate
