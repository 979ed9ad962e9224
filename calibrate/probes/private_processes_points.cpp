// The grid of private_processes points (private_processes.cpp holds the essay): private_sets'
// grid (thread_series.hpp's round_robin_grid) with processes in place of threads — C = 1
// and C = min(CPUs, 4 quick / 16 full), T up to 2 x Cmax (quick) or 4 x Cmax (full), process
// i on the (i mod C)-th CPU of the series — for epoll/lt in the quick profile (on two CPUs
// seven points, about 2 s) and poll, epoll/lt and io_uring/oneshot in the full one, each
// where --mechanisms selects it. --n replaces the T grid (values from 1 to private_processes_driver::max_processes).

#include "calibrate/probes/private_processes.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"

namespace pollscale::calibrate::probes {
namespace {

/// The flavours this probe measures, in --mechanisms order: private_sets' (poll, epoll/lt,
/// io_uring/oneshot in the full profile; epoll/lt in the quick one).
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

std::vector<datasets::key> private_processes_points(const selection& sel, std::span<const flavour> mechs) {
  std::vector<datasets::key> bases;
  for (const auto& f : measured(mechs, sel.profile == profile_kind::full)) {
    bases.push_back(
        base_key(datasets::scenario::private_processes, f, fd_kind::pipe, datasets::metric::throughput, "1/s"));
    bases.back().blocking = 0;
  }
  return round_robin_grid(sel, bases, private_processes_driver::max_processes);
}

}  // namespace pollscale::calibrate::probes
