#include "sim/server_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "sim/call_variation.hpp"
#include "sim/core/random.hpp"
#include "sim/cost_cache.hpp"

namespace pollscale::sim {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// What one thread sees: its interest set's size, its costs, its wake-up latency.
struct thread_view {
  std::int64_t registered = 0;
  std::int64_t process_threads = 1;  // the server's threads (wait_query::process_threads)
  ready_position position = ready_position::random;
  double handle_s = 0;  // handler + application work, per event
  double rearm_s = 0;   // per event
  double wake_s = 0;    // from an arrival to the sleeper running
  // The call spread's share of the spread (cost_model::variation): one handler's variance,
  // s², and one wait call's relative variance (its squared coefficient of variation).
  double handler_var_s2 = 0;
  double call_var_rel = 0;
  std::array<double, 2> wake_var_rel{};  // a wake-up's, same CPU and across CPUs
  double wake_var_s2 = 0;                // this thread's wake-up's variance, s²
  cost_cache* costs = nullptr;
  double width = 1;  // cost_model::width at the server's CPUs: every CPU cost's multiple

  double per_event_s() const { return handle_s + rearm_s; }

  // The blocking call's first pass with k ready when it starts.
  double call_s(std::int64_t k) const {
    wait_query q{registered, std::min(k, registered), true};
    q.process_threads = process_threads;
    if (position == ready_position::first) q.before_first_ready = 0;
    if (position == ready_position::last) q.before_first_ready = static_cast<double>(q.registered - q.ready);
    return width * costs->wait_call_s(q);
  }
  double rescan_s(std::int64_t k) const {
    wait_query q{registered, std::min(k, registered), false};
    q.process_threads = process_threads;
    return width * costs->rescan_s(q);
  }

  // The call's mean cost when the ready count it starts with is Poisson of mean nu. Small
  // means are summed over the distribution (poll's registration cost falls as 1/(k+1)
  // there); large ones are near their mean.
  double mean_call_s(double nu) const {
    if (nu > 64) {
      const auto k = static_cast<std::int64_t>(nu);
      const double f = nu - static_cast<double>(k);
      return (1 - f) * call_s(k) + f * call_s(k + 1);
    }
    const auto top = static_cast<std::int64_t>(nu + 10 * std::sqrt(nu) + 12);
    double p = std::exp(-nu), sum = 0;
    for (std::int64_t k = 0; k <= top; ++k) {
      sum += p * call_s(k);
      p *= nu / static_cast<double>(k + 1);
    }
    return sum;
  }
  // How much one more ready event at the start adds to the call, s (>= 0).
  double call_slope_s(double nu) const {
    const auto k = static_cast<std::int64_t>(std::max(0.0, nu));
    return std::max(0.0, call_s(k + 1) - call_s(k));
  }
};

// One thread at a total event rate lambda (requests and keep-alives), 1/s.
struct thread_solution {
  bool saturated = false;
  double events_per_cycle = 0;    // x
  double call_s = 0;              // W
  double asleep = 0;              // P0: a call claims nothing and the thread sleeps
  double cycle_s = 0;             // Tc
  double busy_batch = 0;          // events per cycle that did not sleep
  double batch_variance = 0;      // of the busy batches
  double rescan_s = 0;            // Rs after a wake-up
  double after_sleep_events = 0;  // m
  double utilisation = 0;
  double asleep_time_fraction = 0;
};

thread_solution solve_thread(const thread_view& v, double lambda) {
  thread_solution out;
  const double s = v.per_event_s();
  out.rescan_s = v.rescan_s(1);
  out.after_sleep_events = 1 + lambda * (v.wake_s + out.rescan_s);
  // f(x) = lambda (W + x s) + P0 m - x: positive at 0, falling while the loop keeps up.
  const auto f = [&](double x) {
    const double w = v.mean_call_s(lambda * x * s);
    const double mu = lambda * (x * s + w);
    return mu + std::exp(-mu) * out.after_sleep_events - x;
  };
  double lo = 0, hi = std::max(1.0, lambda * v.call_s(0));
  while (f(hi) >= 0) {
    hi *= 2;
    if (hi > 1e12) {
      out.saturated = true;
      return out;
    }
  }
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) (f((lo + hi) / 2) > 0 ? lo : hi) = (lo + hi) / 2;
  const double x = (lo + hi) / 2;
  out.events_per_cycle = x;
  out.call_s = v.mean_call_s(lambda * x * s);
  const double mu = lambda * (x * s + out.call_s);
  out.asleep = std::exp(-mu);
  out.cycle_s = x / lambda;
  out.busy_batch = out.asleep < 1 ? mu / (1 - out.asleep) : 0;
  const double rho = std::min(0.999, lambda * (s + v.call_slope_s(lambda * x * s)));
  out.batch_variance = mu / (1 - rho * rho);
  out.utilisation = std::min(1.0, (out.call_s + x * s + out.asleep * out.rescan_s) / out.cycle_s);
  out.asleep_time_fraction = out.asleep / lambda / out.cycle_s;
  return out;
}

