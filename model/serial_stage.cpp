#include "model/serial_stage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <boost/math/tools/minima.hpp>

#include "datasets/vocabulary.hpp"
#include "model/linear_fit.hpp"
#include "model/model_set.hpp"

namespace pollscale::model {
namespace {

constexpr int scan_steps = 400;  // of the hold's range, before Brent refines the best step

std::int64_t whole_threads(double t) {
  if (!std::isfinite(t) || t < 1) throw std::invalid_argument("serial stage: T must be >= 1, got " + std::to_string(t));
  return std::llround(t);
}

// The modelled throughput of a fitted point at hold s: the rest of its demand runs in parallel.
double modelled(const serial_stage_point& q, double s, std::int64_t cpus) {
  return serial_stage_throughput(std::max(q.demand - s, 0.0), s, whole_threads(q.threads), cpus);
}

double squared_log_error(std::span<const serial_stage_point> points, double s, std::int64_t cpus) {
  double sum = 0;
  for (const auto& q : points) {
    const double r = std::log(modelled(q, s, cpus) / q.throughput);
    sum += r * r;
  }
  return sum;
}

// d log X / d s at s, by central differences (forward at the range's lower end).
template <class Throughput>
double log_slope(Throughput x, double s, double scale) {
  const double h = std::max(1e-4 * s, 1e-6 * scale);
  const double lo = std::max(0.0, s - h);
  return (std::log(x(s + h)) - std::log(x(lo))) / (s + h - lo);
}

}  // namespace

std::string serial_structure(const datasets::key& k) {
  if (k.scenario == datasets::scenario::producers) return "the one consumer thread, which drains every event";
  if (k.scenario == datasets::scenario::accept_herd)
    return "the one listening socket, whose accept queue every connection leaves";
  if (k.scenario == datasets::scenario::shared_epoll &&
      (k.variant == datasets::variant::lt || k.variant == datasets::variant::oneshot))
    return "the one epoll instance every thread waits on (its ready list and wait queue)";
  return "";
}

std::string hand_off_structure(const datasets::key& k) {
  if (k.scenario == datasets::scenario::shared_epoll && k.variant == datasets::variant::exclusive)
    return "the ring's pipes, each watched by every thread's EPOLLEXCLUSIVE instance: a pass wakes a waiter of "
           "another thread";
  return "";
}

double serial_stage_throughput(double p, double s, std::int64_t threads, std::int64_t cpus) {
  if (!(p >= 0) || !(s >= 0) || !std::isfinite(p) || !std::isfinite(s) || !(p + s > 0))
    throw std::invalid_argument("serial stage: the parallel and serial demands must be finite, >= 0 and not both 0");
  if (threads < 1 || cpus < 1) throw std::invalid_argument("serial stage: T and C must be >= 1");
  // at_cpus[j]: probability that j threads are at the CPU station, for the population before.
  std::vector<double> at_cpus(static_cast<std::size_t>(threads) + 1, 0.0), next(at_cpus.size());
  at_cpus[0] = 1;
  double queued = 0, x = 0;  // mean threads at the serial stage; throughput
  const auto population = static_cast<std::size_t>(threads), servers = static_cast<std::size_t>(cpus);
  auto served = [&](std::size_t j) { return static_cast<double>(std::min(j, servers)); };
  for (std::size_t n = 1; n <= population; ++n) {
    double r_cpu = 0;  // residence at the CPUs: j / μ(j) with μ(j) = min(j, C) / p
    for (std::size_t j = 1; j <= n; ++j) r_cpu += static_cast<double>(j) * p / served(j) * at_cpus[j - 1];
    const double r_serial = s * (1 + queued);
    x = static_cast<double>(n) / (r_cpu + r_serial);
    queued = x * r_serial;
    double busy = 0;
    for (std::size_t j = n; j >= 1; --j) {
      next[j] = p / served(j) * x * at_cpus[j - 1];
      busy += next[j];
    }
    next[0] = std::max(0.0, 1 - busy);  // clamped: the subtraction loses digits when the CPUs saturate
    at_cpus.swap(next);
  }
  return std::min(x, static_cast<double>(cpus) / (p + s));
}

serial_stage_fit fit_serial_stage(std::span<const serial_stage_point> points, std::int64_t cpus) {
  if (cpus < 2) throw std::invalid_argument("serial stage: a hold time needs a series of at least 2 CPUs");
  if (points.empty()) throw std::invalid_argument("serial stage: no points to fit");
  double slowest = 0;
  serial_stage_fit f;
  for (const auto& q : points) {
    whole_threads(q.threads);
    if (!(q.demand > 0) || !(q.throughput > 0) || !std::isfinite(q.demand) || !std::isfinite(q.throughput))
      throw std::invalid_argument("serial stage: a demand and a throughput must be finite and > 0");
    slowest = std::max(slowest, 1 / q.throughput);
    f.t_max = std::max(f.t_max, q.threads);
  }
  const double range = 1.5 * slowest;  // a hold above 1/X of every point fits none of them
  auto sse = [&](double s) { return squared_log_error(points, s, cpus); };
  int best = 0;
  double best_sse = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= scan_steps; ++i)
    if (const double e = sse(range * i / scan_steps); e < best_sse) best_sse = e, best = i;
  // Brent on s / range: its absolute tolerance is meant for values of order 1, not 1e-6 s.
  const auto refined = boost::math::tools::brent_find_minima(
      [&](double u) { return sse(u * range); }, static_cast<double>(std::max(0, best - 1)) / scan_steps,
      static_cast<double>(std::min(scan_steps, best + 1)) / scan_steps, 40);
  f.hold = range * (refined.second < best_sse ? refined.first : static_cast<double>(best) / scan_steps);
  f.cpus = cpus;
  f.points = static_cast<int>(points.size());
  f.df = f.points - 1;
  f.residual_sd = f.df > 0 ? std::sqrt(sse(f.hold) / f.df) : not_available;
  double information = 0;  // Σ (d log X_i / d s)²
  for (const auto& q : points) {
    const double d = log_slope([&](double s) { return modelled(q, s, cpus); }, f.hold, range);
    information += d * d;
  }
  f.hold_sd = f.df > 0 && information > 0 ? f.residual_sd / std::sqrt(information) : not_available;
  // A standard error wider than every hold the data could show (the stage binds nowhere in
  // the series: the fit is as good with any hold up to the slowest operation) identifies
  // nothing; a number such as "0 ± 0.58 s" would read as a measurement.
  if (f.hold_sd > range) f.hold_sd = not_available;
  return f;
}

