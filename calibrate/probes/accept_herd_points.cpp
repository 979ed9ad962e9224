// The grid of accept_herd points (accept_herd.cpp holds the essay): the CPU-scaling series
// of thread_series.hpp — C = 1 (every worker on the first CPU of the mask) and C = Cmax =
// min(CPUs, 4 quick / 16 full), with the powers of two between them in the full profile —
// at T = 1, 2, 3, 4, 6, ... workers up to 2 x Cmax in the quick profile and 4 x Cmax in the
// full one; worker i on the (i mod C)-th CPU of the series. The quick profile measures poll
// (the herd) and epoll/exclusive (its cure), the full one epoll/lt (one shared instance) as
// well, each where --mechanisms selects poll or epoll/lt; every point twice, its connections
// per second (metric throughput) and its workers' wake-ups per connection (metric wakeups).
// One connection in flight: n_active = 1. cpus = min(C, T), so T = 1 of every series is one
// point, listed once. --n replaces the T grid (values from 1 to accept_herd_driver::max_threads).

#include <algorithm>
#include <utility>

#include "calibrate/probes/accept_herd.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"

namespace pollscale::calibrate::probes {
namespace {

bool selected(std::span<const flavour> mechs, mechanism m, std::string_view variant) {
  return std::any_of(mechs.begin(), mechs.end(), [&](const flavour& f) { return f.mech == m && f.variant == variant; });
}

/// The waits to measure: poll where --mechanisms selects poll; epoll/exclusive (full: and
/// epoll/lt) where it selects epoll/lt.
std::vector<flavour> measured(std::span<const flavour> mechs, bool full) {
  std::vector<flavour> out;
  if (selected(mechs, mechanism::poll, "")) out.push_back({mechanism::poll, ""});
  if (selected(mechs, mechanism::epoll, datasets::name(datasets::variant::lt))) {
    if (full) out.push_back({mechanism::epoll, std::string(datasets::name(datasets::variant::lt))});
    out.push_back({mechanism::epoll, std::string(datasets::name(datasets::variant::exclusive))});
  }
  return out;
}

}  // namespace

std::vector<datasets::key> accept_herd_points(const selection& sel, std::span<const flavour> mechs) {
  std::vector<datasets::key> bases;
  for (const auto& f : measured(mechs, sel.profile == profile_kind::full))
    for (auto [m, unit] : {std::pair{datasets::metric::throughput, "1/s"}, std::pair{datasets::metric::wakeups, "1"}}) {
      bases.push_back(base_key(datasets::scenario::accept_herd, f, fd_kind::tcp, m, unit));
      bases.back().blocking = 1;
    }
  auto points = round_robin_grid(sel, bases, accept_herd_driver::max_threads);
  for (auto& k : points) k.n_active = 1;  // one connection in flight, whatever T
  return points;
}

}  // namespace pollscale::calibrate::probes
