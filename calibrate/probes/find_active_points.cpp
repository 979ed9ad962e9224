// The grid of find_active points per profile. quick covers every mechanism at 8 n values
// (plus fd kinds, k, positions, blocking at a few n, and select, poll and epoll over pipes
// in a process of two threads) in about a minute; full covers
// every fd kind, k in {1, 10, 100, n}, every position and the kernel's allocation
// thresholds (poll 30/31 and ~540 pollfds, select 320/321 descriptors).

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

using datasets::metric;
using datasets::position;

struct grid_builder {
  const selection& sel;
  std::span<const flavour> mechs;
  std::vector<datasets::key> out;

  bool wanted(const flavour& f) const {
    return std::any_of(mechs.begin(), mechs.end(),
                       [&](const flavour& m) { return m.mech == f.mech && m.variant == f.variant; });
  }

  void add(const flavour& f, fd_kind kind, metric what, std::int64_t n, std::int64_t k, position pos, int blocking,
           int threads, const std::string& pinning) {
    if (!wanted(f) || k > n) return;
    datasets::key key = base_key(datasets::scenario::find_active, f, kind, what, "ns");
    key.n_fds = n;
    key.n_active = k;
    key.active_pos = datasets::name(pos);
    key.blocking = blocking;
    key.threads = threads;
    key.cpus = distinct_cpus(pinning);
    key.pinning = pinning;
    out.push_back(std::move(key));
  }
};

std::vector<flavour> level_triggered() {
  return {{mechanism::select, ""},
          {mechanism::pselect, ""},
          {mechanism::poll, ""},
          {mechanism::ppoll, ""},
          {mechanism::epoll, "lt"}};
}

std::vector<flavour> blocking_flavours() {
  return {{mechanism::select, ""},
          {mechanism::poll, ""},
          {mechanism::epoll, "lt"},
          {mechanism::rtsig, ""},
          {mechanism::io_uring, "oneshot"}};
}

std::vector<std::int64_t> pick(const std::vector<std::int64_t>& wanted, std::int64_t n_max) {
  std::vector<std::int64_t> r;
  for (auto n : wanted) r.push_back(std::min(n, n_max));
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// Blocking over sockets, the cases a loopback server (server.cpp) hits: the data present
// on entry with the ready fd first or last (a wait entry registered on, then removed from,
// every fd before it), and woken by a writer on the same or the other CPU with the ready
// fd last (entries on all n, a sleep, a rescan of all n). The model's registration cost
// for tcp comes from these rows (app/sim_costs.cpp).
void socket_blocking_points(grid_builder& g, bool full, const std::string& cpu0, const std::string& same,
                            const std::string& cross) {
  const std::vector<position> entry_positions =
      full ? std::vector<position>{position::first, position::middle, position::last}
           : std::vector<position>{position::first, position::last};
  for (fd_kind kind : {fd_kind::tcp, fd_kind::socketpair}) {
    const std::int64_t n_max = max_channels(kind, 1, 10, g.sel);
    // Three n past ~1.5 MiB (5000 and up) let the model place the cache knee (cell_fit.cpp).
    std::vector<std::int64_t> wanted = {10, 100, 1000, 5000, 10000, n_max};
    if (full) {
      const auto grid = n_grid(g.sel, n_max, 8, 8);
      wanted.insert(wanted.end(), grid.begin(), grid.end());
    }
    const auto entry_ns = pick(wanted, n_max);
    // Woken at the same six n in quick: with four (10, 100, 1000, max) a woken cell had
    // no degree of freedom left for an interval, and one n past the knee for its step.
    const auto woken_ns = full ? n_grid(g.sel, n_max, 8, 8) : entry_ns;
    for (const auto& f :
         {flavour{mechanism::select, ""}, flavour{mechanism::poll, ""}, flavour{mechanism::epoll, "lt"}}) {
      for (auto n : entry_ns)
        for (auto pos : entry_positions) g.add(f, kind, metric::time_per_op, n, 1, pos, 1, 1, cpu0);
      for (auto n : woken_ns)
        for (const auto& pin : {same, cross}) g.add(f, kind, metric::time_per_op, n, 1, position::last, 1, 2, pin);
    }
  }
}

// 4. k ready among 1000 pipes: level-triggered mechanisms by the call, the others by the
//    cycle.
void k_ready_points(grid_builder& g, bool full, const std::string& cpu0) {
  const std::int64_t n_k = 1000;
  const std::vector<std::int64_t> ks =
      full ? std::vector<std::int64_t>{1, 10, 100, n_k} : std::vector<std::int64_t>{10, 100, n_k};
  const std::vector<position> positions =
      full
          ? std::vector<position>{position::first, position::middle, position::last, position::spread, position::random}
          : std::vector<position>{position::spread};
  for (auto k : ks)
    for (auto pos : positions)
      for (const auto& f : all_flavours()) {
        const bool lt =
            f.mech != mechanism::rtsig && f.mech != mechanism::io_uring && f.variant != "et" && f.variant != "oneshot";
        g.add(f, fd_kind::pipe, lt ? metric::time_per_call : metric::time_per_op, n_k, k, pos, 0, 1, cpu0);
      }
}

// 5. and 6.: blocking over pipes, data present on entry and woken by a writer.
void blocking_pipe_points(grid_builder& g, bool full, const std::string& cpu0, const std::string& same,
                          const std::string& cross) {
  const selection& sel = g.sel;
  // 5. Blocking with the data present on entry: registration up to the first ready fd.
  //    Quick at five n (and woken, below, in both profiles), so that a cell keeps degrees
  //    of freedom for its interval.
  const std::vector<std::int64_t> blocking_pipe_ns = {10, 100, 1000, 5000, 10000};
  for (auto n : full ? n_grid(sel, max_channels(fd_kind::pipe, 1, 8, sel), 8, 8)
                     : pick(blocking_pipe_ns, max_channels(fd_kind::pipe, 1, 8, sel)))
    for (auto pos : full ? std::vector<position>{position::first, position::middle, position::last}
                         : std::vector<position>{position::first, position::last})
      for (const auto& f :
           {flavour{mechanism::select, ""}, flavour{mechanism::poll, ""}, flavour{mechanism::epoll, "lt"}})
        g.add(f, fd_kind::pipe, metric::time_per_op, n, 1, pos, 1, 1, cpu0);
  // 6. Blocking, woken by a writer thread on the same or the other CPU. k = 10 only from
  //    the other CPU: a writer on the waiter's own CPU cannot make ten fds ready at once —
  //    the waiter preempts it on return from its first write, rescans, sleeps again, and
  //    how many of those rounds one operation holds depends on the scheduler's lag (full2:
  //    1.53 ms at n = 1000 against 0.22 ms for k = 1, but only 2x at 5000 and 1x at 10000).
  for (auto n : pick(blocking_pipe_ns, max_channels(fd_kind::pipe, 1, 10, sel)))
    for (const auto& pin : {same, cross})
      for (auto k : full&& pin != same ? std::vector<std::int64_t>{1, 10} : std::vector<std::int64_t>{1})
        for (const auto& f : blocking_flavours())
          g.add(f, fd_kind::pipe, metric::time_per_op, n, k, position::middle, 1, 2, pin);
}

}  // namespace