bool identified(const serial_stage_fit& fit) { return fit.df > 0 && std::isfinite(fit.hold_sd); }

scaling_prediction predict_serial_stage(const serial_stage_fit& fit, double demand, double threads, std::int64_t cpus) {
  if (cpus < 2) throw std::invalid_argument("serial stage: one CPU hands nothing between CPUs");
  if (!(demand > 0) || !std::isfinite(demand)) throw std::invalid_argument("serial stage: the demand must be > 0");
  const std::int64_t t = whole_threads(threads);
  const double p = std::max(demand - fit.hold, 0.0);
  auto x = [&](double s) { return serial_stage_throughput(p, s, t, cpus); };
  // The share of hand-offs that cross CPUs, relative to the fitted width's: ≤ 2 from C0 = 2,
  // below 1 on a narrower machine than the fitted one (where the interval widens upwards).
  const double crossing = (1 - 1.0 / static_cast<double>(cpus)) / (1 - 1.0 / static_cast<double>(fit.cpus));
  scaling_prediction out;
  out.value = x(fit.hold);
  out.extrapolation = std::max(1.0, threads / fit.t_max);
  if (!(fit.df > 0) || !std::isfinite(fit.residual_sd)) {
    out.lo = out.hi = not_available;
    out.no_interval =
        "no interval: the hold time fitted on " + std::to_string(fit.points) + " point(s) exactly (df = 0)";
    return out;
  }
  if (!identified(fit)) {
    out.lo = out.hi = not_available;
    out.no_interval =
        "no interval: the series do not identify the hold time (any hold up to the slowest operation "
        "fits them as well)";
    return out;
  }
  const double slope = log_slope(x, fit.hold, std::max(demand, fit.hold));
  const double hold_var = slope * slope * fit.hold_sd * fit.hold_sd;
  const double half = t975(fit.df) * std::sqrt(hold_var + fit.residual_sd * fit.residual_sd);
  const double crossed = x(fit.hold * crossing);
  out.lo = std::min(out.value, crossed) * std::exp(-half);
  out.hi = std::max(out.value, crossed) * std::exp(half);
  out.has_interval = true;
  return out;
}

}  // namespace pollscale::model
