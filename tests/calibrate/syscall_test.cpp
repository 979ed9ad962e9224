// The syscall seam: EINTR is retried in one place, other errors become system_error
// naming the call, and the test hook injects faults deterministically. Children are
// reaped through it too, even when a stop was requested.

#include "calibrate/sys/syscall.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate/channel.hpp"
#include "calibrate/sys/process.hpp"

namespace pollscale::calibrate {
namespace {

class SyscallTest : public ::testing::Test {
 protected:
  void TearDown() override {
    sys::set_fault_hook({});
    sys::stop_requested = false;
  }
};

TEST_F(SyscallTest, RetriesEintrThenSucceeds) {
  int eintrs = 3, calls = 0;
  sys::set_fault_hook([&](std::string_view) { return eintrs-- > 0 ? EINTR : 0; });
  const long rc = sys::call("getpid", [&] {
    ++calls;
    return static_cast<long>(::getpid());
  });
  EXPECT_EQ(rc, ::getpid());
  EXPECT_EQ(calls, 1);  // the three injected failures never reached the kernel
}

TEST_F(SyscallTest, ErrorNamesTheCall) {
  sys::set_fault_hook([](std::string_view call) { return call == "pipe2" ? EMFILE : 0; });
  try {
    channel_set ch(fd_kind::pipe, 2);
    FAIL() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EMFILE);
    EXPECT_NE(std::string(e.what()).find("pipe2"), std::string::npos);
  }
}

TEST_F(SyscallTest, ToleratedErrorsReturnMinusOne) {
  sys::set_fault_hook([](std::string_view) { return EAGAIN; });
  EXPECT_EQ(sys::call("read", [] { return 0L; }, {EAGAIN}), -1);
  EXPECT_EQ(errno, EAGAIN);
}

TEST_F(SyscallTest, EintrAfterStopRequestThrowsInterrupted) {
  sys::stop_requested = true;
  sys::set_fault_hook([](std::string_view) { return EINTR; });
  EXPECT_THROW(sys::call("poll", [] { return 0; }), sys::interrupted);
}

pid_t child_exiting_with(int code, useconds_t after_us) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::usleep(after_us);
    ::_exit(code);
  }
  return pid;
}

TEST_F(SyscallTest, ReapReturnsTheChildsStatusOnce) {
  const pid_t pid = child_exiting_with(7, 0);
  ASSERT_GT(pid, 0);
  const int status = sys::reap(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(sys::reap(pid), -1);  // already reaped: not our child any more
}

void on_alarm(int) {}

TEST_F(SyscallTest, ReapRetriesEintrEvenAfterAStopRequest) {
  // A handler without SA_RESTART makes the parent's waitpid fail with EINTR while the
  // child still runs; a stop was requested, and the child must be reaped all the same.
  struct sigaction sa {
  }, old{};
  sa.sa_handler = on_alarm;
  ::sigemptyset(&sa.sa_mask);
  ASSERT_EQ(::sigaction(SIGALRM, &sa, &old), 0);
  sys::stop_requested = true;
  const pid_t pid = child_exiting_with(3, 300'000);
  ASSERT_GT(pid, 0);
  itimerval every_20ms{{0, 20'000}, {0, 20'000}};
  ::setitimer(ITIMER_REAL, &every_20ms, nullptr);
  const int status = sys::reap(pid);
  itimerval off{};
  ::setitimer(ITIMER_REAL, &off, nullptr);
  ::sigaction(SIGALRM, &old, nullptr);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST_F(SyscallTest, KillAndReapEndsARunningChild) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) ::pause();
  }
  ASSERT_GT(pid, 0);
  const int status = sys::kill_and_reap(pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST_F(SyscallTest, ResourceLimitReadsALimitAndRefusesAnUnknownResource) {
  const auto nofile = sys::resource_limit(RLIMIT_NOFILE);
  ASSERT_TRUE(nofile.has_value());
  ASSERT_TRUE(nofile->soft.has_value());
  EXPECT_EQ(*nofile->soft, sys::current_nofile_limit().soft);
  EXPECT_FALSE(sys::resource_limit(9999).has_value());
}

}  // namespace
}  // namespace pollscale::calibrate