// Response times at the server (arrival to reply leaving), s: their mean and p99.
struct response {
  double mean = infinity, p99 = infinity;
};

// The 99% point of a mixture, by bisection on its distribution function.
template <typename Cdf>
double quantile99(const Cdf& below, double hi) {
  double lo = 0;
  while (below(hi) < 0.99 && hi < 1e6) hi *= 2;
  for (int i = 0; i < 100; ++i) (below((lo + hi) / 2) < 0.99 ? lo : hi) = (lo + hi) / 2;
  return hi;
}

double normal_cdf(double y, double mean, double sd) {
  return sd > 0 ? 0.5 * std::erfc((mean - y) / (sd * std::sqrt(2.0))) : (y >= mean ? 1.0 : 0.0);
}

// A sleeping thread's response: woken, rescans, and the request's place among the m events
// claimed then.
double sleep_mean(const thread_view& v, const thread_solution& t) {
  return v.wake_s + t.rescan_s + v.per_event_s() * (t.after_sleep_events + 1) / 2;
}
double sleep_sd(const thread_view& v, const thread_solution& t) {
  const double place = v.per_event_s() * v.per_event_s() * std::max(0.0, t.after_sleep_events - 1) / 12;
  // Single calls vary: the rescan, and the handlers before this request's and its own.
  const double calls =
      (t.after_sleep_events + 1) / 2 * v.handler_var_s2 + t.rescan_s * t.rescan_s * v.call_var_rel + v.wake_var_s2;
  return std::sqrt(place + calls);
}

// The spread single calls add to a busy window of `batch` handlers and one call, s.
double window_call_sd(const thread_view& v, const thread_solution& t, double batch) {
  return std::sqrt(std::max(0.0, batch) * v.handler_var_s2 + t.call_s * t.call_s * v.call_var_rel);
}

// Open (Poisson) arrivals onto `connections` connections. A request arriving in a busy
// window waits for its end and its place in the next batch: about the cycle, less half a
// call (arrivals late in the window are claimed sooner and come later in the batch). Each
// connection is handled once a cycle, so one that already holds a request waits cycles:
// a queue per connection at utilisation q = batch / connections, whose extra cycles are
// taken as geometric with mean q / (2 (1 - q)).
response respond_open(const thread_view& v, const thread_solution& t, double connections) {
  response r;
  const double s = v.per_event_s();
  const double busy_cycle = t.call_s + t.busy_batch * s;
  const double q = t.busy_batch / connections;
  if (t.saturated || q >= 1) return r;
  const double asleep = std::clamp(t.asleep_time_fraction, 0.0, 1.0);
  const double extra_mean = q / (2 * (1 - q)), beta = extra_mean / (1 + extra_mean);
  const double busy_mean = busy_cycle + s - t.call_s / 2;
  const double calls_sd = window_call_sd(v, t, t.busy_batch);
  const double busy_sd = std::sqrt(s * s * t.batch_variance + t.call_s * t.call_s / 12 + calls_sd * calls_sd);
  r.mean = asleep * sleep_mean(v, t) + (1 - asleep) * (busy_mean + busy_cycle * extra_mean);
  const auto below = [&](double y) {
    double busy = 0, p = 1 - beta;  // P(extra cycles = j) = (1 - beta) beta^j
    for (int j = 0; j < 400 && p > 1e-9; ++j, p *= beta) busy += p * normal_cdf(y, busy_mean + j * busy_cycle, busy_sd);
    return asleep * normal_cdf(y, sleep_mean(v, t), sleep_sd(v, t)) + (1 - asleep) * busy;
  };
  r.p99 = quantile99(below, busy_mean + 4 * busy_sd + 10 * busy_cycle);
  return r;
}

