#include "model/one_in_flight.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "datasets/vocabulary.hpp"
#include "model/scaling.hpp"

namespace pollscale::model {
namespace {

// accept_herd's client (the measuring thread) connects, then sleeps until a worker has
// accepted: one more wake-up and switch per connection than the workers' own count. The
// shared_epoll ring's measuring thread sleeps through a whole batch: none per pass.
double client_switches(const datasets::key& k) { return k.scenario == datasets::scenario::accept_herd ? 1 : 0; }

// The wakeups row measured at the same point as a one-CPU throughput row.
bool same_point(const observation& wakeups, const observation& rate) {
  datasets::key a = wakeups.k, b = rate.k;
  a.metric = b.metric;
  a.unit = b.unit;
  return a == b && wakeups.platform == rate.platform && wakeups.kernel == rate.kernel && wakeups.source == rate.source;
}

// Half the round trip (seconds) between two threads woken through a pipe, no mechanism
// between them, on one CPU (pinning 0+0: one wake-up and switch) or across the first two
// (0+1: one cross-CPU wake-up).
std::optional<double> half_round_trip_s(const observation_set& data, const std::string& pinning) {
  const observation* best = nullptr;
  for (const auto& o : data.rows) {
    const auto& k = o.k;
    if (k.scenario != datasets::scenario::wakeup || !k.mechanism.empty() || k.fd_kind != datasets::fd_kind::pipe ||
        k.pinning != pinning || k.metric != datasets::metric::round_trip || !std::isfinite(o.value) || !(o.value > 0))
      continue;
    if (!best || k.n_fds.value_or(0) < best->k.n_fds.value_or(0)) best = &o;
  }
  if (!best) return std::nullopt;
  try {
    return best->value * datasets::to_si_factor(best->k.unit) / 2;
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // not a time
  }
}

}  // namespace

std::optional<double> same_cpu_hand_off_s(const observation_set& data) { return half_round_trip_s(data, "0+0"); }

std::optional<double> wakeups_at(const observation_set& data, const observation& rate) {
  for (const auto& o : data.rows)
    if (o.k.metric == datasets::metric::wakeups && std::isfinite(o.value) && o.value >= 0 && same_point(o, rate))
      return o.value;
  return std::nullopt;
}

double chain_fit::switches_at(double n) const {
  if (switches.empty()) return 0;
  if (n <= switches.front().first) return switches.front().second;
  const auto& last = switches.back();
  if (n >= last.first) return std::max(last.second, last.second * n / last.first);
  const auto hi = std::upper_bound(switches.begin(), switches.end(), n,
                                   [](double v, const std::pair<double, double>& p) { return v < p.first; });
  const auto lo = hi - 1;
  const double f = (n - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double chain_fit::floor(double x1, double n) const {
  if (!std::isfinite(x1) || !(x1 > 0) || !(cross_s > 0)) return 0;
  return 1 / (1 / x1 + std::max(1.0, switches_at(n)) * cross_s);
}

double chain_fit::ceiling(double x1, double n) const {
  if (!std::isfinite(x1) || !(x1 > 0)) return std::numeric_limits<double>::infinity();
  const double left = 1 / x1 - switches_at(n) * switch_s;  // seconds per operation no CPU count removes
  return left > 0 ? 1 / left : std::numeric_limits<double>::infinity();
}

bool chain_fit::hand_offs_seen(double n) const {
  return hand_offs > 0 && cross_s > 0 && switches_at(n) >= hand_offs / 2;
}

double chain_fit::expected(double x1, double n, std::int64_t cpus) const {
  if (!hand_offs_seen(n) || cpus < 2 || !std::isfinite(x1) || !(x1 > 0)) return ceiling(x1, n);
  const double crossing = static_cast<double>(cpus - 1) / static_cast<double>(cpus);  // share on another CPU
  const double h = std::min(switches_at(n), hand_offs);
  return 1 / (1 / x1 + h * crossing * (cross_s - switch_s));
}

double chain_hand_offs(const datasets::key& k) {
  if (!one_in_flight(k)) return 0;
  return k.scenario == datasets::scenario::accept_herd ? 2 : 1;
}

bool one_in_flight(const datasets::key& k) {
  if (k.scenario == datasets::scenario::accept_herd) return true;
  return k.scenario == datasets::scenario::shared_epoll && k.n_active == 1;
}

bool waiters_may_spin(const datasets::key& k) {
  return one_in_flight(k) && k.scenario == datasets::scenario::shared_epoll &&
         (k.variant == datasets::variant::lt || k.variant == datasets::variant::exclusive);
}

std::optional<chain_fit> fit_chain(const observation_set& data, const datasets::key& experiment,
                                   std::span<const observation* const> one_cpu_rows, std::string& note) {
  if (!one_in_flight(experiment)) {
    note = "more than one operation in flight";
    return std::nullopt;
  }
  if (experiment.unit != "1/s") {
    note = "a rate in " + experiment.unit + ", not operations per second";
    return std::nullopt;
  }
  const auto s = half_round_trip_s(data, "0+0");
  if (!s) {
    note = "no wake-up measured between two threads on one CPU (scenario wakeup over a pipe, pinning 0+0)";
    return std::nullopt;
  }
  std::map<double, double> by_n;
  for (const auto* r : one_cpu_rows) {
    const auto n = scaling_axis(*r);
    if (!n) continue;
    if (const auto w = wakeups_at(data, *r)) by_n[*n] = *w + client_switches(experiment);
  }
  if (by_n.empty()) {
    note = "no wakeups counted on one CPU";
    return std::nullopt;
  }
  chain_fit f;
  f.switch_s = *s;
  f.cross_s = half_round_trip_s(data, "0+1").value_or(NAN);
  f.switches.assign(by_n.begin(), by_n.end());
  f.hand_offs = chain_hand_offs(experiment);
  return f;
}

}  // namespace pollscale::model
