#include "studies/capacity_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "datasets/statistics.hpp"
#include "sim/core/random.hpp"

namespace pollscale::studies {

sim::experiment_result as_result(const sim::server_estimate& e) {
  sim::experiment_result r;
  r.throughput = {e.throughput, e.throughput, e.throughput};
  r.latency_mean_s = {e.latency_mean_s, e.latency_mean_s, e.latency_mean_s};
  r.latency_p99_s = {e.latency_p99_s, e.latency_p99_s, e.latency_p99_s};
  r.cpu_utilisation = {e.cpu_utilisation, e.cpu_utilisation, e.cpu_utilisation};
  r.cpu_share = e.cpu_share;
  return r;
}

namespace {

// One bisection on one cost model: the capacity (empty when lo misses), whether it is hi,
// and the estimates at the bracket's ends.
struct one_search {
  std::optional<double> capacity;
  bool at_hi = false;
  std::optional<double> missed_at;
  sim::server_estimate at_capacity, at_miss;
  std::string not_covered;
};

one_search search(const capacity_setup& setup, const sim::cost_model& costs, const capacity_search_range& range,
                  const capacity_targets& targets) {
  one_search out;
  const auto at = [&](double v) {
    const auto [config, load] = setup(v);
    sim::estimate_result r = sim::estimate_server(config, load, costs);
    if (!r.estimate) out.not_covered = r.not_covered;
    return r.estimate;
  };
  double lo = range.lo, hi = range.hi;
  auto low = at(lo);
  if (!low) return out;
  if (!targets.met(*low)) {
    out.at_capacity = *low;
    out.at_miss = *low;
    out.missed_at = lo;
    return out;
  }
  auto high = at(hi);
  if (!high) return out;
  if (targets.met(*high)) {
    out.capacity = hi;
    out.at_hi = true;
    out.at_capacity = *high;
    return out;
  }
  // Invariant: lo meets the targets, hi does not.
  while (hi - lo > std::max(range.integer ? 1.0 : 0.0, range.tolerance * lo)) {
    const double mid = range.integer ? std::floor((lo + hi) / 2) : (lo + hi) / 2;
    auto e = at(mid);
    if (!e) return out;
    if (targets.met(*e)) {
      lo = mid;
      low = e;
    } else {
      hi = mid;
      high = e;
    }
  }
  out.capacity = lo;
  out.at_capacity = *low;
  out.at_miss = *high;
  out.missed_at = hi;
  return out;
}

}  // namespace

capacity_estimate estimate_capacity(const capacity_setup& setup, const sim::cost_model& predicted,
                                    const sim::cost_draw& draw, std::uint64_t seed, const capacity_search_range& range,
                                    const capacity_targets& targets) {
  capacity_estimate out;
  const one_search main = search(setup, predicted, range, targets);
  if (!main.not_covered.empty()) {
    out.not_covered = main.not_covered;
    return out;
  }
  out.capacity = main.capacity;
  out.at_hi = main.at_hi;
  out.figures = main.capacity ? main.at_capacity : main.at_miss;
  if (main.missed_at) {
    out.missed_at = main.missed_at;
    out.past = main.at_miss;
    const bool cpu_missed = targets.cpu && !(main.at_miss.cpu_utilisation <= *targets.cpu);
    out.ran_out = binding_resource(as_result(main.at_miss), cpu_missed);
  }
  if (!draw) return out;
  std::vector<double> answers;
  for (std::size_t i = 0; i < capacity_estimate_draws; ++i) {
    const one_search s = search(setup, draw(sim::derive_seed(seed, i)), range, targets);
    if (!s.not_covered.empty()) continue;
    answers.push_back(s.capacity.value_or(range.lo));
  }
  if (answers.size() < 2) return out;
  out.draws = answers.size();
  out.ci95_lo = datasets::quantile(answers, 0.025);
  out.ci95_hi = datasets::quantile(answers, 0.975);
  return out;
}

}  // namespace pollscale::studies
