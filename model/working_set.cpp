#include "model/working_set.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "datasets/machine_facts.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::model {
namespace {

// Typical extra latency of missing each level on a current x86-64 server (ns): an L2
// miss that hits L3 (~14 -> ~50 cycles at 3.5-4 GHz), an L3 miss served by DRAM.
// Used only when no memory_latency probe measured this machine.
constexpr double default_l2_miss_ns = 9.0;
constexpr double default_llc_miss_ns = 75.0;

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
  return j[key].get<double>();
}

// The measured latency at `bytes`, linear in log(bytes) between points, flat outside.
double interpolate(const std::vector<latency_point>& pts, double bytes) {
  if (bytes <= pts.front().bytes) return pts.front().ns;
  if (bytes >= pts.back().bytes) return pts.back().ns;
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (bytes <= pts[i].bytes) {
      const double t = std::log(bytes / pts[i - 1].bytes) / std::log(pts[i].bytes / pts[i - 1].bytes);
      return pts[i - 1].ns + t * (pts[i].ns - pts[i - 1].ns);
    }
  return pts.back().ns;
}

}  // namespace

std::vector<cache_level> caches_from_context(const nlohmann::json& context) {
  std::map<int, double> by_level;  // the largest cache of each level (data and unified)
  for (const auto& c : datasets::read_machine_facts(context).caches) {
    auto& slot = by_level[c.level];
    slot = std::max(slot, static_cast<double>(c.size_bytes));
  }
  std::vector<cache_level> out;
  for (const auto& [level, size] : by_level) out.push_back({level, size});
  return out;
}

std::vector<latency_point> latency_points_from_context(const nlohmann::json& context) {
  std::vector<latency_point> out;
  // The memory_latency probe's points, listed under the scenario's name.
  const std::string field(datasets::name(datasets::scenario::memory_latency));
  if (!context.is_object() || !context.contains(field) || !context[field].is_array()) return out;
  for (const auto& p : context[field]) {
    const double bytes = number_or(p, "size_bytes", 0), ns = number_or(p, "ns", -1);
    if (bytes > 0 && ns >= 0 && std::isfinite(bytes) && std::isfinite(ns)) out.push_back({bytes, ns});
  }
  return out;
}

namespace {

// Repeated sizes (two probe variants, or repeated runs) merge into their mean, so the
// log-size interpolation never divides by log(1).
std::vector<latency_point> merge_repeated(std::vector<latency_point> pts) {
  std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  std::vector<latency_point> merged;
  double count = 0;
  for (const auto& p : pts) {
    if (!merged.empty() && merged.back().bytes == p.bytes) {
      merged.back().ns = (merged.back().ns * count + p.ns) / (count + 1);
      ++count;
    } else {
      merged.push_back(p);
      count = 1;
    }
  }
  return merged;
}

// Where the probe's latency steps up for good: a step of 1.5x or more between neighbouring
// sizes that every larger size stays above (a capacity, not one disturbed point: on this VM
// a neighbour's burst can make one size read 140 ns between two that read 14), placed at
// the geometric middle of the two sizes; ascending. A cyclic chase thrashes a cache the
// moment it outgrows it, so these are the capacities the machine gives one core, which a
// guest's cpuid need not tell (this VM lists a 32 MiB L3; its probe steps from 13.8 to 138
// ns between 6.7 and 10 MiB, huge pages or not). Only neighbours at most 2x apart in size
// place a cliff: a wider gap could hide two levels (the quick profile's old 10-size grid,
// 2.9x steps, put a spurious L2 "cliff" at 2 MiB that was the step to DRAM).
std::vector<double> probe_cliffs(const std::vector<latency_point>& pts) {
  constexpr double cliff_ratio = 1.5, max_gap = 2.0;
  std::vector<double> out;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    const double floor = cliff_ratio * pts[i - 1].ns;
    if (!(pts[i - 1].ns > 0) || pts[i].bytes > max_gap * pts[i - 1].bytes) continue;
    const bool stays = std::all_of(pts.begin() + static_cast<std::ptrdiff_t>(i), pts.end(),
                                   [&](const latency_point& p) { return p.ns >= floor; });
    if (stays) out.push_back(std::sqrt(pts[i - 1].bytes * pts[i].bytes));
  }
  return out;
}

