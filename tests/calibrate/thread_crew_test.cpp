// thread_crew (calibrate/probes/thread_crew.hpp): the threads of a threaded probe are
// counted when they run, their first error reaches the measuring thread, and they are
// stopped and joined on every path.
#include "calibrate/probes/thread_crew.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "calibrate/probe.hpp"
#include "probe_test_support.hpp"

namespace pollscale::calibrate::probes {
namespace {

using test::task_count;
using test::task_count_quiet;
using test::task_count_settled;

// Bodies that run until stopped: started with their index, counted, stopped once, joined.
TEST(ThreadCrewTest, BodiesRunWithTheirIndexAndAreStoppedAndJoined) {
  std::thread([] {}).join();                     // ThreadSanitizer starts a thread of its own with the first one
  const std::size_t tasks = task_count_quiet();  // the joined thread may linger in /proc a moment
  std::atomic<bool> stop{false};
  std::atomic<int> stops{0};
  std::atomic<std::size_t> index_sum{0};
  {
    thread_crew crew("test", [&] {
      stops.fetch_add(1);
      stop.store(true);
      stop.notify_all();
    });
    crew.start(2, 6, [&](std::size_t i) {
      index_sum.fetch_add(i);
      crew.running();
      stop.wait(false);
    });
    crew.wait_until_running();
    EXPECT_EQ(index_sum.load(), 2u + 3 + 4 + 5);
    EXPECT_FALSE(crew.any_failed());
    EXPECT_NO_THROW(crew.rethrow_if_failed());
    EXPECT_EQ(task_count(), tasks + 4);
    EXPECT_EQ(stops.load(), 0);
  }
  EXPECT_EQ(stops.load(), 1);
  EXPECT_EQ(task_count_settled(tasks), tasks);
  // A crew that started nothing has nothing to stop.
  {
    thread_crew idle("test", [&] { stops.fetch_add(1); });
  }
  EXPECT_EQ(stops.load(), 1);
}

// The first error any body meets is what the measuring thread sees, every time it asks;
// one that fails before it runs ends the wait for the others at once.
TEST(ThreadCrewTest, TheFirstErrorReachesTheMeasuringThread) {
  std::atomic<bool> stop{false};
  thread_crew crew("test", [&] {
    stop.store(true);
    stop.notify_all();
  });
  std::atomic<bool> first_thrown{false};
  crew.start(0, 3, [&](std::size_t i) {
    try {
      if (i == 1) {
        first_thrown.store(true);
        throw std::runtime_error("thread 1 met this first");
      }
      while (!first_thrown.load()) {
      }
      crew.running();
      stop.wait(false);
    } catch (...) {
      crew.failed(std::current_exception());
    }
  });
  try {
    crew.wait_until_running();
    FAIL() << "the wait did not see the failure";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "thread 1 met this first");
  }
  EXPECT_TRUE(crew.any_failed());
  crew.failed(std::make_exception_ptr(std::logic_error("a later one")));
  try {
    crew.rethrow_if_failed();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "thread 1 met this first");
  }
}

}  // namespace
}  // namespace pollscale::calibrate::probes
