#include "model/working_set.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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
  std::map<int, double> by_level;
  if (!context.is_object() || !context.contains("caches") || !context["caches"].is_array()) return {};
  for (const auto& c : context["caches"]) {
    if (!c.is_object()) continue;
    const std::string type = c.contains("type") && c["type"].is_string() ? c["type"].get<std::string>() : "";
    if (type == "Instruction") continue;
    const double level = number_or(c, "level", 0), size = number_or(c, "size_bytes", 0);
    if (level < 1 || !(size > 0) || !std::isfinite(size)) continue;
    auto& slot = by_level[static_cast<int>(level)];
    slot = std::max(slot, size);
  }
  std::vector<cache_level> out;
  for (const auto& [level, size] : by_level) out.push_back({level, size});
  return out;
}

std::vector<latency_point> latency_points_from_context(const nlohmann::json& context) {
  std::vector<latency_point> out;
  if (!context.is_object() || !context.contains("memory_latency") || !context["memory_latency"].is_array())
    return out;
  for (const auto& p : context["memory_latency"]) {
    const double bytes = number_or(p, "size_bytes", 0), ns = number_or(p, "ns", -1);
    if (bytes > 0 && ns >= 0 && std::isfinite(bytes) && std::isfinite(ns)) out.push_back({bytes, ns});
  }
  return out;
}

std::optional<latency_curve> make_latency_curve(const std::vector<cache_level>& caches,
                                                const std::vector<latency_point>& measured) {
  std::vector<cache_level> upper;
  for (const auto& c : caches)
    if (c.level >= 2) upper.push_back(c);
  if (upper.empty()) return std::nullopt;
  latency_curve curve;
  if (measured.size() >= 2) {
    auto pts = measured;
    std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    // Repeated sizes (two probe variants, or repeated runs) merge into their mean, so the
    // log-size interpolation never divides by log(1).
    std::vector<latency_point> merged;
    std::size_t count = 0;
    for (const auto& p : pts) {
      if (!merged.empty() && merged.back().bytes == p.bytes) {
        merged.back().ns = (merged.back().ns * static_cast<double>(count) + p.ns) / static_cast<double>(count + 1);
        ++count;
      } else {
        merged.push_back(p);
        count = 1;
      }
    }
    pts = std::move(merged);
    if (pts.size() < 2) return make_latency_curve(caches, {});
    // Reference: an L2-resident working set (half of L2), whose loads the core overlaps.
    const double reference = interpolate(pts, upper.front().size_bytes / 2);
    for (const auto& p : pts) curve.knots.emplace_back(p.bytes, std::max(0.0, p.ns - reference));
    curve.measured = true;
    curve.source = "memory_latency probe (" + std::to_string(pts.size()) + " sizes), minus the L2-resident latency";
    return curve;
  }
  for (std::size_t i = 0; i < upper.size(); ++i) {
    const bool last = i + 1 == upper.size();
    curve.knots.emplace_back(upper[i].size_bytes, last ? default_llc_miss_ns : default_l2_miss_ns);
  }
  curve.source = "cache sizes from the context; typical miss latencies (L2 miss " +
                 std::to_string(static_cast<int>(default_l2_miss_ns)) + " ns, last-level miss " +
                 std::to_string(static_cast<int>(default_llc_miss_ns)) + " ns), not measured here";
  return curve;
}

bool scans_every_fd(std::string_view m) {
  return m == "select" || m == "pselect" || m == "poll" || m == "ppoll" || m == "devpoll" || m == "poll2";
}

footprint_prior footprint_for(std::string_view fd_kind) {
  // Bytes: the lines touched per fd per call — the fd table slot and the user entry
  // (16 B), struct file (f_op, f_mode, private_data: 2 lines) and the kind's own state.
  // Loads: the dependent chain fd -> file -> private state has `chain` misses that cannot
  // overlap each other; whether the prefetchers catch them depends on how the objects sit
  // in their slabs (fds created together lie in sequence), so the prior is half the chain,
  // with a standard deviation as large as that (95%: none to all of them exposed).
  auto prior = [](double bytes, double chain, const char* why) {
    return footprint_prior{bytes, chain / 2, chain / 2, why};
  };
  if (fd_kind == "pipe" || fd_kind == "fifo")
    return prior(272, 2, "struct file (2 lines) -> pipe_inode_info (head, tail, wait queue: 2 lines)");
  if (fd_kind == "eventfd") return prior(208, 2, "struct file (2 lines) -> eventfd_ctx (1 line)");
  if (fd_kind == "socketpair" || fd_kind == "tcp" || fd_kind == "udp")
    return prior(400, 3, "struct file (2 lines) -> socket (1 line) -> sock (3 lines)");
  if (fd_kind == "tmpfile") return prior(144, 1, "struct file (2 lines); regular files poll without private state");
  return prior(272, 2, "unknown fd kind: assumed like a pipe");
}

double ns_to_unit(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e-3;
  if (unit == "ms") return 1e-6;
  if (unit == "s") return 1e-9;
  return 0;
}

basis working_set_basis(const latency_curve& curve, const footprint_prior& prior,
                        std::string_view response_unit) {
  basis b;
  b.kind = basis_kind::working_set;
  b.bytes_per_fd = prior.bytes_per_fd;
  b.latency = curve.knots;
  b.latency_measured = curve.measured;
  b.latency_scale = ns_to_unit(response_unit);
  return b;
}

}  // namespace pollscale::model
