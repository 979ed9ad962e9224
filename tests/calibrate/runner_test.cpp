// The runner against a fake probe whose "time" is scripted: batch sizing, the stopping
// rule, unit conversion and skipped points are checked without measuring anything real.

#include "calibrate/runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace pollscale::calibrate {
namespace {

/// Reports `ns_per_op` per operation, optionally with a deterministic ±jitter pattern.
class fake_instance final : public probe_instance {
 public:
  fake_instance(double ns_per_op, double jitter, std::vector<std::size_t>* batches)
      : ns_(ns_per_op), jitter_(jitter), batches_(batches) {}
  std::uint64_t run(std::size_t ops) override {
    batches_->push_back(ops);
    const double j = (calls_++ % 2 ? 1 : -1) * jitter_;
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(ops) * ns_ * (1 + j)));
  }
  void annotate(datasets::key& k) const override { k.max_fd = 42; }

 private:
  double ns_, jitter_;
  std::vector<std::size_t>* batches_;
  int calls_ = 0;
};

probe_def fake_probe(double ns_per_op, double jitter, std::vector<std::size_t>* batches, bool skip = false) {
  probe_def p;
  p.scenario = "fake";
  p.make = [=](const datasets::key&, const selection&) -> std::unique_ptr<probe_instance> {
    if (skip) throw probe_skipped("not here");
    return std::make_unique<fake_instance>(ns_per_op, jitter, batches);
  };
  return p;
}

datasets::key key_in(const std::string& unit) {
  datasets::key k;
  k.scenario = "fake";
  k.metric = "time_per_op";
  k.unit = unit;
  return k;
}

runner_options fast_options() {
  runner_options o;
  o.warmup_s = 0;
  o.min_sample_ns = 10'000;
  return o;
}

TEST(RunnerTest, BatchesCheapOperationsToTheMinimumSampleLength) {
  std::vector<std::size_t> batches;
  const auto r = runner(fast_options()).measure(fake_probe(100, 0, &batches), key_in("ns"), {});
  ASSERT_TRUE(r.skipped.empty());
  EXPECT_TRUE(r.converged);
  EXPECT_GE(r.values.size(), fast_options().min_samples);
  // 100 ns per op and 10 µs per sample: at least 100 operations per timed batch.
  for (auto b : r.batches) EXPECT_GE(b, 100u);
  for (double v : r.values) EXPECT_DOUBLE_EQ(v, 100.0);
  EXPECT_EQ(r.key.max_fd, 42);  // annotate() reached the key
}