std::vector<datasets::key> find_active_points(const selection& sel, std::span<const flavour> mechs) {
  grid_builder g{sel, mechs, {}};
  const bool full = sel.profile == profile_kind::full;
  const int c0 = sel.cpus.empty() ? 0 : sel.cpus[0];
  const int c1 = sel.cpus.size() > 1 ? sel.cpus[1] : c0;
  const std::string cpu0 = datasets::pinning::on(c0).text();
  const std::string same = datasets::pinning::pair(c0, c0).text(), cross = datasets::pinning::pair(c0, c1).text();
  const std::vector<fd_kind> kinds = full ? std::vector<fd_kind>(std::begin(all_fd_kinds), std::end(all_fd_kinds))
                                          : std::vector{fd_kind::pipe, fd_kind::eventfd};
  // 1. The wait call alone, level-triggered mechanisms, k = 1 in the middle; over pipes
  //    also in a process of two threads (the second parked on the same CPU: the lookup of
  //    every descriptor takes a reference, find_active.cpp), select, poll and epoll at the
  //    same n, on the same set-ups.
  for (fd_kind kind : kinds) {
    auto ns = n_grid(sel, max_channels(kind, 0, 8, sel), 8, 16);
    if (full) ns.insert(ns.end(), {30, 31, 320, 321, 540, 541});
    const std::set<std::int64_t> unique_ns(ns.begin(), ns.end());
    for (const auto& f : level_triggered())
      for (auto n : unique_ns) g.add(f, kind, metric::time_per_call, n, 1, position::middle, 0, 1, cpu0);
    if (kind != fd_kind::pipe) continue;
    for (const auto& f :
         {flavour{mechanism::select, ""}, flavour{mechanism::poll, ""}, flavour{mechanism::epoll, "lt"}})
      for (auto n : unique_ns) g.add(f, kind, metric::time_per_call, n, 1, position::middle, 0, 2, same);
  }
  // 2. Kegel's cycle (write, wait, read), every mechanism.
  for (fd_kind kind : full ? kinds : std::vector{fd_kind::pipe})
    for (const auto& f : all_flavours())
      for (auto n : n_grid(sel, max_channels(kind, 1, 8, sel), 8, 12))
        g.add(f, kind, metric::time_per_op, n, 1, position::middle, 0, 1, cpu0);
  if (!sel.n_override.empty()) return g.out;
  // 3. Other fd kinds at a few n (quick only; full has them above).
  if (!full)
    for (fd_kind kind : {fd_kind::socketpair, fd_kind::tcp})
      for (auto n : pick({10, 100, 1000, 5000, 10000, max_channels(kind, 0, 8, sel)}, max_channels(kind, 0, 8, sel)))
        for (const auto& f : {flavour{mechanism::poll, ""}, flavour{mechanism::epoll, "lt"}})
          g.add(f, kind, metric::time_per_call, n, 1, position::middle, 0, 1, cpu0);
  k_ready_points(g, full, cpu0);
  blocking_pipe_points(g, full, cpu0, same, cross);
  socket_blocking_points(g, full, cpu0, same, cross);
  return g.out;
}

}  // namespace pollscale::calibrate::probes
