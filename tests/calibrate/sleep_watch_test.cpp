// sleep_watch: the woken find_active probe's writer waits on it until the waiter sleeps in
// its wait call, so it must say "asleep" exactly for a thread blocked off its CPU.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "calibrate/probe_support.hpp"
#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate {
namespace {

constexpr std::uint64_t second_ns = 1'000'000'000;

TEST(SleepWatchTest, TheCallingThreadIsNeverAsleep) {
  sleep_watch self(::gettid());
  EXPECT_FALSE(self.asleep());
}

TEST(SleepWatchTest, AThreadBlockedInReadIsAsleepUntilWoken) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  sys::unique_fd rd(p[0]), wr(p[1]);
  std::atomic<pid_t> tid{0};
  std::atomic<bool> returned{false};
  std::thread t([&] {
    tid = ::gettid();
    char c;
    EXPECT_EQ(::read(rd.get(), &c, 1), 1);
    returned = true;
  });
  while (tid == 0) std::this_thread::yield();
  sleep_watch w(tid);
  for (bool same_cpu : {false, true}) w.wait_until_asleep(same_cpu, 5 * second_ns);  // returns: it sleeps
  EXPECT_TRUE(w.asleep());
  EXPECT_FALSE(returned);
  ASSERT_EQ(::write(wr.get(), "x", 1), 1);
  t.join();
  EXPECT_TRUE(returned);
}

TEST(SleepWatchTest, ARunningThreadNeverCountsAsAsleep) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> stop{false};
  std::thread t([&] {
    tid = ::gettid();
    while (!stop) {
    }
  });
  while (tid == 0) std::this_thread::yield();
  sleep_watch w(tid);
  EXPECT_FALSE(w.asleep());
  EXPECT_THROW(w.wait_until_asleep(false, second_ns / 50), probe_failure);
  stop = true;
  t.join();
}

}  // namespace
}  // namespace pollscale::calibrate
