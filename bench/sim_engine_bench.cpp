// Speed of the simulation core (target: >= 20 M events/s on a trivial model,
// <= 128 bytes per pending event).
//
// One operation of the hold benchmarks = one event: pop the earliest pending event and
// schedule one new event an exponential time later (the classic "hold" model of event-set
// studies), with a constant number of pending events. Not measured: building the initial
// pending set. The events/s counter is Google Benchmark's items_per_second.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/core/engine.hpp"
#include "sim/core/random.hpp"

namespace {

using namespace pollscale::sim;

// The trivial model: every event reschedules itself after an exponential delay.
struct hold final : process {
  rng* g;
  explicit hold(rng& r) : g(&r) {}
  void on_event(engine& e, std::uint64_t tag) override { e.schedule_in(exponential(*g, 1.0), *this, tag); }
};

void run_hold(benchmark::State& state, scheduler_kind kind) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  rng g(42);
  hold h(g);
  engine e(kind);
  for (std::size_t i = 0; i < pending; ++i) e.schedule_at(exponential(g, 1.0), h, i);
  for (auto _ : state) e.step();
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["bytes_per_pending_event"] =
      static_cast<double>(e.queue_memory_bytes()) / static_cast<double>(pending);
}

void BM_HoldHeap(benchmark::State& state) { run_hold(state, scheduler_kind::binary_heap); }
void BM_HoldCalendar(benchmark::State& state) { run_hold(state, scheduler_kind::calendar_queue); }

BENCHMARK(BM_HoldHeap)->Arg(16)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_HoldCalendar)->Arg(16)->Arg(1000)->Arg(100000)->Arg(1000000);

// The two parts of a hold event, apart: the scheduler alone (a constant increment, so
// every new event goes last: FIFO order, the heap's longest sift-down) and one
// exponential variate.
struct fixed final : process {
  double d = 1.0;
  void on_event(engine& e, std::uint64_t tag) override { e.schedule_in(d, *this, tag); }
};

void BM_FixedIncrementHeap(benchmark::State& state) {
  fixed h;
  engine e;
  for (int i = 0; i < state.range(0); ++i) e.schedule_at(i * 0.01, h, 0);
  for (auto _ : state) e.step();
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_FixedIncrementHeap)->Arg(16)->Arg(1000);

void BM_ExponentialVariate(benchmark::State& state) {
  rng g(1);
  for (auto _ : state) benchmark::DoNotOptimize(exponential(g, 1.0));
}
BENCHMARK(BM_ExponentialVariate);

}  // namespace

BENCHMARK_MAIN();
