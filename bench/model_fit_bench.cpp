// How fast model/ fits and predicts (targets: fitting every model of a full dataset
// <= 1 s; one prediction <= 10 us; docs/model.md records the figures).
//
// One "full dataset" here is the shape of `pollscale calibrate --full` (the grid of
// calibrate/probes/find_active_points.cpp and its siblings): seven fd kinds, every
// mechanism and flavour, 16 n values, k and position sweeps, blocking and woken
// variants, plus fd_range, token_ring and interest_churn, with planted costs and 1%
// noise (seeded). Set POLLSCALE_BENCH_DATASET=DIR to fit a real dataset instead.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "model/fit.hpp"
#include "model/prediction.hpp"

namespace {

using namespace pollscale;

const char* kinds[] = {"pipe", "eventfd", "socketpair", "tcp", "udp", "fifo", "tmpfile"};
const char* flavours[][2] = {{"select", ""},          {"pselect", ""},          {"poll", ""},         {"ppoll", ""},
                             {"epoll", "lt"},         {"epoll", "et"},          {"epoll", "oneshot"}, {"rtsig", ""},
                             {"io_uring", "oneshot"}, {"io_uring", "multishot"}};

datasets::key base(const std::string& scenario, const char* const* flavour, const std::string& kind,
                   const std::string& metric, int blocking, int threads, const std::string& pinning) {
  datasets::key k;
  k.scenario = scenario;
  k.mechanism = flavour[0];
  k.variant = flavour[1];
  k.fd_kind = kind;
  k.metric = metric;
  k.unit = metric == "throughput" ? "1/s" : "ns";
  k.blocking = blocking;
  k.threads = threads;
  k.cpus = pinning.find('+') != std::string::npos && pinning != "0+0" ? 2 : 1;
  k.pinning = pinning;
  return k;
}

// Planted cost: scanning mechanisms pay per fd, the others per ready event.
double planted(const datasets::key& k) {
  const double n = static_cast<double>(k.n_fds.value_or(1)), a = static_cast<double>(k.n_active.value_or(1));
  const bool scan =
      k.mechanism == "select" || k.mechanism == "pselect" || k.mechanism == "poll" || k.mechanism == "ppoll";
  const double w = n * 272.0;
  const double ws = scan ? 2.0 * n * 9.0 * std::max(0.0, 1 - (1 << 20) / w) : 0.0;
  double t = (scan ? 170 + 30 * n : 210) + 78 * a + ws + (k.blocking == 1 ? 3000 : 0);
  if (k.metric == "throughput") return 1e9 / (t + 500);
  if (k.scenario == "interest_churn") return 400 + 25 * std::log2(n);
  return t;
}

void add(model::observation_set& set, datasets::key k, std::mt19937_64& rng) {
  std::normal_distribution<double> e(0.0, 0.01);
  model::observation o;
  o.k = std::move(k);
  for (int s = 0; s < 15; ++s) o.samples.push_back(planted(o.k) * (1 + e(rng)));
  o.value = planted(o.k) * (1 + e(rng));
  o.where = "bench:" + std::to_string(set.rows.size());
  set.rows.push_back(std::move(o));
}

model::observation_set full_dataset() {
  model::observation_set s;
  s.source = "synthetic full profile";
  s.context = {{"schema_version", 1},
               {"caches",
                {{{"level", 1}, {"type", "Data"}, {"size_bytes", 49152}},
                 {{"level", 2}, {"type", "Unified"}, {"size_bytes", 1 << 20}},
                 {{"level", 3}, {"type", "Unified"}, {"size_bytes", 32 << 20}}}}};
  std::mt19937_64 rng(1);
  std::vector<std::int64_t> ns;
  for (int i = 0; i < 16; ++i) ns.push_back(static_cast<std::int64_t>(std::round(std::pow(19990.0, i / 15.0))));
  for (const char* kind : kinds)
    for (const auto& f : flavours)
      for (auto n : ns) {
        auto k = base("find_active", f, kind,
                      f[0] == std::string("epoll") && f[1] != std::string("lt") ? "time_per_op" : "time_per_call", 0, 1,
                      "0");
        k.n_fds = n;
        k.n_active = 1;
        k.active_pos = "middle";
        add(s, k, rng);
      }
  for (const auto& f : flavours)
    for (std::int64_t a : {1, 10, 100, 1000})
      for (const char* pos : {"first", "middle", "last", "spread", "random"}) {
        auto k = base("find_active", f, "pipe", "time_per_call", 0, 1, "0");
        k.n_fds = 1000;
        k.n_active = a;
        k.active_pos = pos;
        add(s, k, rng);
      }
  for (const auto& f : flavours)
    for (const char* pin : {"0+0", "0+1"})
      for (auto n : {10, 100, 1000, 10000})
        for (std::int64_t a : {1, 10}) {
          auto k = base("find_active", f, "pipe", "time_per_op", 1, 2, pin);
          k.n_fds = n;
          k.n_active = a;
          k.active_pos = "middle";
          add(s, k, rng);
        }
  for (const auto& f : flavours)
    for (auto n : ns) {
      auto ring = base("token_ring", f, "pipe", "throughput", 0, 1, "0");
      ring.n_fds = n;
      ring.n_active = 1;
      add(s, ring, rng);
      auto churn = base("interest_churn", f, "pipe", "add", 0, 1, "0");
      churn.n_fds = n;
      add(s, churn, rng);
    }
  return s;
}

const model::observation_set& dataset() {
  static const model::observation_set d = [] {
    if (const char* dir = std::getenv("POLLSCALE_BENCH_DATASET")) return model::load_observations(dir);
    return full_dataset();
  }();
  return d;
}

// Cells with too few points are left out, as `pollscale fit` does by default.
model::fit_options skipping() {
  model::fit_options o;
  o.skip_unfittable = true;
  return o;
}

void BM_FitFullDataset(benchmark::State& state) {
  const auto& d = dataset();
  std::size_t cells = 0;
  for (auto _ : state) {
    const auto m = model::fit_models(d, skipping());
    cells = m.cells.size();
    benchmark::DoNotOptimize(cells);
  }
  state.counters["points"] = static_cast<double>(d.rows.size());
  state.counters["cells"] = static_cast<double>(cells);
}
BENCHMARK(BM_FitFullDataset)->Unit(benchmark::kMillisecond);

void BM_PredictOne(benchmark::State& state) {
  static const auto models = model::fit_models(dataset(), skipping());
  datasets::key q;
  q.scenario = "find_active";
  q.mechanism = "poll";
  q.fd_kind = "pipe";
  q.metric = "time_per_call";
  q.blocking = 0;
  q.n_active = 1;
  std::int64_t n = 1000;
  for (auto _ : state) {
    q.n_fds = n;
    n = n % 100000 + 37;  // vary the point so nothing is cached
    benchmark::DoNotOptimize(model::predict(models, q));
  }
  state.counters["models"] = static_cast<double>(models.cells.size());
}
BENCHMARK(BM_PredictOne)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