// Each level at a probe cliff that can be its capacity, else at its listed size; `note`
// says which moved. Every step of the probe's chase is a capacity ending, and the last
// step (to DRAM) is the last level's, however little of it a guest gets: one Intel guest
// lists L2 2 MiB and L3 105 MiB and its probe steps at 1.6 MiB (L2) and 2.4 MiB (its share
// of L3, then DRAM), both inside twice the listed L2, where a bottom-up choice named the
// second step L2's and left L3 at 105 MiB. So the levels choose from the last one down:
// level i takes the largest cliff not yet taken, within twice its listed size; while
// fewer cliffs remain than levels, only one above 1.5 x the listed size of the level below
// (a smaller one is that level's own). Cliffs at or under 1.5 x L1 (`below_first`, 0 when
// unknown) are L1's.
std::vector<cache_level> levels_at_cliffs(const std::vector<latency_point>& pts, const std::vector<cache_level>& upper,
                                          double below_first, std::string& note) {
  std::vector<double> cliffs;  // ascending
  for (double c : probe_cliffs(pts))
    if (c > 1.5 * below_first) cliffs.push_back(c);
  std::vector<cache_level> out = upper;
  for (std::size_t i = out.size(); i-- > 0;) {
    const bool enough = cliffs.size() >= i + 1;  // one left for this level and each below it
    const double floor = enough ? 0 : 1.5 * (i == 0 ? below_first : upper[i - 1].size_bytes);
    auto pick = cliffs.end();
    for (auto c = cliffs.begin(); c != cliffs.end(); ++c)
      if (*c > floor && *c <= 2 * upper[i].size_bytes) pick = c;
    if (pick == cliffs.end()) continue;
    out[i].size_bytes = *pick;
    cliffs.erase(pick, cliffs.end());  // it and every larger cliff belong to this level or above
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].size_bytes != upper[i].size_bytes) {
      char buf[120];
      std::snprintf(buf, sizeof buf, "; L%d at the probe's cliff, %.2f MiB (listed %.2f MiB)", upper[i].level,
                    out[i].size_bytes / (1 << 20), upper[i].size_bytes / (1 << 20));
      note += buf;
    }
  return out;
}

// The probe prices each level; the geometry shapes the transition. The probe's own curve
// is a cliff at each cache size (one cyclic chase thrashes a cache the moment it outgrows
// it), but a kernel walk shares the caches with everything else the call and the machine
// touch, and its misses grow like (1 - S/W) (a token ring's per-pass cost on this machine
// rises to 38% of its plateau at W = 1.6 x L2, where 1 - S/W = 0.375). So δ_L is the
// probe's latency resident in the next level minus resident in L (half of each size;
// beyond the last level, the probe's largest size), and Δlat(W) = Σ δ_L (1 - S_L/W)⁺,
// S_L the listed size or the probe's cliff (knee_placement).
latency_curve probe_priced_curve(const std::vector<latency_point>& pts, const std::vector<cache_level>& listed,
                                 double below_first, knee_placement knees) {
  latency_curve curve;
  std::string note;
  const auto upper = knees == knee_placement::probe_cliffs ? levels_at_cliffs(pts, listed, below_first, note) : listed;
  for (std::size_t i = 0; i < upper.size(); ++i) {
    const double here = interpolate(pts, upper[i].size_bytes / 2);
    const bool last = i + 1 == upper.size();
    double next = last ? pts.back().ns : interpolate(pts, upper[i + 1].size_bytes / 2);
    if (last && pts.back().bytes <= upper[i].size_bytes) next = here + default_llc_miss_ns;  // probe stopped short
    curve.knots.emplace_back(upper[i].size_bytes, std::max(0.0, next - here));
  }
  curve.measured = true;
  curve.source = "miss latencies priced by the memory_latency probe (" + std::to_string(pts.size()) +
                 " sizes), shaped by the cache sizes: Δlat(W) = Σ δ_L (1 - S_L/W)" + note;
  return curve;
}

// A cyclic walk that cannot stream (a blocking scan writes a wait entry into each fd's
// queue; a scan over sockets hops between scattered objects) meets each capacity as the
// probe's chase does: as a cliff. Δlat(W) is then the
// probe's own latency at W above its L2-resident latency (misses that hit L2 are
// overlapped, as for the other curves), after removing what no larger size confirms (the
// lower envelope from the right: one size a neighbour's burst disturbed must not become a
// step).
latency_curve probe_shaped_curve(const std::vector<latency_point>& pts, const std::vector<cache_level>& upper) {
  std::vector<latency_point> envelope = pts;
  double low = pts.back().ns;
  for (std::size_t i = pts.size(); i-- > 0;) envelope[i].ns = low = std::min(low, pts[i].ns);
  const double base = upper.empty() ? envelope.front().ns : interpolate(envelope, upper.front().size_bytes / 2);
  latency_curve curve;
  for (const auto& p : envelope) curve.knots.emplace_back(p.bytes, std::max(0.0, p.ns - base));
  curve.interpolated = true;
  curve.measured = true;
  curve.source = "the memory_latency probe's own curve (" + std::to_string(pts.size()) +
                 " sizes, lower envelope from the right) above its L2-resident latency: a cyclic walk meets "
                 "each capacity as a cliff";
  return curve;
}

