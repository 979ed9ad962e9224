#include "calibrate/visit_plan.hpp"

#include <algorithm>
#include <map>
#include <random>

namespace pollscale::calibrate {
namespace {

/// A seed for one (round, part) of the order, mixed so that nearby inputs differ widely
/// (splitmix64's finaliser).
std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (a + 1) + 0xbf58476d1ce4e5b9ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Thirds of a round that a probe's visits rotate through (probe_order).
constexpr std::size_t strata = 3;

/// The groups of one probe's points (indices into `once`), in first-appearance order: the
/// points that name one set-up together, every other point alone.
std::vector<std::vector<std::size_t>> groups_of(const std::vector<planned_point>& once,
                                                const std::vector<std::size_t>& points) {
  std::map<std::string, std::size_t> slot;
  std::vector<std::vector<std::size_t>> groups;
  for (auto i : points) {
    const std::string name = setup_name(once[i]);
    if (name.empty()) {
      groups.push_back({i});
      continue;
    }
    auto [it, added] = slot.emplace(name, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// The probes of round r in thirds (strata): each probe keeps a seeded stratum s and runs in
// stratum (s - r) mod 3, moving one third earlier every round, in a new seeded order within
// its third. So between two visits of a probe lie at least about a third of the round's
// probes, never none: on the Intel host of 2026-12-02 a plain shuffle put the wake-up
// probe last in one round and first in the next, and both visits met one slow spell of
// its cross-CPU wake-ups (docs/calibrate.md).
std::vector<std::size_t> probe_order(std::size_t probes, std::uint64_t seed, std::uint64_t r) {
  std::vector<std::size_t> placing(probes);  // a round-independent seeded order: strata by rank
  for (std::size_t p = 0; p < probes; ++p) placing[p] = p;
  seeded_shuffle(placing, mix(seed, 0, ~0ull));
  std::vector<std::size_t> stratum(probes);
  for (std::size_t rank = 0; rank < probes; ++rank)
    stratum[placing[rank]] = (rank % strata + strata - r % strata) % strata;
  std::vector<std::size_t> order(probes);
  for (std::size_t p = 0; p < probes; ++p) order[p] = p;
  seeded_shuffle(order, mix(seed, r, 0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return stratum[a] < stratum[b]; });
  return order;
}

}  // namespace

std::string setup_name(const planned_point& p) { return p.probe->setup_of ? p.probe->setup_of(p.key) : std::string(); }

void seeded_shuffle(std::vector<std::size_t>& v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);  // bias < i / 2^64: none that matters
    std::swap(v[i - 1], v[j]);
  }
}

std::vector<std::size_t> round_order(const std::vector<planned_point>& once, std::uint64_t seed, int round) {
  const auto r = static_cast<std::uint64_t>(round);
  // Probes in first-appearance order, each with its points.
  std::vector<const probe_def*> probes;
  std::map<const probe_def*, std::vector<std::size_t>> by_probe;
  for (std::size_t i = 0; i < once.size(); ++i) {
    auto& pts = by_probe[once[i].probe];
    if (pts.empty()) probes.push_back(once[i].probe);
    pts.push_back(i);
  }
  const auto probe_rank = probe_order(probes.size(), seed, r);
  std::vector<std::size_t> order;
  order.reserve(once.size());
  for (std::size_t p : probe_rank) {
    auto groups = groups_of(once, by_probe[probes[p]]);
    std::vector<std::size_t> group_rank(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) group_rank[g] = g;
    seeded_shuffle(group_rank, mix(seed, r, 1 + p));
    for (std::size_t g : group_rank) {
      seeded_shuffle(groups[g], mix(seed, r, 1 + probes.size() + groups[g].front()));
      order.insert(order.end(), groups[g].begin(), groups[g].end());
    }
  }
  return order;
}

}  // namespace pollscale::calibrate
