// The grid of producers points (producers.cpp holds the essay). C is the number of CPUs a
// series spreads its threads over: the consumer on the first of them, producer i on the
// ((i + 1) mod C)-th, so that the producers fill the other CPUs first and share the
// consumer's last. Two series in both profiles, more in the full one where CPUs allow:
//  - C = 1: every thread on the first CPU of the mask — a one-CPU machine, where the
//    producers and the consumer take turns;
//  - C = Cmax = min(CPUs in the mask, 4 quick / 16 full), at least 2 (where the mask holds
//    one CPU the C = 2 points are listed and skipped, as wakeup's cross-CPU points are);
//  - full only: every power of two between them as well.
// T (producers) = 1, 2, 3, 4, 6, 8, 12, 16, ... up to 4 x Cmax, and 4 x Cmax itself: on
// this 2-vCPU host T in {1, 2, 3, 4, 6, 8} — 12 points a metric (throughput, and the
// consumer's wake-ups per event: 24 in all), about 10 s of a quick run. The
// cpus column counts the distinct CPUs actually used, min(C, T + 1), so a small T of a
// wide series can name the same CPUs as a narrower one: such duplicates are listed once.
// --n: replaces the T grid (values from 1 to producers_driver::max_producers).
// Nothing unless --mechanisms selects epoll/lt.

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/producers.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::int64_t quick_max_cpus = 4, full_max_cpus = 16;

/// "consumer+producer0+...": the consumer on cpus[0], producer i on cpus[(i + 1) % C].
std::string spread_pinning(const std::vector<int>& cpus, std::int64_t t) {
  const std::size_t c = cpus.size();
  std::string pin = datasets::pinning::on(cpus[0]).text();
  for (std::int64_t i = 0; i < t; ++i)
    pin += "+" + datasets::pinning::on(cpus[static_cast<std::size_t>(i + 1) % c]).text();
  return pin;
}

}  // namespace

std::vector<datasets::key> producers_points(const selection& sel, std::span<const flavour> mechs) {
  const auto lt = std::string(datasets::name(datasets::variant::lt));
  const auto f = std::find_if(mechs.begin(), mechs.end(),
                              [&](const flavour& m) { return m.mech == mechanism::epoll && m.variant == lt; });
  if (f == mechs.end()) return {};
  const bool full = sel.profile == profile_kind::full;
  const std::int64_t c_max = widest_series(sel, full ? full_max_cpus : quick_max_cpus);
  const auto cs = series_widths(sel, c_max);
  std::vector<std::int64_t> ts;
  if (sel.n_override.empty()) {
    ts = thread_counts(4 * c_max);
  } else {
    for (auto t : sel.n_override)
      if (t >= 1 && t <= producers_driver::max_producers) ts.push_back(t);
  }
  std::set<datasets::key> out;
  for (auto c : cs) {
    const auto cpus = first_cpus(sel, c);
    for (auto t : ts)
      for (auto [m, unit] :
           {std::pair{datasets::metric::throughput, "1/s"}, std::pair{datasets::metric::wakeups, "1"}}) {
        datasets::key k = base_key(datasets::scenario::producers, *f, fd_kind::eventfd, m, unit);
        k.n_fds = t;
        k.n_active = t;
        k.blocking = 1;
        k.threads = t + 1;
        k.pinning = spread_pinning(cpus, t);
        k.cpus = distinct_cpus(k.pinning);
        out.insert(std::move(k));
      }
  }
  return {out.begin(), out.end()};
}

}  // namespace pollscale::calibrate::probes
