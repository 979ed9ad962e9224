// The grid of shared_epoll points (shared_epoll.cpp holds the essay): the CPU-scaling series
// of thread_series.hpp — C = 1 (every thread on the first CPU of the mask) and C = Cmax =
// min(CPUs, 4 quick / 16 full), with the powers of two between them in the full profile —
// at T = 1, 2, 3, 4, 6, ... threads up to 2 x Cmax in the quick profile and 4 x Cmax in the
// full one; thread i on the (i mod C)-th CPU of the series. The full profile measures the
// variants lt and exclusive, the quick one lt alone (on two CPUs T = 1-4, seven points,
// about 2 s), each where --mechanisms selects epoll/lt.
// cpus = min(C, T), so T = 1 of every series is one point, listed once.
// --n replaces the T grid (values from 1 to shared_epoll_driver::max_threads).

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/shared_epoll.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::int64_t quick_max_cpus = 4, full_max_cpus = 16;
constexpr std::int64_t quick_threads_per_cpu = 2, full_threads_per_cpu = 4;

/// The variants to measure where --mechanisms selects epoll/lt: lt (quick), lt and
/// exclusive (full).
std::vector<datasets::variant> measured(std::span<const flavour> mechs, bool full) {
  const bool lt = std::any_of(mechs.begin(), mechs.end(), [](const flavour& m) {
    return m.mech == mechanism::epoll && m.variant == datasets::name(datasets::variant::lt);
  });
  if (!lt) return {};
  if (!full) return {datasets::variant::lt};
  return {datasets::variant::lt, datasets::variant::exclusive};
}

}  // namespace

std::vector<datasets::key> shared_epoll_points(const selection& sel, std::span<const flavour> mechs) {
  const bool full = sel.profile == profile_kind::full;
  const auto variants = measured(mechs, full);
  if (variants.empty()) return {};
  const std::int64_t c_max = widest_series(sel, full ? full_max_cpus : quick_max_cpus);
  const auto ts = series_thread_counts(sel, c_max, full ? full_threads_per_cpu : quick_threads_per_cpu,
                                       shared_epoll_driver::max_threads);
  std::vector<datasets::key> out;
  for (auto v : variants) {
    std::set<datasets::key> points;
    for (auto c : series_widths(sel, c_max)) {
      const auto cpus = first_cpus(sel, c);
      for (auto t : ts) {
        datasets::key k = base_key(datasets::scenario::shared_epoll, flavour{mechanism::epoll, ""}, fd_kind::pipe,
                                   datasets::metric::throughput, "1/s");
        k.variant = std::string(datasets::name(v));
        k.n_fds = t;
        k.n_active = t;
        k.blocking = 1;
        k.threads = t;
        k.pinning = round_robin_pinning(cpus, t);
        k.cpus = distinct_cpus(k.pinning);
        points.insert(std::move(k));
      }
    }
    out.insert(out.end(), points.begin(), points.end());
  }
  return out;
}

}  // namespace pollscale::calibrate::probes
