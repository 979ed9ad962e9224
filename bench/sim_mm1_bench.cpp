// Speed of the simulator on M/M/1 with statistics (target: >= 10 M events/s).
//
// One iteration = one replication of an M/M/1 queue (lambda 0.9/s, mu 1/s) over 10^5
// simulated seconds: ~180 000 events (an arrival and a departure per customer), each
// customer's response time recorded in a running mean/variance and a latency histogram,
// the number in system and busy servers averaged over time. items_per_second is events
// per second of wall time. Not measured: nothing is excluded; the replication's set-up
// (engine, histogram allocation) is inside the timed loop, as in a real run.
#include <benchmark/benchmark.h>

#include "sim/station.hpp"

namespace {

using namespace pollscale::sim;

void run_mm1(benchmark::State& state, scheduler_kind kind) {
  station_config c;
  c.interarrival = distribution::exponential(1 / 0.9);
  c.service = distribution::exponential(1.0);
  c.run_s = 1e5;
  rng g(1);
  std::uint64_t events = 0, customers = 0;
  double response = 0;
  for (auto _ : state) {
    const station_result r = simulate_station(c, g, kind);
    events += r.events;
    customers += r.completed;
    response = r.mean_response_s;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["customers_per_s"] = benchmark::Counter(static_cast<double>(customers), benchmark::Counter::kIsRate);
  state.counters["mean_response_s"] = response;  // analytic: 10
}

void BM_MM1Heap(benchmark::State& state) { run_mm1(state, scheduler_kind::binary_heap); }
void BM_MM1Calendar(benchmark::State& state) { run_mm1(state, scheduler_kind::calendar_queue); }
BENCHMARK(BM_MM1Heap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MM1Calendar)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
