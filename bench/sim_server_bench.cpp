// Speed and memory of the event-loop server model (the simulator's target: a server with
// 1 M idle connections simulated within 2 GB).
//
// One iteration = one replication: epoll, 4 CPUs, 4 threads, 100 closed-loop clients
// (think exp 1 ms), costs of this machine's order (wait 200 ns + 80 ns per event, handler
// 5 us, wake-ups 3 / 60 us), over 1 simulated second (0.1 s warm-up). The idle
// connections, when present, each send a keep-alive every exp(60 s): 10^6 of them keep
// 10^6 events pending. Counters: items_per_second = engine events per wall second;
// peak_rss_bytes (getrusage, whole process so far); model_bytes (connection state, ready
// queues and the event queue at the end); bytes_per_connection = model_bytes / connections.
#include <benchmark/benchmark.h>

#include "sim/core/engine_stats.hpp"
#include "sim/event_loop_server.hpp"

namespace {

using namespace pollscale::sim;

cost_model machine_costs() {
  cost_model m;
  m.wait_call_s = [](const wait_query& q) { return 200e-9 + 80e-9 * static_cast<double>(q.ready); };
  m.rescan_s = m.wait_call_s;
  m.handler_s = 5e-6;
  m.wakeup_same_cpu_s = 3e-6;
  m.wakeup_cross_cpu_s = 60e-6;
  return m;
}

void run_server(benchmark::State& state, scheduler_kind kind) {
  workload w;
  w.idle = state.range(0);
  w.active = 100;
  w.think = distribution::exponential(1e-3);
  if (w.idle > 0) w.idle_activity = distribution::exponential(60);
  server_config c = default_server_config("epoll");
  c.cpus = 4;
  c.threads = 4;
  run_options o;
  o.duration_s = 1;
  o.warmup_s = 0.1;
  o.scheduler = kind;
  const cost_model m = machine_costs();
  std::uint64_t events = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const server_result r = simulate_server(c, w, m, o);
    events += r.events;
    bytes = r.model_bytes;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["peak_rss_bytes"] = static_cast<double>(peak_rss_bytes());
  state.counters["model_bytes"] = static_cast<double>(bytes);
  state.counters["bytes_per_connection"] = static_cast<double>(bytes) / static_cast<double>(w.idle + w.active);
}

void BM_ServerHeap(benchmark::State& state) { run_server(state, scheduler_kind::binary_heap); }
void BM_ServerCalendar(benchmark::State& state) { run_server(state, scheduler_kind::calendar_queue); }
BENCHMARK(BM_ServerHeap)->Arg(0)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ServerCalendar)->Arg(0)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
