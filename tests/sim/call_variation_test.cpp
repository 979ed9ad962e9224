#include "sim/call_variation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "datasets/statistics.hpp"
#include "sim/analytic.hpp"
#include "sim/core/output_analysis.hpp"
#include "sim/event_loop_server.hpp"

namespace pollscale::sim {
namespace {

// A skewed shape: most calls a little under their mean, one in a hundred 3-8x it.
datasets::spread_shape skewed_shape(double mean_ns) {
  datasets::spread_shape s;
  s.point = "planted";
  s.mean_ns = mean_ns;
  s.ratios = {0.7, 0.75, 0.8, 0.82, 0.86, 0.9, 0.95, 1.05, 1.2, 3.0, 6.0, 8.0};
  s.samples = 3000;
  s.visits = 3;
  return s;
}

TEST(CallVariationTest, MultiplierHasMeanOneAndTheShapesQuantiles) {
  datasets::call_spread spread;
  spread.wait_calls = {skewed_shape(1000)};
  const call_variation v(spread);
  rng g(7);
  std::vector<double> draws;
  for (int i = 0; i < 200000; ++i) draws.push_back(v.wait_call_s(2e-6, g) / 2e-6);
  double sum = 0;
  for (double d : draws) sum += d;
  EXPECT_NEAR(sum / static_cast<double>(draws.size()), 1.0, 0.01);
  const double m = skewed_shape(1000).mean_ratio();
  EXPECT_NEAR(datasets::quantile(draws, 0.5), 0.9 / m, 0.01);
  EXPECT_NEAR(datasets::quantile(draws, 0.99), 3.0 / m, 0.05);
  EXPECT_DOUBLE_EQ(v.multiplier_at(call_variation::operation::wait_call, 2e-6, 0.99), 3.0 / m);
  // No handler shape: a handler costs its mean, and no draw is taken.
  rng h(7), untouched(7);
  EXPECT_EQ(v.handler_s(5e-6, h), 5e-6);
  EXPECT_EQ(h(), untouched());
}

TEST(CallVariationTest, LengthsBetweenShapesBlendInLogMean) {
  datasets::call_spread spread;
  auto narrow = skewed_shape(1000);
  narrow.ratios = {0.9, 0.92, 0.94, 0.95, 0.97, 1.0, 1.02, 1.04, 1.06, 1.1, 1.2, 1.3};
  spread.wait_calls = {narrow, skewed_shape(100000)};
  const call_variation v(spread);
  // 10 µs is halfway between 1 µs and 100 µs in log: the two quantile functions averaged.
  const double a = narrow.ratio_at(0.99), b = skewed_shape(100000).ratio_at(0.99);
  const double mean = (narrow.mean_ratio() + skewed_shape(100000).mean_ratio()) / 2;
  EXPECT_NEAR(v.multiplier_at(call_variation::operation::wait_call, 10e-6, 0.99), (a + b) / 2 / mean, 1e-12);
  // Outside the measured lengths: the nearest shape.
  EXPECT_DOUBLE_EQ(v.multiplier_at(call_variation::operation::wait_call, 1e-9, 0.99), a / narrow.mean_ratio());
  EXPECT_DOUBLE_EQ(v.multiplier_at(call_variation::operation::wait_call, 1.0, 0.99),
                   b / skewed_shape(100000).mean_ratio());
}

TEST(CallVariationTest, RefusesShapesItCannotDrawFrom) {
  datasets::call_spread spread;
  auto s = skewed_shape(1000);
  s.ratios[3] = 0.1;  // decreasing
  spread.handlers = {s};
  EXPECT_THROW(call_variation{spread}, std::invalid_argument);
  s = skewed_shape(1000);
  s.ratios[0] = std::nan("");
  spread.handlers = {s};
  EXPECT_THROW(call_variation{spread}, std::invalid_argument);
  s = skewed_shape(0);
  spread.handlers = {s};
  EXPECT_THROW(call_variation{spread}, std::invalid_argument);
}

// With free wait calls and wake-ups a one-thread server is a single server: open Poisson
// requests and a handler varied by the shape make it M/G/1, whose mean response the
// Pollaczek-Khinchine formula gives from the service's first two moments. Without the
// variation the same server is M/D/1, 14% faster here (the shape's squared coefficient of
// variation is 0.23, all of it in the waiting): the spread is what the queue was missing.
cost_model free_but_handler(double handler_s, std::shared_ptr<const call_variation> v) {
  cost_model m;
  m.wait_call_s = [](const wait_query&) { return 0.0; };
  m.rescan_s = [](const wait_query&) { return 0.0; };
  m.overflow_poll_s = [](const wait_query&) { return 0.0; };
  m.handler_s = handler_s;
  m.variation = std::move(v);
  return m;
}

TEST(CallVariationValidationTest, VariedHandlerMatchesMG1) {
  datasets::call_spread spread;
  spread.handlers = {skewed_shape(500000)};
  const auto v = std::make_shared<const call_variation>(spread);
  workload w;
  w.active = 1000;
  w.arrivals = arrival_kind::poisson;
  w.rate_per_s = 1500;
  const double h = 500e-6;  // rho = 0.75
  std::vector<double> varied, fixed;
  for (std::uint64_t rep = 0; rep < 10; ++rep) {
    run_options o;
    o.duration_s = 20;
    o.warmup_s = 1;
    o.slices = 10;
    o.seed = derive_seed(41, rep);
    varied.push_back(simulate_server(default_server_config("epoll"), w, free_but_handler(h, v), o).mean_latency_s);
    fixed.push_back(simulate_server(default_server_config("epoll"), w, free_but_handler(h, nullptr), o).mean_latency_s);
  }
  const double m = skewed_shape(500000).mean_ratio();
  const double second = h * h * skewed_shape(500000).second_moment() / (m * m);
  EXPECT_NEAR(v->multiplier_variance(call_variation::operation::handler, h), second / (h * h) - 1, 1e-12);
  const double exact = analytic::mg1(1500, h, second).mean_response_s;
  EXPECT_TRUE(t_interval(varied).contains(exact)) << t_interval(varied).mean << " vs " << exact;
  EXPECT_TRUE(t_interval(fixed).contains(analytic::md1(1500, h).mean_response_s)) << t_interval(fixed).mean;
  EXPECT_GT(exact, 1.1 * analytic::md1(1500, h).mean_response_s);
}

TEST(CallVariationTest, DrawsComeFromTheirOwnStreamSoArrivalsStayTheSame) {
  // A spread whose every quantile is 1 varies nothing: the run is the same to the bit as
  // one without variation, which proves the workload's draws are untouched by it.
  datasets::call_spread spread;
  auto flat = skewed_shape(1000);
  flat.ratios.fill(1.0);
  spread.wait_calls = {flat};
  spread.handlers = {flat};
  spread.wakeups_same_cpu = {flat};
  spread.wakeups_cross_cpu = {flat};
  workload w;
  w.active = 100;
  w.arrivals = arrival_kind::poisson;
  w.rate_per_s = 1000;
  w.app_work = distribution::exponential(1e-4);
  run_options o;
  o.duration_s = 2;
  o.slices = 10;
  o.seed = 5;
  cost_model a = free_but_handler(2e-4, std::make_shared<const call_variation>(spread));
  a.wait_call_s = [](const wait_query& q) { return 1e-6 + 1e-8 * static_cast<double>(q.registered); };
  cost_model b = a;
  b.variation = nullptr;
  const server_result ra = simulate_server(default_server_config("poll"), w, a, o);
  const server_result rb = simulate_server(default_server_config("poll"), w, b, o);
  EXPECT_EQ(ra.replies, rb.replies);
  EXPECT_EQ(ra.mean_latency_s, rb.mean_latency_s);
  EXPECT_EQ(ra.calls, rb.calls);
  EXPECT_GT(ra.wakeups, 0U);  // the wake-up shapes were asked too
}

TEST(CallVariationTest, VariedWakeUpsKeepTheMeanAndWidenTheTail) {
  // A lightly loaded server sleeps between requests: each one pays a wake-up of 50 µs. With
  // the skewed shape the mean latency stays (the multiplier's mean is 1), the p99 grows.
  datasets::call_spread spread;
  spread.wakeups_same_cpu = {skewed_shape(50000)};
  spread.wakeups_cross_cpu = {skewed_shape(50000)};
  workload w;
  w.active = 100;
  w.arrivals = arrival_kind::poisson;
  w.rate_per_s = 200;
  run_options o;
  o.duration_s = 50;
  o.slices = 10;
  o.seed = 9;
  cost_model a = free_but_handler(10e-6, std::make_shared<const call_variation>(spread));
  a.wakeup_same_cpu_s = a.wakeup_cross_cpu_s = 50e-6;
  cost_model b = a;
  b.variation = nullptr;
  const server_result ra = simulate_server(default_server_config("epoll"), w, a, o);
  const server_result rb = simulate_server(default_server_config("epoll"), w, b, o);
  EXPECT_GT(ra.wakeups, 9000U);
  EXPECT_NEAR(ra.mean_latency_s, rb.mean_latency_s, 0.03 * rb.mean_latency_s);
  EXPECT_GT(ra.latency.quantile(0.99), 2 * rb.latency.quantile(0.99));
}

}  // namespace
}  // namespace pollscale::sim
