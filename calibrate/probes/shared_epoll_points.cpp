// The grid of shared_epoll points (shared_epoll.cpp holds the essay): the CPU-scaling series
// of thread_series.hpp — C = 1 (every thread on the first CPU of the mask) and C = Cmax =
// min(CPUs, 4 quick / 16 full), with the powers of two between them in the full profile —
// at T = 1, 2, 3, 4, 6, ... threads up to 2 x Cmax in the quick profile and 4 x Cmax in the
// full one; thread i on the (i mod C)-th CPU of the series. The full profile measures the
// variants lt and exclusive, the quick one lt alone (on two CPUs T = 1-4, seven points,
// about 2 s), each where --mechanisms selects epoll/lt; every point with K = T tokens and,
// from T = 2, with one token (n_active 1), and each of those twice: its tokens per second
// (metric throughput) and its threads' wake-ups per token (metric wakeups).
// cpus = min(C, T), so T = 1 of every series is one point, listed once.
// --n replaces the T grid (values from 1 to shared_epoll_driver::max_threads).

#include <algorithm>
#include <utility>

#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/shared_epoll.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

bool selects(std::span<const flavour> mechs, datasets::variant v) {
  return std::any_of(mechs.begin(), mechs.end(),
                     [&](const flavour& m) { return m.mech == mechanism::epoll && m.variant == datasets::name(v); });
}

/// The variants to measure: where --mechanisms selects epoll/lt, lt (quick) or lt and
/// exclusive (full); in the full profile also oneshot where it selects epoll/oneshot.
std::vector<datasets::variant> measured(std::span<const flavour> mechs, bool full) {
  std::vector<datasets::variant> out;
  if (selects(mechs, datasets::variant::lt)) out.push_back(datasets::variant::lt);
  if (!full) return out;
  if (!out.empty()) out.push_back(datasets::variant::exclusive);
  if (selects(mechs, datasets::variant::oneshot)) out.push_back(datasets::variant::oneshot);
  return out;
}

}  // namespace

std::vector<datasets::key> shared_epoll_points(const selection& sel, std::span<const flavour> mechs) {
  std::vector<datasets::key> bases;
  for (auto v : measured(mechs, sel.profile == profile_kind::full))
    for (auto [m, unit] : {std::pair{datasets::metric::throughput, "1/s"}, std::pair{datasets::metric::wakeups, "1"}}) {
      bases.push_back(base_key(datasets::scenario::shared_epoll,
                               flavour{mechanism::epoll, std::string(datasets::name(v))}, fd_kind::pipe, m, unit));
      bases.back().blocking = 1;
    }
  // Each series twice: K = T tokens (the grid's n_active) and, from T = 2, K = 1.
  auto points = round_robin_grid(sel, bases, shared_epoll_driver::max_threads);
  const std::size_t one_per_thread = points.size();
  for (std::size_t i = 0; i < one_per_thread; ++i)
    if (points[i].n_fds.value_or(0) >= 2) {
      points.push_back(points[i]);
      points.back().n_active = 1;
    }
  return points;
}

}  // namespace pollscale::calibrate::probes
