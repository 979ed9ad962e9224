#include "sim/core/calendar_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/core/binary_heap_queue.hpp"
#include "sim/core/random.hpp"

namespace pollscale::sim {
namespace {

// Drives both schedulers with the same hold-model sequence (pop one, push it back later
// by a random increment, sometimes grow or shrink) and checks they pop identical events.
void expect_same_order(distribution increment, std::uint64_t seed, std::size_t start_size) {
  binary_heap_queue heap;
  calendar_queue cal;
  rng g(seed);
  std::uint64_t seq = 0;
  auto push = [&](double t) {
    const event e{t, seq++, nullptr, seq};
    heap.push(e);
    cal.push(e);
  };
  for (std::size_t i = 0; i < start_size; ++i) push(increment.sample(g));
  for (int step = 0; step < 20000; ++step) {
    ASSERT_EQ(heap.size(), cal.size());
    if (heap.empty()) break;
    ASSERT_EQ(heap.top().seq, cal.top().seq) << "step " << step;
    const event a = heap.pop();
    const event b = cal.pop();
    ASSERT_EQ(a.seq, b.seq);
    ASSERT_EQ(a.time, b.time);
    const double u = uniform01(g);
    // Phases: grow to force ring doubling, then shrink to force halving.
    const int copies = step < 8000 ? (u < 0.6 ? 2 : 1) : (u < 0.4 ? 1 : 0);
    for (int c = 0; c < copies; ++c) push(a.time + increment.sample(g));
  }
}

TEST(CalendarQueueTest, PopsInTheSameOrderAsTheHeapForExponentialGaps) {
  expect_same_order(distribution::exponential(1.0), 1, 100);
}

TEST(CalendarQueueTest, PopsInTheSameOrderAsTheHeapWithManyTies) {
  // Integer increments: lots of equal times, ordered by sequence.
  expect_same_order(distribution::uniform(0, 3), 2, 10);
  binary_heap_queue heap;
  calendar_queue cal;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const event e{static_cast<double>(i % 7), i, nullptr, 0};
    heap.push(e);
    cal.push(e);
  }
  while (!heap.empty()) ASSERT_EQ(heap.pop().seq, cal.pop().seq);
  EXPECT_TRUE(cal.empty());
}

TEST(CalendarQueueTest, PopsInTheSameOrderAsTheHeapForBimodalGaps) {
  // Mostly tiny gaps with rare huge ones: the "year without an event" search path.
  expect_same_order(distribution::hyperexponential(1.0, 50.0), 3, 50);
}

TEST(CalendarQueueTest, ReestimatesItsWidthWhenTheSpreadOfTimesChanges) {
  // 20000 far events (keep-alives a minute apart on average), then dense traffic 1 ms
  // apart: the width learnt from the far events makes buckets crowded, so it must shrink.
  binary_heap_queue heap;
  calendar_queue cal;
  rng g(12);
  std::uint64_t seq = 0;
  for (int i = 0; i < 20000; ++i) {
    const event e{1000 + exponential(g, 60.0 * 20000), seq++, nullptr, 0};
    heap.push(e);
    cal.push(e);
  }
  const double wide = cal.bucket_width();
  for (int i = 0; i < 50; ++i) {
    const event e{exponential(g, 1.0), seq++, nullptr, 0};
    heap.push(e);
    cal.push(e);
  }
  for (int step = 0; step < 100000; ++step) {
    const event a = heap.pop();
    const event b = cal.pop();
    ASSERT_EQ(a.seq, b.seq) << step;
    if (a.time < 1000) {
      const event e{a.time + exponential(g, 1e-3 * 50), seq++, nullptr, 0};
      heap.push(e);
      cal.push(e);
    }
  }
  EXPECT_LT(cal.bucket_width(), wide / 100);
}

TEST(CalendarQueueTest, HandlesAnEventEarlierThanAPeekedMinimum) {
  calendar_queue cal;
  cal.push({100, 0, nullptr, 0});
  EXPECT_EQ(cal.top().time, 100);
  cal.push({3, 1, nullptr, 0});
  EXPECT_EQ(cal.top().time, 3);
  EXPECT_EQ(cal.pop().time, 3);
  EXPECT_EQ(cal.pop().time, 100);
}

TEST(CalendarQueueTest, GrowsAndShrinksItsRing) {
  calendar_queue cal;
  const std::size_t initial = cal.bucket_count();
  for (std::uint64_t i = 0; i < 10000; ++i) cal.push({static_cast<double>(i) * 0.001, i, nullptr, 0});
  EXPECT_GE(cal.bucket_count(), 10000U / 2);
  EXPECT_GT(cal.bucket_width(), 0);
  double last = -1;
  while (!cal.empty()) {
    const double t = cal.pop().time;
    EXPECT_GE(t, last);
    last = t;
  }
  EXPECT_EQ(cal.bucket_count(), initial);
}

TEST(CalendarQueueTest, StaysWithinTheMemoryBudgetPerPendingEvent) {
  calendar_queue cal;
  rng g(7);
  const std::size_t n = (1 << 16) + 1;  // just past a doubling: the worst case
  for (std::uint64_t i = 0; i < n; ++i) cal.push({exponential(g, 1.0), i, nullptr, 0});
  // 40-byte nodes (the pool may hold twice what it needs right after growing) and at
  // most two 16-byte buckets per event: within the simulator's budget of 128 bytes per pending event (docs/sim.md).
  const double per_event = static_cast<double>(cal.memory_bytes()) / static_cast<double>(n);
  EXPECT_LE(per_event, 2 * 40.0 + 2 * 16.0);
  EXPECT_LE(per_event, 128.0);
}

}  // namespace
}  // namespace pollscale::sim
