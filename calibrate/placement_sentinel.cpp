#include "calibrate/placement_sentinel.hpp"

#include <cstdio>
#include <vector>

#include "datasets/pinning.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {

namespace {

// The cache_line probe's point between the first two CPUs of the mask, in that order.
bool is_the_first_pair(const datasets::key& k, const selection& sel) {
  const auto p = datasets::pinning::parse(k.pinning);
  return p.is_pair() && p.cpus()[0] == sel.cpus[0] && p.cpus()[1] == sel.cpus[1];
}

}  // namespace

placement_sentinel::placement_sentinel(const selection& sel)
    : probe_sentinel(
          sel, {datasets::scenario::cache_line, is_the_first_pair, batches, round_trips_per_batch, min_interval_s}) {}

std::string placement_sentinel::description() {
  return "round trip of one cache line between the first two CPUs (cache_line probe); median of " +
         std::to_string(batches) + " batches of " + std::to_string(round_trips_per_batch) +
         " round trips, ns per round trip";
}

datasets::placement_facts placement_of(const std::vector<datasets::sentinel_reading>& series,
                                       const std::string& description) {
  datasets::placement_facts f;
  f.sentinel = description;
  f.readings = series.size();
  if (series.empty()) return f;
  std::vector<double> v;
  for (const auto& r : series) v.push_back(r.ns_per_call);
  f.median_ns = datasets::median(v);
  const auto split_at = datasets::placement_split_ns(series);
  if (!split_at) return f;
  const double split = *split_at;
  std::vector<double> near, far;
  for (double x : v) (x < split ? near : far).push_back(x);
  f.moved = true;
  f.near_ns = datasets::median(near);
  f.far_ns = datasets::median(far);
  f.near_share = static_cast<double>(near.size()) / static_cast<double>(v.size());
  for (std::size_t i = 1; i < v.size(); ++i) f.moves += (v[i] < split) != (v[i - 1] < split);
  return f;
}

std::string placement_warning(const datasets::placement_facts& p) {
  if (!p.moved || !p.near_ns || !p.far_ns || !p.near_share) return "";
  char text[400];
  std::snprintf(text, sizeof text,
                "the host moved the first two CPUs relative to each other during the run: a cache line crossed "
                "between them in %.0f ns for %.0f%% of the placement sentinel's readings and in %.0f ns for the "
                "rest (%zu moves); the points whose threads run on two CPUs met both placements",
                *p.near_ns, 100 * *p.near_share, *p.far_ns, p.moves);
  return text;
}

}  // namespace pollscale::calibrate