// A closed client's time away - thinking and the network both ways - sampled once with a
// fixed seed, so that an estimate is the same every time.
std::vector<double> away_samples(const workload& w) {
  rng g(0x5e57'1a7e);
  std::vector<double> out(2048);
  for (double& a : out) a = w.think.sample(g) + w.network.sample(g) + w.network.sample(g);
  return out;
}

// Closed clients. A client's reply leaves at its place in a batch; its next request arrives
// `away` later, at some offset u into a window between two claims (a cycle C apart), and is
// claimed at the window's end. Claims hand out events in the order they became ready, so its
// place in the next batch follows u: the response is C - u + its place's handling. Places
// are spread evenly over the batch and ranked by u among all the sampled clients. Single
// calls' spread (thread_view) widens each client's response by a normal of its own sd; the
// p99 is computed only when asked (`with_p99`), since the search for the rate needs means.
response respond_closed(const thread_view& v, const thread_solution& t, const std::vector<double>& away,
                        bool with_p99) {
  response r;
  if (t.saturated) return r;
  const double s = v.per_event_s();
  const double cycle = t.call_s + t.busy_batch * s;
  const double asleep = std::clamp(t.asleep_time_fraction, 0.0, 1.0);
  const std::size_t count = away.size();
  const double batch = std::max(1.0, t.busy_batch);
  std::vector<std::pair<double, std::size_t>> offsets(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double place = s * (1 + (static_cast<double>(i) + 0.5) / static_cast<double>(count) * (batch - 1));
    offsets[i] = {std::fmod(place + away[i], cycle), i};
  }
  std::sort(offsets.begin(), offsets.end());
  std::vector<double> busy(count);
  double sum = 0;
  for (std::size_t rank = 0; rank < count; ++rank) {
    const double place = s * (1 + (static_cast<double>(rank) + 0.5) / static_cast<double>(count) * (batch - 1));
    busy[rank] = cycle - offsets[rank].first + place;
    sum += busy[rank];
  }
  std::sort(busy.begin(), busy.end());
  r.mean = asleep * sleep_mean(v, t) + (1 - asleep) * sum / static_cast<double>(count);
  if (!with_p99) return r;
  const double calls_sd = window_call_sd(v, t, batch);
  const auto busy_below = [&](double y) {
    if (calls_sd <= 0)
      return static_cast<double>(std::upper_bound(busy.begin(), busy.end(), y) - busy.begin()) /
             static_cast<double>(count);
    double sum_cdf = 0;
    for (std::size_t i = 0; i < count; i += 8) sum_cdf += normal_cdf(y, busy[i], calls_sd);  // every 8th: enough
    return sum_cdf / static_cast<double>((count + 7) / 8);
  };
  const auto below = [&](double y) {
    return asleep * normal_cdf(y, sleep_mean(v, t), sleep_sd(v, t)) + (1 - asleep) * busy_below(y);
  };
  r.p99 = quantile99(below, busy.back() + 4 * calls_sd + sleep_mean(v, t) + 4 * sleep_sd(v, t) + s);
  return r;
}

std::string not_covered(const server_config& c, const workload& w) {
  if (c.style == notification::signal_queue) return "rtsig's signal queue is not in the estimate";
  if (w.arrivals == arrival_kind::on_off) return "on/off bursts are not in the estimate";
  if (w.generator) return "a load generator is not in the estimate";
  if (c.threads > c.cpus) return "more threads than CPUs share CPUs, which the estimate does not model";
  if (c.threads > 1 && c.sharing == interest_sharing::shared)
    return "threads sharing one interest set race for its events, which the estimate does not model";
  if (c.max_events_per_call > 0) return "a --max-events limit is not in the estimate";
  return "";
}

}  // namespace