TEST(RunnerTest, SlowOperationsAreTimedOneByOne) {
  std::vector<std::size_t> batches;
  const auto r = runner(fast_options()).measure(fake_probe(50'000, 0, &batches), key_in("us"), {});
  for (auto b : r.batches) EXPECT_EQ(b, 1u);
  EXPECT_DOUBLE_EQ(r.values.front(), 50.0);  // converted to µs
}

TEST(RunnerTest, NoisyPointsStopAtTheTimeCapUnconverged) {
  std::vector<std::size_t> batches;
  auto o = fast_options();
  o.max_s_per_point = 0.02;
  // ±10% alternating: the median's interval never narrows to ±2%.
  const auto r = runner(o).measure(fake_probe(2'000'000, 0.10, &batches), key_in("ns"), {});
  EXPECT_FALSE(r.converged);
  EXPECT_GE(r.values.size(), o.min_samples);
}

TEST(RunnerTest, RatesAreConvertedFromTimePerOperation) {
  std::vector<std::size_t> batches;
  const auto r = runner(fast_options()).measure(fake_probe(250, 0, &batches), key_in("1/s"), {});
  EXPECT_DOUBLE_EQ(r.values.front(), 4e6);
  EXPECT_DOUBLE_EQ(convert_ns_per_op(2e6, "ms"), 2.0);
  EXPECT_THROW(convert_ns_per_op(1, "B"), std::invalid_argument);
}

/// An instance that sleeps `make_s` while being made and `teardown_s` while destroyed,
/// and whose operations cost real time: one spin of ~1 µs each.
class timed_setup_instance final : public probe_instance {
 public:
  explicit timed_setup_instance(double teardown_s) : teardown_s_(teardown_s) {}
  ~timed_setup_instance() override { sleep_for(teardown_s_); }
  std::uint64_t run(std::size_t ops) override {
    const std::uint64_t t0 = clock_ns();
    while (clock_ns() - t0 < 1000 * ops) {
    }
    return clock_ns() - t0;
  }
  static void sleep_for(double s) {
    const std::uint64_t t0 = clock_ns();
    while (static_cast<double>(clock_ns() - t0) < s * 1e9) {
    }
  }

 private:
  double teardown_s_;
};

TEST(RunnerTest, AVisitsTimeIsSplitIntoSetUpPreparationAndSamples) {
  probe_def p;
  p.scenario = "fake";
  p.make = [](const datasets::key&, const selection&) -> std::unique_ptr<probe_instance> {
    timed_setup_instance::sleep_for(0.03);
    return std::make_unique<timed_setup_instance>(0.02);
  };
  auto o = fast_options();
  o.max_s_per_point = 0.01;
  o.warmup_s = 0.005;
  const auto r = runner(o).measure(p, key_in("ns"), {});
  // Making (30 ms) and tearing down (20 ms) are the set-up; warm-up (5 ms) the preparation.
  EXPECT_GE(r.setup_s, 0.05);
  EXPECT_LT(r.setup_s, 0.05 + 0.5);
  EXPECT_GE(r.prepare_s, 0.005);
  EXPECT_GT(r.measure_s, 0.0);
  EXPECT_LE(r.setup_s + r.prepare_s + r.measure_s, r.wall_s + 1e-6);
  EXPECT_GT(r.setup_s + r.prepare_s + r.measure_s, 0.9 * r.wall_s);
}

TEST(RunnerTest, SkippedProbeIsRecordedWithItsReason) {
  std::vector<std::size_t> batches;
  const auto r = runner(fast_options()).measure(fake_probe(1, 0, &batches, true), key_in("ns"), {});
  EXPECT_EQ(r.skipped, "not here");
  EXPECT_TRUE(r.values.empty());
}

/// A probe after single operations: each run(1) one scripted value, in turn.
class single_op_fake final : public probe_instance {
 public:
  explicit single_op_fake(std::vector<std::size_t>* batches) : batches_(batches) {}
  std::uint64_t run(std::size_t ops) override {
    batches_->push_back(ops);
    return 1000 + 100 * (calls_++ % 7);  // 1.0..1.6 µs: never a converging median
  }
  std::size_t single_op_samples() const override { return 250; }

 private:
  std::vector<std::size_t>* batches_;
  std::uint64_t calls_ = 0;
};

TEST(RunnerTest, SingleOperationPointsTakeTheirCountOfOneOperationSamples) {
  std::vector<std::size_t> batches;
  probe_def p;
  p.scenario = "fake";
  p.make = [&](const datasets::key&, const selection&) -> std::unique_ptr<probe_instance> {
    return std::make_unique<single_op_fake>(&batches);
  };
  auto o = fast_options();
  o.min_sample_ns = 1e9;  // would batch a 1-µs operation a million times over
  const auto r = runner(o).measure(p, key_in("us"), {});
  ASSERT_EQ(r.values.size(), 250u);
  EXPECT_TRUE(r.converged);
  for (auto b : r.batches) EXPECT_EQ(b, 1u);
  for (auto b : batches) EXPECT_EQ(b, 1u);  // the warm-up too: no batch is ever sized
  EXPECT_GE(batches.size(), 252u);          // two warm-up operations at least
  // Every sample one operation, the values as scripted (after the warm-up's share of them).
  const double lo = *std::min_element(r.values.begin(), r.values.end());
  const double hi = *std::max_element(r.values.begin(), r.values.end());
  EXPECT_DOUBLE_EQ(lo, 1.0);
  EXPECT_DOUBLE_EQ(hi, 1.6);
}

/// A counting probe: each run(ops) reports 1.25 events per operation and sleeps 1 µs per
/// operation, so that only the runner's own clock can size its batches.
class counting_fake final : public probe_instance {
 public:
  explicit counting_fake(std::vector<std::size_t>* batches) : batches_(batches) {}
  std::uint64_t run(std::size_t ops) override {
    batches_->push_back(ops);
    const std::uint64_t t0 = clock_ns();
    while (clock_ns() - t0 < ops * 1000) {
    }
    return ops * 5 / 4;
  }
  bool counts() const override { return true; }

 private:
  std::vector<std::size_t>* batches_;
};

TEST(RunnerTest, CountingPointsStoreTheirCountPerOperationAndAreSizedByTheClock) {
  std::vector<std::size_t> batches;
  probe_def p;
  p.scenario = "fake";
  p.make = [&](const datasets::key&, const selection&) -> std::unique_ptr<probe_instance> {
    return std::make_unique<counting_fake>(&batches);
  };
  auto o = fast_options();
  o.min_sample_ns = 200'000;  // 200 operations of 1 µs; the count (1.25 per op) would say 160'000
  auto k = key_in("1");
  k.metric = "wakeups";
  const auto r = runner(o).measure(p, k, {});
  ASSERT_GE(r.values.size(), o.min_samples);
  EXPECT_TRUE(r.converged);
  ASSERT_EQ(r.values.size(), r.batches.size());
  for (std::size_t i = 0; i < r.values.size(); ++i)  // the count over the batch's operations
    EXPECT_DOUBLE_EQ(r.values[i], static_cast<double>(r.batches[i] * 5 / 4) / static_cast<double>(r.batches[i]));
  // Each operation spins for at least 1 µs, so a batch sized by the clock holds at most 200
  // of them (fewer when the sizing batch was preempted: no lower bound holds on a shared
  // machine); read as nanoseconds, the count would have sized batches of 160'000.
  for (auto b : r.batches) {
    EXPECT_GE(b, 1u);
    EXPECT_LE(b, 200u);
  }
  // A counting instance on a point in a unit of time is the probe's bug: loud.
  EXPECT_THROW(runner(o).measure(p, key_in("ns"), {}), probe_failure);
}

TEST(RunnerTest, OptionsFollowTheTimer) {
  timer_facts t;
  t.overhead_ns = 500;  // a slow clock: 100 reads = 50 µs
  t.resolution_ns = 1;
  EXPECT_DOUBLE_EQ(options_for(profile_kind::quick, t).min_sample_ns, 50'000);
  EXPECT_GT(options_for(profile_kind::full, t).max_s_per_point, options_for(profile_kind::quick, t).max_s_per_point);
}

TEST(TimerTest, MeasuresAPlausibleClock) {
  const auto t = measure_timer(20000);
  EXPECT_GT(t.overhead_ns, 0);
  EXPECT_GT(t.resolution_ns, 0);
  EXPECT_LT(t.overhead_ns, 1e6);  // a sanity bound, not a performance goal
}

}  // namespace
}  // namespace pollscale::calibrate