latency_curve geometry_curve(const std::vector<cache_level>& upper) {
  latency_curve curve;
  for (std::size_t i = 0; i < upper.size(); ++i) {
    const bool last = i + 1 == upper.size();
    curve.knots.emplace_back(upper[i].size_bytes, last ? default_llc_miss_ns : default_l2_miss_ns);
  }
  curve.source = "cache sizes from the context; typical miss latencies (L2 miss " +
                 std::to_string(static_cast<int>(default_l2_miss_ns)) + " ns, last-level miss " +
                 std::to_string(static_cast<int>(default_llc_miss_ns)) + " ns), not measured here";
  return curve;
}

}  // namespace

std::optional<latency_curve> make_latency_curve(const std::vector<cache_level>& caches,
                                                const std::vector<latency_point>& measured, knee_placement knees) {
  std::vector<cache_level> upper;
  double l1 = 0;  // bytes; the cliffs of L2 lie above it
  for (const auto& c : caches)
    if (c.level >= 2)
      upper.push_back(c);
    else
      l1 = std::max(l1, c.size_bytes);
  if (upper.empty()) return std::nullopt;
  const auto pts = merge_repeated(measured);
  // The probe's shape only from a grid dense enough to show it (neighbours at most 2x
  // apart, as for the cliffs): across the old 2.9x grid a cliff became a ramp.
  const bool dense = pts.size() >= 2 && std::adjacent_find(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
                                          return b.bytes > 2 * a.bytes;
                                        }) == pts.end();
  if (knees == knee_placement::probe_shape && dense) return probe_shaped_curve(pts, upper);
  if (knees == knee_placement::probe_shape) knees = knee_placement::probe_cliffs;
  if (pts.size() >= 2) return probe_priced_curve(pts, upper, l1, knees);
  return geometry_curve(upper);
}

bool scan_streams(std::string_view fd_kind, bool blocking) {
  using kind = datasets::fd_kind;
  return !blocking && fd_kind != kind::tcp && fd_kind != kind::socketpair && fd_kind != kind::udp;
}

bool scans_every_fd(std::string_view m) {
  const auto known = datasets::parse<datasets::mechanism>(m);
  return known && datasets::traits(*known).scans_every_fd;
}

footprint_prior footprint_for(std::string_view fd_kind) {
  // Bytes: the lines a timeout-0 readiness query touches per fd — the fd table slot and
  // the user's entry (16 B), the line of struct file holding f_op, f_mode and
  // private_data, and the lines of the kind's own state its ->poll reads (pipe_poll:
  // head, tail, max_usage, readers, writers, one line past the mutex and wait queues;
  // eventfd_poll: count; sock_poll: the socket and about three lines of struct sock).
  // Chain: the dependent misses fd -> file -> private state.
  using kind = datasets::fd_kind;
  if (fd_kind == kind::pipe || fd_kind == kind::fifo)
    return {144, 2, 0, 0, "fd slot + pollfd (16 B) -> struct file (1 line) -> pipe_inode_info (1 line)"};
  if (fd_kind == kind::eventfd)
    return {144, 2, 0, 0, "fd slot + pollfd (16 B) -> struct file (1 line) -> eventfd_ctx (1 line)"};
  // tcp_poll reads state, error and shutdown (sock_common), rcv_nxt, copied_seq and the
  // urgent-data fields, then the send side (write_seq, snd_nxt, sk_wmem_queued, sndbuf)
  // spread over a 2 KiB tcp_sock; unix_poll reads the receive queue head, sk_wmem_alloc,
  // sndbuf and the peer's state in a smaller unix_sock.
  if (fd_kind == kind::tcp)
    return {592, 3, 0, 0, "fd slot + pollfd (16 B) -> struct file (1 line) -> socket (1 line) -> tcp_sock (7 lines)"};
  if (fd_kind == kind::socketpair || fd_kind == kind::udp)
    return {400, 3, 0, 0, "fd slot + pollfd (16 B) -> struct file (1 line) -> socket (1 line) -> sock (4 lines)"};
  if (fd_kind == kind::tmpfile)
    return {80, 1, 0, 0, "fd slot + pollfd (16 B) -> struct file (1 line); no private state"};
  return {144, 2, 0, 0, "unknown fd kind: assumed like a pipe"};
}

