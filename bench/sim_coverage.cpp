// Coverage of the simulator's 95% intervals (target: 95% +- 2 points over >= 200
// replications). For each queue with a closed form, builds many independent 95% intervals
// of the mean response time and counts how often the exact value lies inside:
//   replications: 10 independent runs (warm-up dropped), Student t over their means;
//   batch means:  one long run (10x as long, the same fixed warm-up), 10 batches, Student t;
//   server:       the event-loop server with free wait calls (= machine repairman),
//                 10 replications.
// A well-calibrated interval covers 95% of the time; the binomial standard error of the
// coverage over N intervals is sqrt(0.95 * 0.05 / N) (0.69 points at N = 1000).
//
// usage: sim_coverage [--intervals N] [--seed S]   (defaults 1000, 1)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "sim/analytic.hpp"
#include "sim/core/output_analysis.hpp"
#include "sim/event_loop_server.hpp"
#include "sim/station.hpp"

namespace {

using namespace pollscale::sim;

struct case_def {
  std::string name;
  station_config config;
  double exact_response_s;
};

station_config open_queue(double lambda, distribution service, int servers, double warmup, double run) {
  station_config c;
  c.interarrival = distribution::exponential(1 / lambda);
  c.service = service;
  c.servers = servers;
  c.warmup_s = warmup;
  c.run_s = run;
  return c;
}

std::vector<case_def> cases() {
  const distribution h = distribution::hyperexponential(1.0, 4.0);
  std::vector<case_def> v = {
      {"M/M/1 rho 0.5", open_queue(0.5, distribution::exponential(1), 1, 100, 5000),
       analytic::mm1(0.5, 1).mean_response_s},
      {"M/M/3 rho 0.8", open_queue(2.4, distribution::exponential(1), 3, 100, 3000),
       analytic::mmc(2.4, 1, 3).mean_response_s},
      {"M/D/1 rho 0.6", open_queue(0.6, distribution::constant(1), 1, 100, 5000),
       analytic::md1(0.6, 1).mean_response_s},
      {"M/H2/1 rho 0.5 scv 4", open_queue(0.5, h, 1, 100, 10000),
       analytic::mg1(0.5, h.mean(), h.second_moment()).mean_response_s},
  };
  station_config mr;
  mr.customers = 10;
  mr.think = distribution::exponential(5);
  mr.service = distribution::exponential(0.5);
  mr.warmup_s = 50;
  mr.run_s = 2000;
  v.push_back({"machine repairman N 10", mr, analytic::machine_repairman(10, 5, 0.5, 1).mean_response_s});
  return v;
}

struct tally {
  int covered = 0, total = 0;
  double half_width_sum = 0, lag1_sum = 0;
  void add(const interval& i, double exact, double lag1 = std::nan("")) {
    covered += i.contains(exact) ? 1 : 0;
    ++total;
    half_width_sum += i.relative_half_width();
    lag1_sum += lag1;
  }
  void print(const std::string& name, const char* method) const {
    const double p = static_cast<double>(covered) / total;
    std::printf("| %s | %s | %d | %.1f%% | %.2f | %.1f%% | %s |\n", name.c_str(), method, total, 100 * p,
                100 * std::sqrt(0.95 * 0.05 / total), 100 * half_width_sum / total,
                std::isnan(lag1_sum) ? "" : std::to_string(lag1_sum / total).substr(0, 5).c_str());
  }
};

interval by_replications(const station_config& c, std::uint64_t seed) {
  std::vector<double> means;
  for (std::uint64_t r = 0; r < 10; ++r) {
    rng g(derive_seed(seed, r));
    means.push_back(simulate_station(c, g).mean_response_s);
  }
  return t_interval(means);
}

// The interval and the lag-1 autocorrelation of its batch means.
std::pair<interval, double> by_batch_means(station_config c, std::uint64_t seed) {
  c.keep_series = true;
  c.run_s *= 10;
  rng g(seed);
  const std::vector<double> means = batch_means_of(simulate_station(c, g).series, 10);
  return {t_interval(means), lag1_autocorrelation(means)};
}

interval server_replications(std::uint64_t seed) {
  cost_model free;
  free.wait_call_s = free.rescan_s = [](const wait_query&) { return 0.0; };
  workload w;
  w.active = 10;
  w.think = distribution::exponential(5e-3);
  w.app_work = distribution::exponential(5e-4);
  std::vector<double> means;
  for (std::uint64_t r = 0; r < 10; ++r) {
    run_options o;
    o.duration_s = 2;
    o.warmup_s = 0.05;
    o.seed = derive_seed(seed, r);
    means.push_back(simulate_server(default_server_config("epoll"), w, free, o).mean_latency_s);
  }
  return t_interval(means);
}

}  // namespace

int main(int argc, char** argv) {
  long long intervals = 1000, seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    long long* target = a == "--intervals" ? &intervals : a == "--seed" ? &seed : nullptr;
    char* end = nullptr;
    if (!target || i + 1 >= argc || (*target = std::strtoll(argv[++i], &end, 10), *end != '\0') || intervals < 10 ||
        seed < 0) {
      std::fprintf(stderr, "usage: sim_coverage [--intervals N >= 10] [--seed S >= 0]\n");
      return 2;
    }
  }
  std::printf(
      "| model | interval | intervals | coverage | its std. error (points) | mean relative half-width | "
      "mean lag-1 autocorrelation of batch means |\n|---|---|---:|---:|---:|---:|---:|\n");
  const auto base = static_cast<std::uint64_t>(seed);
  std::uint64_t stream = 0;
  for (const case_def& c : cases()) {
    tally reps, batches;
    for (long long i = 0; i < intervals; ++i) {
      reps.add(by_replications(c.config, derive_seed(base, stream++)), c.exact_response_s);
      const auto [iv, lag1] = by_batch_means(c.config, derive_seed(base, stream++));
      batches.add(iv, c.exact_response_s, lag1);
    }
    reps.print(c.name, "10 replications");
    batches.print(c.name, "batch means (10)");
  }
  tally server;
  const double exact = analytic::machine_repairman(10, 5e-3, 5e-4, 1).mean_response_s;
  for (long long i = 0; i < intervals; ++i) server.add(server_replications(derive_seed(base, stream++)), exact);
  server.print("event-loop server, free calls (= machine repairman N 10)", "10 replications");
  return 0;
}
