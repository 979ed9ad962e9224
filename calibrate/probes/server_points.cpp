// The grid of server points per profile. The five mechanisms of the dphttpd comparison
// (select, poll, epoll/lt, rtsig, io_uring/oneshot) across c idle connections from 0 to
// the most the descriptor limit allows. Points with the same c are listed together, so
// that they share one set of idle connections (server.cpp).

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

using datasets::metric;

struct server_grid {
  std::span<const flavour> mechs;
  std::string cross, same;  ///< pinning: generator on the other CPU / on the server's
  std::int64_t c_max;       ///< the most idle connections the descriptor limit allows
  std::vector<datasets::key> out;

  bool wanted(const flavour& f) const {
    return std::any_of(mechs.begin(), mechs.end(),
                       [&](const flavour& m) { return m.mech == f.mech && m.variant == f.variant; });
  }

  void add(const flavour& f, metric what, std::int64_t c, std::int64_t a, const std::string& pinning) {
    if (!wanted(f)) return;
    datasets::key k =
        base_key(datasets::scenario::server, f, fd_kind::tcp, what, what == metric::throughput ? "1/s" : "ns");
    k.n_fds = c;
    k.n_active = a;
    k.active_pos = datasets::name(datasets::position::last);
    k.blocking = 1;
    k.threads = 2;
    k.cpus = distinct_cpus(pinning);
    k.pinning = pinning;
    out.push_back(std::move(k));
  }

  void add_all(std::span<const flavour> fs, metric what, const std::vector<std::int64_t>& cs, std::int64_t a,
               const std::string& pinning) {
    for (const auto& f : fs)
      for (auto c : cs) add(f, what, c, a, pinning);
  }

  /// `wanted` values of c clamped to c_max, sorted, duplicates removed.
  std::vector<std::int64_t> clamped(std::vector<std::int64_t> wanted) const {
    for (auto& c : wanted) c = std::clamp<std::int64_t>(c, 0, c_max);
    const std::set<std::int64_t> s(wanted.begin(), wanted.end());
    return {s.begin(), s.end()};
  }
};

const std::vector<flavour>& main_flavours() {
  static const std::vector<flavour> fs = {{mechanism::select, ""},
                                          {mechanism::poll, ""},
                                          {mechanism::epoll, "lt"},
                                          {mechanism::rtsig, ""},
                                          {mechanism::io_uring, "oneshot"}};
  return fs;
}

const std::vector<flavour>& other_flavours() {
  static const std::vector<flavour> fs = {{mechanism::pselect, ""},
                                          {mechanism::ppoll, ""},
                                          {mechanism::epoll, "et"},
                                          {mechanism::epoll, "oneshot"},
                                          {mechanism::io_uring, "multishot"}};
  return fs;
}

/// Points with the same c next to each other, so that they share one set of idle connections.
std::vector<datasets::key> by_idle_count(std::vector<datasets::key> keys) {
  std::stable_sort(keys.begin(), keys.end(),
                   [](const datasets::key& x, const datasets::key& y) { return x.n_fds < y.n_fds; });
  return keys;
}

/// quick: every mechanism's throughput at 6 values of c with 8 clients; 1 client and the
/// same CPU for poll and epoll at the ends; mean latency at a few c, p99 where it is cheap
/// (a p99 batch holds 1000 replies: seconds where poll scans 19000 descriptors per call).
void quick_grid(server_grid& g) {
  const auto& m = main_flavours();
  const std::vector<flavour> poll_epoll{m[1], m[2]};
  g.add_all(m, metric::throughput, g.clamped({0, 10, 100, 1000, 5000, g.c_max}), 8, g.cross);
  g.add_all(poll_epoll, metric::throughput, g.clamped({0, g.c_max}), 1, g.cross);
  g.add_all(poll_epoll, metric::throughput, g.clamped({0, 1000}), 8, g.same);
  g.add_all(m, metric::latency, g.clamped({0, 1000}), 8, g.cross);
  g.add_all(poll_epoll, metric::latency, g.clamped({g.c_max}), 8, g.cross);
  g.add_all(m, metric::latency_p99, {0}, 8, g.cross);
  g.add_all(std::vector<flavour>{m[2]}, metric::latency_p99, g.clamped({g.c_max}), 8, g.cross);
}

/// full: 8 values of c (0 and 7 log-spaced from 10 to max) with a in {1, 10, 100}; mean
/// latency at both ends; p99 with 10 clients where poll and select stay fast enough; the
/// same CPU and the other flavours at both ends. About 190 points, 3-5 minutes.
void full_grid(server_grid& g) {
  const auto& m = main_flavours();
  std::vector<std::int64_t> cs = log_grid(10, std::max<std::int64_t>(g.c_max, 10), 7);
  cs.push_back(0);
  const auto ends = g.clamped({0, g.c_max});
  for (std::int64_t a : {1, 10, 100}) {
    g.add_all(m, metric::throughput, g.clamped(cs), a, g.cross);
    g.add_all(m, metric::latency, ends, a, g.cross);
  }
  g.add_all(std::vector<flavour>{m[2], m[3], m[4]}, metric::latency_p99, g.clamped({0, 1000, g.c_max}), 10, g.cross);
  g.add_all(std::vector<flavour>{m[0], m[1]}, metric::latency_p99, g.clamped({0, 1000}), 10, g.cross);
  for (std::int64_t a : {1, 10}) g.add_all(m, metric::throughput, ends, a, g.same);
  g.add_all(other_flavours(), metric::throughput, ends, 10, g.cross);
}

}  // namespace

std::vector<datasets::key> server_points(const selection& sel, std::span<const flavour> mechs) {
  const bool full = sel.profile == profile_kind::full;
  const std::int64_t a_big = full ? 100 : 8;
  const std::int64_t c_max =
      std::max<std::int64_t>(0, max_channels(fd_kind::tcp, 0, 2 * static_cast<std::size_t>(a_big) + 8, sel));
  const int cpu0 = sel.cpus.empty() ? 0 : sel.cpus[0];
  const int cpu1 = sel.cpus.size() > 1 ? sel.cpus[1] : cpu0;
  server_grid g{
      mechs, datasets::pinning::pair(cpu0, cpu1).text(), datasets::pinning::pair(cpu0, cpu0).text(), c_max, {}};
  if (!sel.n_override.empty())
    g.add_all(main_flavours(), metric::throughput, sel.n_override, full ? 10 : 8, g.cross);
  else if (full)
    full_grid(g);
  else
    quick_grid(g);
  return by_idle_count(std::move(g.out));
}

}  // namespace pollscale::calibrate::probes
