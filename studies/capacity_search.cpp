#include "studies/capacity_search.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/stop.hpp"

namespace pollscale::studies {

std::vector<std::string> capacity_targets::missed(const sim::server_estimate& e) const {
  std::vector<std::string> out;
  if (p99_s && (e.saturated || !(e.latency_p99_s <= *p99_s))) out.emplace_back("max_p99_s");
  if (mean_s && (e.saturated || !(e.latency_mean_s <= *mean_s))) out.emplace_back("max_mean_latency_s");
  if (cpu && (e.saturated || !(e.cpu_utilisation <= *cpu))) out.emplace_back("max_cpu_utilisation");
  return out;
}

std::vector<std::string> capacity_targets::missed(const sim::experiment_result& r) const {
  std::vector<std::string> out;
  if (p99_s && !(r.latency_p99_s.ci95_hi <= *p99_s)) out.emplace_back("max_p99_s");
  if (mean_s && !(r.latency_mean_s.ci95_hi <= *mean_s)) out.emplace_back("max_mean_latency_s");
  if (cpu && !(r.cpu_utilisation.ci95_hi <= *cpu)) out.emplace_back("max_cpu_utilisation");
  return out;
}

const capacity_evaluation* capacity_search::first_miss() const {
  const capacity_evaluation* out = nullptr;
  for (const capacity_evaluation& e : evaluations)
    if (!e.met && (!out || e.value < out->value)) out = &e;
  return out;
}

capacity_search search_capacity(const capacity_experiment& experiment, const capacity_search_range& range,
                                const capacity_targets& targets, const capacity_progress& progress) {
  capacity_search out;
  auto evaluate = [&](double v) {
    const sim::experiment_result r = experiment(v);  // sim::stopped: none complete
    if (r.interrupted) throw sim::stopped();         // a few replications cannot judge the targets
    out.evaluations.push_back({v, r, targets.met(r)});
    if (progress) progress(out.evaluations.back());
    return out.evaluations.back().met;
  };
  double lo = range.lo, hi = range.hi;
  try {
    if (!evaluate(lo)) return out;
    out.meets = lo;
    if (evaluate(hi)) {
      out.capacity = hi;
      out.at_hi = true;
      return out;
    }
    out.misses = hi;
    // Invariant: lo meets the targets, hi does not.
    while (hi - lo > std::max(range.integer ? 1.0 : 0.0, range.tolerance * lo)) {
      const double mid = range.integer ? std::floor((lo + hi) / 2) : (lo + hi) / 2;
      (evaluate(mid) ? lo : hi) = mid;
      out.meets = lo;
      out.misses = hi;
    }
  } catch (const sim::stopped&) {
    out.interrupted = true;
    return out;
  }
  out.capacity = lo;
  return out;
}

resource resource_at(const capacity_targets& targets, const capacity_evaluation& e) {
  const auto missed = targets.missed(e.result);
  const bool cpu = std::find(missed.begin(), missed.end(), "max_cpu_utilisation") != missed.end();
  return binding_resource(e.result, cpu);
}

capacity_recommendation recommend(std::span<const capacity_choice> choices, double tolerance) {
  capacity_recommendation r;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const auto& c = choices[i];
    if (!c.capacity) continue;
    if (!r.best || *c.capacity > *choices[*r.best].capacity) {
      r.next = r.best;
      r.best = i;
    } else if (!r.next || *c.capacity > *choices[*r.next].capacity) {
      r.next = i;
    }
  }
  if (r.best && r.next && *choices[*r.next].capacity > 0) {
    r.margin = *choices[*r.best].capacity / *choices[*r.next].capacity;
    r.within_tolerance = r.margin - 1 <= tolerance;
  }
  return r;
}

}  // namespace pollscale::studies
