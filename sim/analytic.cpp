#include "sim/analytic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace pollscale::sim::analytic {

namespace {

void require_rate(double v, const char* name) {
  if (!std::isfinite(v) || v <= 0)
    throw std::invalid_argument(std::string(name) + " must be finite and > 0, got " + std::to_string(v));
}

void require_stable(double rho, const char* queue) {
  if (!(rho < 1))
    throw std::invalid_argument(std::string(queue) + " is unstable: utilisation " + std::to_string(rho) + " >= 1");
}

}  // namespace

queue_metrics mm1(double lambda, double mu) {
  require_rate(lambda, "lambda");
  require_rate(mu, "mu");
  const double rho = lambda / mu;
  require_stable(rho, "M/M/1");
  queue_metrics m;
  m.utilisation = rho;
  m.p_wait = rho;
  m.mean_response_s = 1 / (mu - lambda);
  m.mean_wait_s = rho / (mu - lambda);
  m.mean_in_system = rho / (1 - rho);
  m.mean_in_queue = rho * rho / (1 - rho);
  m.throughput = lambda;
  return m;
}

double mm1_response_quantile(double lambda, double mu, double p) {
  mm1(lambda, mu);  // validates
  if (!(p >= 0 && p < 1)) throw std::invalid_argument("quantile p must be in [0, 1)");
  return -std::log1p(-p) / (mu - lambda);
}

double erlang_b(int c, double a) {
  if (c < 1) throw std::invalid_argument("servers must be >= 1");
  require_rate(a, "offered load");
  // B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)): stable for any c, no factorials.
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return b;
}

double erlang_c(int c, double a) {
  const double b = erlang_b(c, a);
  const double rho = a / c;
  require_stable(rho, "M/M/c");
  return b / (1 - rho * (1 - b));
}

queue_metrics mmc(double lambda, double mu, int c) {
  require_rate(lambda, "lambda");
  require_rate(mu, "mu");
  const double a = lambda / mu;
  const double pw = erlang_c(c, a);
  queue_metrics m;
  m.utilisation = a / c;
  m.p_wait = pw;
  m.mean_wait_s = pw / (c * mu - lambda);
  m.mean_response_s = m.mean_wait_s + 1 / mu;
  m.mean_in_queue = lambda * m.mean_wait_s;
  m.mean_in_system = lambda * m.mean_response_s;
  m.throughput = lambda;
  return m;
}

queue_metrics mg1(double lambda, double mean_s, double second_moment_s2) {
  require_rate(lambda, "lambda");
  require_rate(mean_s, "mean service time");
  if (!std::isfinite(second_moment_s2) || second_moment_s2 < mean_s * mean_s * (1 - 1e-12))
    throw std::invalid_argument("service second moment must be finite and >= mean^2");
  const double rho = lambda * mean_s;
  require_stable(rho, "M/G/1");
  queue_metrics m;
  m.utilisation = rho;
  m.p_wait = rho;  // PASTA: an arrival sees the server busy with probability rho
  m.mean_wait_s = lambda * second_moment_s2 / (2 * (1 - rho));
  m.mean_response_s = m.mean_wait_s + mean_s;
  m.mean_in_queue = lambda * m.mean_wait_s;
  m.mean_in_system = lambda * m.mean_response_s;
  m.throughput = lambda;
  return m;
}

queue_metrics md1(double lambda, double service_s) { return mg1(lambda, service_s, service_s * service_s); }

namespace {

// Stationary distribution of the finite-source birth-death chain with n customers:
// p_k proportional to prod_{j=1..k} (n-j+1) / (think * min(j, c) / service). Computed in
// logarithms so that large populations cannot overflow.
std::vector<double> repairman_distribution(int n, double think_s, double service_s, int c) {
  std::vector<double> log_p(static_cast<std::size_t>(n) + 1, 0.0);
  for (int k = 1; k <= n; ++k)
    log_p[static_cast<std::size_t>(k)] = log_p[static_cast<std::size_t>(k) - 1] +
                                         std::log(static_cast<double>(n - k + 1)) +
                                         std::log(service_s / (think_s * std::min(k, c)));
  const double top = *std::max_element(log_p.begin(), log_p.end());
  double total = 0;
  for (double& v : log_p) total += (v = std::exp(v - top));
  for (double& v : log_p) v /= total;
  return log_p;
}

}  // namespace

queue_metrics machine_repairman(int customers, double think_s, double service_s, int servers) {
  if (customers < 1) throw std::invalid_argument("customers must be >= 1");
  if (servers < 1) throw std::invalid_argument("servers must be >= 1");
  require_rate(think_s, "think time");
  require_rate(service_s, "service time");
  const std::vector<double> p = repairman_distribution(customers, think_s, service_s, servers);
  double in_system = 0, busy = 0, queued = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double kk = static_cast<double>(k);
    in_system += kk * p[k];
    busy += std::min(kk, static_cast<double>(servers)) * p[k];
    queued += std::max(0.0, kk - servers) * p[k];
  }
  queue_metrics m;
  m.throughput = busy / service_s;
  m.utilisation = busy / servers;
  m.mean_in_system = in_system;
  m.mean_in_queue = queued;
  m.mean_response_s = in_system / m.throughput;  // Little's law
  m.mean_wait_s = queued / m.throughput;
  if (customers > 1) {
    const std::vector<double> seen = repairman_distribution(customers - 1, think_s, service_s, servers);
    for (std::size_t k = static_cast<std::size_t>(servers); k < seen.size(); ++k) m.p_wait += seen[k];
  }
  return m;
}

}  // namespace pollscale::sim::analytic
