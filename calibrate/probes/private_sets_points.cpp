// The grid of private_sets points (private_sets.cpp holds the essay): the CPU-scaling
// series of thread_series.hpp — C = 1 (every thread on the first CPU of the mask) and C =
// Cmax = min(CPUs, 4 quick / 16 full), with the powers of two between them in the full
// profile — at T = 1, 2, 3, 4, 6, ... threads up to 2 x Cmax in the quick profile and 4 x Cmax
// in the full one; thread i on the (i mod C)-th CPU of the series. The full profile measures
// poll, epoll/lt and io_uring/oneshot, the quick one epoll/lt alone (the per-thread loop of a
// multi-threaded server; on two CPUs T = 1-4, seven points, about 2 s: the quick profile's
// three minutes have no room for three mechanisms' 21), each where --mechanisms selects it.
// cpus = min(C, T), so T = 1 of every series is one point, listed once.
// --n replaces the T grid (values from 1 to private_sets_driver::max_threads).

#include <algorithm>

#include "calibrate/probes/private_sets.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

/// The flavours this probe measures, in --mechanisms order: poll, epoll/lt, io_uring/oneshot
/// (full), epoll/lt (quick).
std::vector<flavour> measured(std::span<const flavour> mechs, bool full) {
  const auto lt = std::string(datasets::name(datasets::variant::lt));
  const auto oneshot = std::string(datasets::name(datasets::variant::oneshot));
  std::vector<flavour> out;
  for (const auto& m : mechs)
    if ((m.mech == mechanism::epoll && m.variant == lt) ||
        (full && (m.mech == mechanism::poll || (m.mech == mechanism::io_uring && m.variant == oneshot))))
      out.push_back(m);
  return out;
}

}  // namespace

std::vector<datasets::key> private_sets_points(const selection& sel, std::span<const flavour> mechs) {
  std::vector<datasets::key> bases;
  for (const auto& f : measured(mechs, sel.profile == profile_kind::full)) {
    bases.push_back(base_key(datasets::scenario::private_sets, f, fd_kind::pipe, datasets::metric::throughput, "1/s"));
    bases.back().blocking = 0;
  }
  return round_robin_grid(sel, bases, private_sets_driver::max_threads);
}

}  // namespace pollscale::calibrate::probes
