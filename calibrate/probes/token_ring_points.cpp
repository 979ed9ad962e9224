// The grid of token_ring points per profile. Pipes need both ends in this process (n up
// to ~9900 under RLIMIT_NOFILE 20000); eventfds one descriptor per channel (n up to
// ~19900, the n >= 19000).
//  quick (~120 points): every mechanism, t = 1, timeout 0: pipes at 10 n, eventfds at the
//    largest n; t = 16 at n = 1000; blocking waits (select, poll, epoll) at n = 1000.
//  full: t = 1 at 10 n for both kinds; t in {4, 16, 64} at n in {64, 1000, largest};
//    blocking waits for every mechanism at 8 n.
//  --n: every mechanism at those n, t = 1, timeout 0 (pipes; eventfds too in full).

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"

namespace pollscale::calibrate::probes {
namespace {

struct ring_grid {
  const selection& sel;
  std::span<const flavour> mechs;
  std::set<datasets::key> out;

  void add(const flavour& f, fd_kind kind, std::int64_t n, std::int64_t t, int blocking) {
    if (n < 1 || t < 1 || t > n) return;
    datasets::key k = base_key(datasets::scenario::token_ring, f, kind, datasets::metric::throughput, "1/s");
    k.n_fds = n;
    k.n_active = t;
    k.blocking = blocking;
    k.threads = 1;
    k.cpus = 1;
    k.pinning = sel.cpus.empty() ? "0" : std::to_string(sel.cpus[0]);
    out.insert(std::move(k));
  }

  void add_all(fd_kind kind, std::int64_t n, std::int64_t t, int blocking) {
    for (const auto& f : mechs) add(f, kind, n, t, blocking);
  }
};

/// The largest ring of `kind` under the limit: every write end is kept in this process.
std::int64_t largest_ring(fd_kind kind, const selection& sel) { return max_channels(kind, SIZE_MAX, 8, sel); }

std::vector<std::int64_t> capped(std::vector<std::int64_t> ns, std::int64_t n_max) {
  for (auto& n : ns) n = std::min(n, n_max);
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  return ns;
}

}  // namespace

std::vector<datasets::key> token_ring_points(const selection& sel, std::span<const flavour> mechs) {
  ring_grid g{sel, mechs, {}};
  const bool full = sel.profile == profile_kind::full;
  const std::int64_t pipe_max = largest_ring(fd_kind::pipe, sel), eventfd_max = largest_ring(fd_kind::eventfd, sel);
  if (!sel.n_override.empty()) {
    for (auto n : sel.n_override) {
      g.add_all(fd_kind::pipe, n, 1, 0);
      if (full) g.add_all(fd_kind::eventfd, n, 1, 0);
    }
    return {g.out.begin(), g.out.end()};
  }
  if (!full) {
    // The full profile's ten sizes: the ring's rate halves between 1000 and 10000 pipes
    // (1 and 10 MiB), and six sizes over four decades left one point inside that bend.
    for (auto n : n_grid(sel, pipe_max, 10, 10)) g.add_all(fd_kind::pipe, n, 1, 0);
    g.add_all(fd_kind::eventfd, eventfd_max, 1, 0);
    g.add_all(fd_kind::pipe, std::min<std::int64_t>(1000, pipe_max), 16, 0);
    for (const auto& f : mechs)
      if (f.mech == mechanism::select || f.mech == mechanism::poll || (f.mech == mechanism::epoll && f.variant == "lt"))
        g.add(f, fd_kind::pipe, std::min<std::int64_t>(1000, pipe_max), 1, 1);
    return {g.out.begin(), g.out.end()};
  }
  for (auto n : n_grid(sel, pipe_max, 10, 10)) g.add_all(fd_kind::pipe, n, 1, 0);
  for (auto n : n_grid(sel, eventfd_max, 10, 10)) g.add_all(fd_kind::eventfd, n, 1, 0);
  for (auto n : capped({64, 1000, pipe_max}, pipe_max))
    for (std::int64_t t : {4, 16, 64}) g.add_all(fd_kind::pipe, n, t, 0);
  for (auto n : n_grid(sel, pipe_max, 8, 8)) g.add_all(fd_kind::pipe, n, 1, 1);
  return {g.out.begin(), g.out.end()};
}

}  // namespace pollscale::calibrate::probes
