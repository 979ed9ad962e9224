#include "studies/seed_tables.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "datasets/vocabulary.hpp"
#include "sim/event_loop_server.hpp"
#include "sim/token_ring.hpp"

namespace pollscale::studies {

using sim::cost_model;
using sim::default_server_config;
using sim::run_options;
using sim::server_config;
using sim::simulate_server;
using sim::simulate_token_ring;
using sim::wait_query;
using sim::workload;

namespace {

// Weighted least squares of T = fixed + per_fd x on relative error, skipping point `skip`
// (SIZE_MAX: none); per_fd = 0 when `constant` or when the slope comes out negative.
per_op_fit least_squares(const std::vector<double>& x, const std::vector<double>& t, bool constant,
                         std::size_t skip = SIZE_MAX) {
  const auto n = static_cast<Eigen::Index>(x.size() - (skip < x.size() ? 1 : 0));
  Eigen::MatrixXd a(n, 2);
  Eigen::Index row = 0;
  double lo = INFINITY, hi = -INFINITY;  // the x values' range: a slope needs two
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i == skip) continue;
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
    // Rows scaled by 1/T: least squares on (fixed + per_fd x - T) / T, target 1.
    a(row, 0) = 1 / t[i];
    a(row, 1) = x[i] / t[i];
    ++row;
  }
  per_op_fit f;
  if (!constant && hi > lo) {
    const Eigen::Vector2d c = a.colPivHouseholderQr().solve(Eigen::VectorXd::Ones(n));
    f.fixed_s = c(0);
    f.per_fd_s = c(1);
  }
  if (f.per_fd_s <= 0 || f.fixed_s <= 0) {
    f.per_fd_s = 0;
    f.fixed_s = a.col(0).sum() / a.col(0).squaredNorm();  // the weighted mean of T
  }
  return f;
}

double loo_error(const std::vector<double>& x, const std::vector<double>& t, bool constant) {
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const per_op_fit f = least_squares(x, t, constant, i);
    sum += std::fabs(f.fixed_s + f.per_fd_s * x[i] - t[i]) / t[i];
  }
  return sum / static_cast<double>(x.size());
}

}  // namespace

per_op_fit fit_per_op_time(const std::vector<double>& x, const std::vector<double>& rate) {
  if (x.empty() || x.size() != rate.size()) throw std::invalid_argument("fit needs matching, non-empty x and rates");
  std::vector<double> t;
  for (double r : rate) {
    if (!std::isfinite(r) || r <= 0) throw std::invalid_argument("fit needs finite rates > 0");
    t.push_back(1 / r);
  }
  bool linear = true;
  double loo_lin = std::nan(""), loo_const = std::nan("");
  if (x.size() >= 3) {
    loo_lin = loo_error(x, t, false);
    loo_const = loo_error(x, t, true);
    linear = loo_lin < loo_const;
  }
  per_op_fit f = least_squares(x, t, !linear);
  f.points = x.size();
  f.form = f.per_fd_s > 0 ? "fixed + per_fd*n" : "fixed";
  f.loo_linear = loo_lin;
  f.loo_constant = loo_const;
  return f;
}

namespace {

using mechanism_variant = std::pair<std::string, std::string>;  // mechanism, variant

std::map<mechanism_variant, std::vector<const datasets::historical_row*>> series_of(
    const std::vector<datasets::historical_row>& rows, datasets::scenario scenario) {
  std::map<mechanism_variant, std::vector<const datasets::historical_row*>> s;
  for (const auto& r : rows) {
    if (r.k.scenario != scenario || r.k.metric != datasets::metric::throughput) continue;
    if (!r.k.n_fds || r.k.unit != "1/s")
      throw std::invalid_argument("historical row at line " + std::to_string(r.line) +
                                  " has no n_fds or is not in 1/s");
    s[{r.k.mechanism, r.k.variant}].push_back(&r);
  }
  if (s.empty()) throw std::invalid_argument("no '" + datasets::text(scenario) + "' throughput rows to reproduce");
  return s;
}

// A cost model whose wait call costs per_fd for every fd it scans and whose handler costs
// the fixed part; wake-ups are free (the fitted tables' servers never sleep).
cost_model costs_of(const per_op_fit& f) {
  cost_model m;
  m.wait_call_s = [p = f.per_fd_s](const wait_query& q) { return p * static_cast<double>(q.registered); };
  m.rescan_s = m.wait_call_s;
  m.handler_s = f.fixed_s;
  return m;
}

// Enough simulated time for ~2000 operations, so that counting whole operations costs
// at most 0.05% of the rate.
run_options span_for(double per_op_s) {
  run_options o;
  o.duration_s = 2000 * per_op_s;
  o.warmup_s = 20 * per_op_s;
  return o;
}

template <typename Simulate>
seed_reproduction reproduce(const std::vector<datasets::historical_row>& rows, datasets::scenario scenario,
                            std::int64_t train_max_n, std::int64_t x_offset, Simulate simulate) {
  seed_reproduction out;
  out.train_max_n = train_max_n;
  for (const auto& [key, series] : series_of(rows, scenario)) {
    std::vector<double> x, rate;
    for (const auto* r : series)
      if (*r->k.n_fds <= train_max_n) {
        x.push_back(static_cast<double>(*r->k.n_fds + x_offset));
        rate.push_back(r->value);
      }
    if (x.empty())
      throw std::invalid_argument(key.first + " " + key.second + ": no row with n <= " + std::to_string(train_max_n));
    per_op_fit f = fit_per_op_time(x, rate);
    f.mechanism = key.first;
    f.variant = key.second;
    out.fits.push_back(f);
    for (const auto* r : series) {
      seed_row row{key.first, key.second, *r->k.n_fds, r->value, 0, 0, *r->k.n_fds <= train_max_n, r->line};
      row.simulated = simulate(f, *r->k.n_fds);
      row.rel_err = (row.simulated - row.measured) / row.measured;
      out.rows.push_back(row);
    }
  }
  return out;
}

}  // namespace

seed_reproduction reproduce_dphttpd(const std::vector<datasets::historical_row>& rows, std::int64_t train_max_n,
                                    std::int64_t clients) {
  if (clients < 1) throw std::invalid_argument("dphttpd reproduction needs clients >= 1");
  auto simulate = [clients](const per_op_fit& f, std::int64_t n) {
    server_config c = default_server_config(f.mechanism == datasets::mechanism::epoll ? datasets::mechanism::epoll
                                                                                      : datasets::mechanism::poll);
    c.max_events_per_call = 1;  // one new connection accepted per wait call
    workload w;
    w.idle = n;
    w.active = clients;
    const double per_op = f.fixed_s + f.per_fd_s * static_cast<double>(n + clients);
    return simulate_server(c, w, costs_of(f), span_for(per_op)).throughput;
  };
  seed_reproduction r = reproduce(rows, datasets::scenario::server, train_max_n, clients, simulate);
  r.table = "dphttpd";
  return r;
}

seed_reproduction reproduce_pipetest(const std::vector<datasets::historical_row>& rows, std::int64_t train_max_n) {
  auto simulate = [](const per_op_fit& f, std::int64_t n) {
    const double per_op = f.fixed_s + f.per_fd_s * static_cast<double>(n);
    return simulate_token_ring({n, 1, 1, 1}, costs_of(f), span_for(per_op)).passes_per_s;
  };
  seed_reproduction r = reproduce(rows, datasets::scenario::token_ring, train_max_n, 0, simulate);
  r.table = "pipetest";
  return r;
}

}  // namespace pollscale::studies