estimate_result estimate_server(const server_config& config, const workload& load, const cost_model& costs) {
  config.validate();
  load.validate();
  estimate_result out;
  out.not_covered = not_covered(config, load);
  if (!out.not_covered.empty()) return out;
  cost_cache cache(costs);
  cache.validate_constants();
  const double threads = config.threads;
  const double active = static_cast<double>(load.active) / threads;
  thread_view v;
  v.registered = std::max<std::int64_t>(1, std::llround(static_cast<double>(load.active + load.idle) / threads));
  v.position = config.active_pos;
  v.process_threads = config.process_threads();
  // On a machine wider than the costs' own every CPU cost is the width's multiple, as the
  // simulator charges it (server_model's run_burst and wake-ups).
  v.width = costs.width.time_factor(config.cpus);
  v.handle_s = v.width * (costs.handler_s + load.app_work.mean());
  v.rearm_s = v.width * cache.rearm_s(v.registered);
  v.costs = &cache;
  if (costs.variation) {
    using op = call_variation::operation;
    const double handler_s = v.width * costs.handler_s;
    v.handler_var_s2 = handler_s * handler_s * costs.variation->multiplier_variance(op::handler, costs.handler_s);
    v.call_var_rel = costs.variation->multiplier_variance(op::wait_call, v.call_s(1));
    v.wake_var_rel = {costs.variation->multiplier_variance(op::wakeup_same_cpu, costs.wakeup_same_cpu_s),
                      costs.variation->multiplier_variance(op::wakeup_cross_cpu, costs.wakeup_cross_cpu_s)};
  }
  const double keepalive =
      load.idle_activity ? static_cast<double>(load.idle) / threads / load.idle_activity->mean() : 0;
  const double network = load.network.mean();
  const std::vector<double> aways = load.arrivals == arrival_kind::closed ? away_samples(load) : std::vector<double>{};

  server_estimate e;
  double weight = 0;  // requests, over which the mean latency is averaged
  // Threads differ only in their wake-up: the one on the CPU that takes network interrupts
  // (thread t runs on CPU t) wakes at the same-CPU latency, the others across CPUs. Each kind
  // is solved once and counted as many times as it runs.
  const int on_irq_cpu = config.irq_cpu < config.threads ? 1 : 0;
  const std::pair<double, int> kinds[] = {{v.width * costs.wakeup_same_cpu_s, on_irq_cpu},
                                          {v.width * costs.wakeup_cross_cpu_s, config.threads - on_irq_cpu}};
  for (std::size_t kind = 0; kind < 2; ++kind) {
    const auto& [wake_s, count] = kinds[kind];
    if (count == 0) continue;
    v.wake_s = wake_s;
    v.wake_var_s2 = wake_s * wake_s * v.wake_var_rel[kind];
    const double n = count;
    double requests = 0;
    thread_solution sol;
    response resp;
    if (load.arrivals == arrival_kind::poisson) {
      requests = load.rate_per_s / threads;
      sol = solve_thread(v, requests + keepalive);
      resp = respond_open(v, sol, active);
    } else {
      // The rate at which the thread's closed clients come back given the response it gives.
      const double away = load.think.mean() + 2 * network;
      const auto at = [&](double lambda) {
        sol = solve_thread(v, lambda + keepalive);
        resp = respond_closed(v, sol, aways, false);
        return resp;
      };
      double lo = 0, hi = active / (away + v.per_event_s());
      for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (mid < active / (away + at(mid).mean) ? lo : hi) = mid;
      }
      requests = lo;
      sol = solve_thread(v, requests + keepalive);
      resp = respond_closed(v, sol, aways, true);
    }
    double calls = sol.saturated ? 0 : 1 / sol.cycle_s, call_s = sol.call_s, rescans = sol.asleep * sol.rescan_s;
    if (sol.saturated || !std::isfinite(resp.mean)) {
      // More requests than the loop can serve: every connection ready in every cycle, the
      // thread never asleep.
      e.saturated = true;
      call_s = v.call_s(std::llround(active));
      calls = 1 / (call_s + active * v.per_event_s());
      requests = std::min(requests, active * calls);
      rescans = 0;
    }
    e.throughput += n * requests;
    e.latency_mean_s += n * requests * (resp.mean + 2 * network);
    e.latency_p99_s = std::max(e.latency_p99_s, resp.p99 + 2 * network);
    weight += n * requests;
    e.calls_per_s += n * calls;
    e.cpu_utilisation += n * (sol.saturated ? 1 : sol.utilisation);
    const double events = requests + keepalive;
    e.cpu_share[static_cast<std::size_t>(cpu_use::wait_calls)] += n * calls * call_s;
    e.cpu_share[static_cast<std::size_t>(cpu_use::rescans)] += n * calls * rescans;
    e.cpu_share[static_cast<std::size_t>(cpu_use::rearms)] += n * events * v.rearm_s;
    e.cpu_share[static_cast<std::size_t>(cpu_use::handlers)] += n * events * v.handle_s;
  }
  if (weight > 0) e.latency_mean_s /= weight;
  if (e.saturated) e.latency_mean_s = e.latency_p99_s = infinity;
  e.events_per_call = e.calls_per_s > 0 ? (e.throughput + keepalive * threads) / e.calls_per_s : 0;
  e.cpu_utilisation /= config.cpus;
  for (double& share : e.cpu_share) share /= config.cpus;
  out.estimate = e;
  return out;
}

}  // namespace pollscale::sim
