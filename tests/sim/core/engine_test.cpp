#include "sim/core/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

namespace pollscale::sim {
namespace {

// Records (time, tag) of every event it receives.
struct recorder final : process {
  std::vector<std::pair<double, std::uint64_t>> seen;
  void on_event(engine& e, std::uint64_t tag) override { seen.emplace_back(e.now(), tag); }
};

// A customer source that reschedules itself every `period` seconds, `count` times.
struct ticker final : process {
  double period;
  int left;
  std::vector<double> times;
  ticker(double p, int n) : period(p), left(n) {}
  void on_event(engine& e, std::uint64_t) override {
    times.push_back(e.now());
    if (--left > 0) e.schedule_in(period, *this);
  }
};

class EngineTest : public ::testing::TestWithParam<scheduler_kind> {};

std::string scheduler_name(const ::testing::TestParamInfo<scheduler_kind>& p) {
  return std::string(to_string(p.param));
}

TEST_P(EngineTest, FiresEventsInTimeOrder) {
  engine e(GetParam());
  recorder r;
  e.schedule_at(3, r, 30);
  e.schedule_at(1, r, 10);
  e.schedule_at(2, r, 20);
  e.run();
  const std::vector<std::pair<double, std::uint64_t>> want = {{1, 10}, {2, 20}, {3, 30}};
  EXPECT_EQ(r.seen, want);
  EXPECT_EQ(e.now(), 3);
  EXPECT_EQ(e.events_fired(), 3U);
}

TEST_P(EngineTest, BreaksTiesInSchedulingOrder) {
  engine e(GetParam());
  recorder r;
  for (std::uint64_t tag = 0; tag < 50; ++tag) e.schedule_at(5, r, tag);
  e.run();
  ASSERT_EQ(r.seen.size(), 50U);
  for (std::uint64_t tag = 0; tag < 50; ++tag) EXPECT_EQ(r.seen[tag].second, tag);
}

TEST_P(EngineTest, RunUntilStopsAtTheHorizonInclusive) {
  engine e(GetParam());
  ticker t(2, 10);  // fires at 0, 2, 4, ...
  e.schedule_at(0, t);
  e.run_until(7);
  EXPECT_EQ(t.times, (std::vector<double>{0, 2, 4, 6}));
  EXPECT_EQ(e.now(), 7);
  e.run_until(8);  // the event at exactly 8 fires
  EXPECT_EQ(t.times.back(), 8);
  EXPECT_EQ(e.pending(), 1U);
  e.run();
  EXPECT_EQ(t.times.size(), 10U);
  EXPECT_EQ(e.now(), 18);
}

TEST_P(EngineTest, StopEndsTheRunAfterTheCurrentEvent) {
  struct stopper final : process {
    int calls = 0;
    void on_event(engine& e, std::uint64_t) override {
      if (++calls == 3) e.stop();
      e.schedule_in(1, *this);
    }
  } s;
  engine e(GetParam());
  e.schedule_at(0, s);
  e.run();
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(e.now(), 2);
}

TEST_P(EngineTest, EventsScheduledDuringAnEventAtTheSameTimeFireAfterIt) {
  struct chain final : process {
    std::vector<std::uint64_t> order;
    void on_event(engine& e, std::uint64_t tag) override {
      order.push_back(tag);
      if (tag == 1) e.schedule_in(0, *this, 3);
    }
  } c;
  engine e(GetParam());
  e.schedule_at(1, c, 1);
  e.schedule_at(1, c, 2);
  e.run();
  EXPECT_EQ(c.order, (std::vector<std::uint64_t>{1, 2, 3}));
}

TEST_P(EngineTest, AStopRequestEndsTheRunWithinStopCheckEvents) {
  engine e(GetParam());
  std::atomic<bool> stop{false};
  e.watch(&stop);
  ticker t(1.0 / 1024, 1 << 20);  // a binary fraction: the tick times are exact
  e.schedule_at(0, t);
  e.run_until(1.0);  // the flag is not set: the run goes to its end
  EXPECT_EQ(t.times.size(), 1025U);
  stop = true;
  EXPECT_THROW(e.run_until(50.0), stopped);
  // Looked at every stop_check_events events: the run ended at the first look.
  EXPECT_EQ(e.events_fired() % stop_check_events, 0U);
  EXPECT_LE(e.events_fired(), 1025U + stop_check_events);
  EXPECT_THROW(e.run(), stopped);  // run() looks at the flag too
  e.watch(nullptr);                // and without a flag nothing stops it
  e.run_until(60.0);
  EXPECT_EQ(t.times.size(), 60U * 1024 + 1);
}

TEST_P(EngineTest, AnEventBudgetEndsTheRunSayingHowFarItGot) {
  engine e(GetParam());
  e.limit_events(3 * stop_check_events);
  ticker t(1.0 / 1024, 1 << 20);
  e.schedule_at(0, t);
  e.run_until(1.0);  // 1025 events: within the budget
  try {
    e.run_until(1e12);
    FAIL() << "the budget did not end the run";
  } catch (const event_budget_exceeded& x) {
    EXPECT_EQ(x.events, 3 * stop_check_events);  // the first look at or past the budget
    EXPECT_EQ(e.events_fired(), x.events);
    EXPECT_DOUBLE_EQ(x.simulated_s, static_cast<double>(x.events - 1) / 1024);
  }
  e.limit_events(0);  // no budget: the run goes on
  e.run_until(20.0);
  EXPECT_EQ(t.times.size(), 20U * 1024 + 1);
}

INSTANTIATE_TEST_SUITE_P(BothSchedulers, EngineTest,
                         ::testing::Values(scheduler_kind::binary_heap, scheduler_kind::calendar_queue),
                         scheduler_name);

TEST(EngineDeathTest, SchedulingIntoThePastAborts) {
  recorder r;
  EXPECT_DEATH(
      {
        engine e;
        e.schedule_at(5, r);
        e.run();
        e.schedule_at(4, r);
      },
      "invariant broken");
}

TEST(EngineDeathTest, SchedulingAtNaNAborts) {
  recorder r;
  EXPECT_DEATH(
      {
        engine e;
        e.schedule_in(std::nan(""), r);
      },
      "invariant broken");
}

TEST(SchedulerKindTest, ParsesItsNames) {
  EXPECT_EQ(parse_scheduler_kind("heap"), scheduler_kind::binary_heap);
  EXPECT_EQ(parse_scheduler_kind("calendar"), scheduler_kind::calendar_queue);
  EXPECT_THROW(parse_scheduler_kind("ladder"), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::sim
