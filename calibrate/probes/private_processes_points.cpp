// The grid of private_processes points (private_processes.cpp holds the essay): private_sets'
// own grid (private_sets_points.cpp), its keys renamed, with processes in place of threads — C = 1
// and C = min(CPUs, 4 quick / 16 full), T up to 2 x Cmax (quick) or 4 x Cmax (full), process
// i on the (i mod C)-th CPU of the series — for epoll/lt in the quick profile (on two CPUs
// seven points, about 2 s) and poll, epoll/lt and io_uring/oneshot in the full one, each
// where --mechanisms selects it. --n replaces the T grid (values from 1 to private_processes_driver::max_processes).

#include "calibrate/probes/private_processes.hpp"
#include "calibrate/probes/private_sets.hpp"
#include "calibrate/probes/probes.hpp"

namespace pollscale::calibrate::probes {

std::vector<datasets::key> private_processes_points(const selection& sel, std::span<const flavour> mechs) {
  static_assert(private_processes_driver::max_processes == private_sets_driver::max_threads);
  auto keys = private_sets_points(sel, mechs);
  for (auto& k : keys) k.scenario = datasets::name(datasets::scenario::private_processes);
  return keys;
}

}  // namespace pollscale::calibrate::probes