footprint_prior working_set_prior(std::string_view fd_kind, bool blocking, const latency_curve& curve,
                                  const cold_exposure* cold) {
  footprint_prior p = footprint_for(fd_kind);
  if (blocking) p.bytes_per_fd += wait_entry_bytes;
  basis b;
  b.kind = basis_kind::working_set;
  b.bytes_per_fd = 1;
  b.latency = curve.knots;
  b.latency_measured = curve.interpolated;
  // Δlat well past the first knee: at four times the first size where it is positive.
  const auto knee = std::find_if(curve.knots.begin(), curve.knots.end(), [](const auto& k) { return k.second > 0; });
  const double far = knee == curve.knots.end() ? 0 : 4 * knee->first;
  double plateau_ns = far > 0 ? b(point{far, 1, 0, 0}) / far : 0;
  if (curve.interpolated && !curve.knots.empty()) plateau_ns = curve.knots.back().second;  // the memory's own
  const bool streams = scan_streams(fd_kind, blocking);
  const bool measured = streams && cold != nullptr;
  const double stream_ns = measured ? std::max(0.0, cold->excess_ns) : p.bytes_per_fd / stream_bytes_per_s * 1e9;
  p.loads_mean = plateau_ns > 0 ? stream_ns / plateau_ns : 0;
  p.loads_sd = p.chain / 2;
  char why[240];
  if (!streams && curve.interpolated) {
    p.loads_mean = p.chain;
    std::snprintf(why, sizeof why, "no stream (%s): mean the %.0f dependent misses of the chain, sd half of it; ",
                  blocking ? "each fd's wait queue is locked and written" : "socket objects scattered over slabs",
                  p.chain);
  } else if (measured) {
    std::snprintf(why, sizeof why,
                  "mean: %.1f ns per fd past L2, measured (cold_scan: poll over %lld-%lld fds after reading %.0f MiB, "
                  "minus warm); sd: half of %.0f dependent misses; ",
                  stream_ns, static_cast<long long>(cold->n_lo), static_cast<long long>(cold->n_hi),
                  cold->evict_bytes / (1 << 20), p.chain);
  } else {
    std::snprintf(why, sizeof why, "mean: streaming %.0f B at %.0f GB/s; sd: half of %.0f dependent misses; ",
                  p.bytes_per_fd, stream_bytes_per_s / 1e9, p.chain);
  }
  p.why = why + p.why;
  return p;
}

footprint_prior ring_prior(std::string_view fd_kind) {
  const double bytes = fd_kind == datasets::fd_kind::pipe || fd_kind == datasets::fd_kind::fifo ? 1024 : 512;
  return {bytes, 8, 4, 4,
          "half of ~8 dependent misses a pass (file -> pipe -> buffer -> page, both sides), sd as large"};
}

bool cycles_watched_set(const datasets::key& k) {
  return k.scenario == datasets::scenario::interest_churn && k.mechanism == datasets::mechanism::epoll &&
         k.metric == datasets::metric::mod;
}

footprint_prior churn_prior() {
  return {264, 3, 3, 1.5,
          "the 3 dependent misses of one MOD (fd -> file, tree -> epitem, file -> eventfd_ctx), sd half of it; "
          "264 B per watched fd (file, epitem x2, eventfd_ctx lines, fd slot)"};
}

footprint_prior entry_prior(const footprint_prior& scan) {
  return {scan.bytes_per_fd, 2, 1, 1,
          "mean 1, sd as large: the wait-queue head each entry is linked into (written under its lock) and the "
          "64 B entry (pages allocated per call); the working set is the scan's"};
}

double ns_to_unit(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e-3;
  if (unit == "ms") return 1e-6;
  if (unit == "s") return 1e-9;
  return 0;
}

basis working_set_basis(const latency_curve& curve, const footprint_prior& prior, std::string_view response_unit) {
  basis b;
  b.kind = basis_kind::working_set;
  b.bytes_per_fd = prior.bytes_per_fd;
  b.latency = curve.knots;
  b.latency_measured = curve.interpolated;
  b.latency_scale = ns_to_unit(response_unit);
  return b;
}

}  // namespace pollscale::model
