// The closed-form server estimate (sim/server_estimate.hpp) against the simulator it
// summarises, over a grid of 40 configurations: poll-like costs (1 us a call, 40 ns a
// registered fd, 60 ns a blocking registration) and epoll-like ones (1.5 us a call, 100 ns
// a ready event), a 20 us handler, 3/30 us wake-ups; 0, 1000, 10 000 and 50 000 idle fds;
// five loads: 100 closed clients without thinking, 20 thinking exp 1 ms, 100 thinking exp
// 10 ms behind 50 us of network, Poisson 10 000/s and 40 000/s over 100 connections. One
// row per configuration, then the largest and mean relative errors over the rows where
// neither side saturated (docs/sim.md quotes them).
//
// usage: sim_estimate_accuracy [--seed S] [--duration SECONDS]   (defaults 7, 2)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/costs.hpp"
#include "sim/server_estimate.hpp"
#include "sim/server_experiment.hpp"

namespace {

using namespace pollscale::sim;

cost_model linear(double call, double per_fd, double per_fd_blocking, double per_ready) {
  cost_table t;  // one entry, as a costs file would give it (its name matters only for rtsig)
  t.wait["linear"] = {call, per_fd, per_ready, per_fd_blocking};
  t.rearm_s["linear"] = 0;
  t.handler_s = 20e-6;
  t.wakeup_same_cpu_s = 3e-6;
  t.wakeup_cross_cpu_s = 30e-6;
  return make_cost_model(t, "linear");
}

workload load_of(int which, std::int64_t idle, std::string& label) {
  workload w;
  w.idle = idle;
  w.active = which == 1 ? 20 : 100;
  switch (which) {
    case 0: label = "closed 100, no think"; break;
    case 1:
      w.think = distribution::exponential(1e-3);
      label = "closed 20, think 1 ms";
      break;
    case 2:
      w.think = distribution::exponential(10e-3);
      w.network = distribution::constant(50e-6);
      label = "closed 100, 10 ms, 50 us";
      break;
    default:
      w.arrivals = arrival_kind::poisson;
      w.rate_per_s = which == 3 ? 10000 : 40000;
      label = which == 3 ? "poisson 10000/s" : "poisson 40000/s";
  }
  return w;
}

// Largest and summed |relative error| of one figure.
struct error_tally {
  double largest = 0, sum = 0;
  void add(double relative) {
    largest = std::fmax(largest, std::fabs(relative));
    sum += std::fabs(relative);
  }
};

}  // namespace

int main(int argc, char** argv) {
  run_options o;
  o.seed = 7;
  o.duration_s = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seed") == 0) o.seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--duration") == 0) o.duration_s = std::strtod(argv[i + 1], nullptr);
  }
  o.warmup_s = o.duration_s / 10;
  const struct {
    const char* name;
    cost_model costs;
  } mechanisms[] = {{"poll", linear(1e-6, 40e-9, 60e-9, 0)}, {"epoll", linear(1.5e-6, 0, 0, 100e-9)}};
  std::printf("%-6s %-25s %6s | %9s %9s | %9s %9s | %9s %9s | %5s %5s\n", "mech", "load", "idle", "X est", "X sim",
              "mean est", "mean sim", "p99 est", "p99 sim", "U est", "U sim");
  error_tally throughput, mean, p99, utilisation;
  int rows = 0;
  for (const auto& m : mechanisms)
    for (const std::int64_t idle : {0, 1000, 10000, 50000})
      for (int which = 0; which < 5; ++which) {
        std::string label;
        const workload w = load_of(which, idle, label);
        const server_config c = default_server_config(m.name);
        const server_estimate e = *estimate_server(c, w, m.costs).estimate;
        const experiment_result s = run_server_experiment(c, w, m.costs, o, stopping_rule{});
        std::printf("%-6s %-25s %6lld | %9.0f %9.0f | %9.3g %9.3g | %9.3g %9.3g | %5.2f %5.2f%s\n", m.name,
                    label.c_str(), static_cast<long long>(idle), e.throughput, s.throughput.mean, e.latency_mean_s,
                    s.latency_mean_s.mean, e.latency_p99_s, s.latency_p99_s.mean, e.cpu_utilisation,
                    s.cpu_utilisation.mean, e.saturated ? "  saturated" : "");
        if (e.saturated) continue;
        ++rows;
        throughput.add(e.throughput / s.throughput.mean - 1);
        mean.add(e.latency_mean_s / s.latency_mean_s.mean - 1);
        p99.add(e.latency_p99_s / s.latency_p99_s.mean - 1);
        utilisation.add(e.cpu_utilisation - s.cpu_utilisation.mean);
      }
  const auto line = [rows](const char* what, const error_tally& t, double scale, const char* unit) {
    std::printf("%-16s largest %6.2f%s  mean %6.2f%s\n", what, scale * t.largest, unit, scale * t.sum / rows, unit);
  };
  std::printf("\nover %d unsaturated configurations, |estimate - simulation|:\n", rows);
  line("throughput", throughput, 100, "%");
  line("mean latency", mean, 100, "%");
  line("p99 latency", p99, 100, "%");
  line("utilisation", utilisation, 1, " ");
  return 0;
}
