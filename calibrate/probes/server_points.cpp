// The grid of server points per profile. The five mechanisms of the dphttpd comparison
// (select, poll, epoll/lt, rtsig, io_uring/oneshot) across c idle connections from 0 to
// the most the descriptor limit allows: quick at 6 values of c with a = 8 clients (plus
// a = 1, same-CPU pinning and latency at the ends of the range) in about 25 s; full at
// 11 values of c with a in {1, 10, 100}, latency at 5 of them, and the other flavours
// (pselect, ppoll, epoll/et, epoll/oneshot, io_uring/multishot) at a few.

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"

namespace pollscale::calibrate::probes {
namespace {

struct server_grid {
  std::span<const flavour> mechs;
  std::vector<datasets::key> out;

  bool wanted(const flavour& f) const {
    return std::any_of(mechs.begin(), mechs.end(),
                       [&](const flavour& m) { return m.mech == f.mech && m.variant == f.variant; });
  }

  void add(const flavour& f, std::string_view metric, std::int64_t c, std::int64_t a, const std::string& pinning) {
    if (!wanted(f)) return;
    datasets::key k = base_key("server", f, fd_kind::tcp, metric, metric == "throughput" ? "1/s" : "ns");
    k.n_fds = c;
    k.n_active = a;
    k.active_pos = "last";
    k.blocking = 1;
    k.threads = 2;
    k.cpus = distinct_cpus(pinning);
    k.pinning = pinning;
    out.push_back(std::move(k));
  }

  void add_all(std::span<const flavour> fs, std::string_view metric, const std::vector<std::int64_t>& cs,
               std::int64_t a, const std::string& pinning) {
    for (const auto& f : fs)
      for (auto c : cs) add(f, metric, c, a, pinning);
  }
};

const std::vector<flavour>& main_flavours() {
  static const std::vector<flavour> fs = {{mechanism::select, ""}, {mechanism::poll, ""}, {mechanism::epoll, "lt"},
                                          {mechanism::rtsig, ""}, {mechanism::io_uring, "oneshot"}};
  return fs;
}

const std::vector<flavour>& other_flavours() {
  static const std::vector<flavour> fs = {{mechanism::pselect, ""}, {mechanism::ppoll, ""}, {mechanism::epoll, "et"},
                                          {mechanism::epoll, "oneshot"}, {mechanism::io_uring, "multishot"}};
  return fs;
}

/// `wanted` values clamped to c_max, sorted, duplicates removed.
std::vector<std::int64_t> clamp_to(std::vector<std::int64_t> wanted, std::int64_t c_max) {
  for (auto& c : wanted) c = std::min(c, c_max);
  const std::set<std::int64_t> s(wanted.begin(), wanted.end());
  return {s.begin(), s.end()};
}

/// Points with the same c next to each other, so that they share one set of idle connections.
std::vector<datasets::key> by_idle_count(std::vector<datasets::key> keys) {
  std::stable_sort(keys.begin(), keys.end(), [](const datasets::key& x, const datasets::key& y) { return x.n_fds < y.n_fds; });
  return keys;
}

}  // namespace

std::vector<datasets::key> server_points(const selection& sel, std::span<const flavour> mechs) {
  const bool full = sel.profile == profile_kind::full;
  const std::int64_t a_big = full ? 100 : 8;
  const std::int64_t c_max = std::max<std::int64_t>(0, max_channels(fd_kind::tcp, 0, 2 * static_cast<std::size_t>(a_big) + 8, sel));
  const std::string cpu0 = sel.cpus.empty() ? "0" : std::to_string(sel.cpus[0]);
  const std::string cpu1 = sel.cpus.size() > 1 ? std::to_string(sel.cpus[1]) : cpu0;
  const std::string cross = cpu0 + "+" + cpu1, same = cpu0 + "+" + cpu0;
  server_grid g{mechs, {}};
  const auto& main = main_flavours();
  if (!sel.n_override.empty()) {  // --n names the idle connection counts
    g.add_all(main, "throughput", sel.n_override, full ? 10 : 8, cross);
    return by_idle_count(std::move(g.out));
  }
  std::vector<std::int64_t> cs{0};
  if (full) {
    const auto lg = log_grid(10, std::max<std::int64_t>(c_max, 10), 10);
    cs.insert(cs.end(), lg.begin(), lg.end());
    cs = clamp_to(cs, c_max);
  } else {
    cs = clamp_to({0, 10, 100, 1000, 5000, c_max}, c_max);
  }
  const auto ends = clamp_to({0, 1000, c_max}, c_max);
  if (!full) {
    g.add_all(main, "throughput", cs, 8, cross);
    g.add_all(main, "throughput", clamp_to({0, c_max}, c_max), 1, cross);
    g.add_all(std::vector<flavour>{main[1], main[2]}, "throughput", clamp_to({0, c_max}, c_max), 8, same);
    for (const auto* metric : {"latency", "latency_p99"}) {
      g.add_all(std::vector<flavour>{main[1], main[2]}, metric, ends, 8, cross);
      g.add_all(std::vector<flavour>{main[0], main[3], main[4]}, metric, clamp_to({0, c_max}, c_max), 8, cross);
    }
    return by_idle_count(std::move(g.out));
  }
  for (std::int64_t a : {1, 10, 100}) g.add_all(main, "throughput", cs, a, cross);
  const auto some = clamp_to({0, 100, 1000, 5000, c_max}, c_max);
  for (std::int64_t a : {1, 10, 100})
    for (const auto* metric : {"latency", "latency_p99"}) g.add_all(main, metric, some, a, cross);
  for (std::int64_t a : {1, 10}) g.add_all(main, "throughput", ends, a, same);
  g.add_all(other_flavours(), "throughput", ends, 10, cross);
  return by_idle_count(std::move(g.out));
}

}  // namespace pollscale::calibrate::probes
