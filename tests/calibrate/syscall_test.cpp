// The syscall seam: EINTR is retried in one place, other errors become system_error
// naming the call, and the test hook injects faults deterministically.

#include "calibrate/sys/syscall.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "calibrate/channel.hpp"

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

}  // namespace
}  // namespace pollscale::calibrate
