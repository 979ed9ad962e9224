#include "model/basis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {
namespace {

constexpr const char* kind_names[] = {"fixed",    "per_fd",         "per_word",      "per_ready", "per_registered",
                                      "log_n",    "fd_per_ready",   "inverse_ready", "power_log", "working_set",
                                      "overflow", "fd_times_ready", "cycle_set",     "entry_set"};
constexpr std::size_t kind_count = sizeof kind_names / sizeof kind_names[0];

std::string exponent_text(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", e);
  return buf;
}

std::string power_log_name(double i, double j) {
  if (i == 0 && j == 0) return "fixed";
  std::string s;
  if (i != 0) s = "n^" + exponent_text(i);
  if (j != 0) s += std::string(s.empty() ? "" : "*") + "log2(n)^" + exponent_text(j);
  return s;
}

// Extra latency per dependent load at working set `bytes`.
double latency_at(const basis& b, double bytes) {
  if (b.latency.empty() || bytes <= 0) return 0;
  if (!b.latency_measured) {
    // Cache geometry: knots are (level size, latency added by missing that level); a
    // working set W misses level L with probability 1 - S_L/W (random replacement).
    double extra = 0;
    for (const auto& [size, delta] : b.latency) extra += delta * std::max(0.0, 1.0 - size / bytes);
    return extra;
  }
  const auto& k = b.latency;  // measured curve: piecewise linear in log(bytes), flat outside
  if (bytes <= k.front().first) return k.front().second;
  if (bytes >= k.back().first) return k.back().second;
  const auto hi =
      std::upper_bound(k.begin(), k.end(), bytes, [](double v, const auto& knot) { return v < knot.first; });
  const auto lo = hi - 1;
  const double t = std::log(bytes / lo->first) / std::log(hi->first / lo->first);
  return lo->second + t * (hi->second - lo->second);
}

}  // namespace

point point_of(const datasets::key& key) {
  point x;
  x.n = key.n_fds ? static_cast<double>(*key.n_fds) : 0.0;
  x.k = key.n_active ? static_cast<double>(*key.n_active) : 1.0;
  const double max_fd = key.max_fd ? static_cast<double>(*key.max_fd) : x.n + 2;
  x.words = std::ceil((max_fd + 1) / 64);
  const std::string& pos = key.active_pos;
  using datasets::position;
  if (pos == position::first)
    x.p = std::min(1.0, x.n);
  else if (pos == position::middle)
    x.p = x.n / 2;
  else if (pos == position::last)
    x.p = x.n;
  else if (pos == position::top)
    x.p = std::max(0.0, x.n - x.k + 1);
  else
    x.p = x.n / (std::max(x.k, 0.0) + 1);  // spread, random or unknown: expected position
  return x;
}

double basis::operator()(const point& x) const {
  const double kk = std::max(x.k, 1.0);
  switch (kind) {
    case basis_kind::constant: return 1;
    case basis_kind::per_fd: return x.n;
    case basis_kind::per_word: return x.words;
    case basis_kind::per_ready: return x.k;
    case basis_kind::per_registered: return x.p;
    case basis_kind::log_n: return std::log2(std::max(x.n, 1.0));
    case basis_kind::fd_per_ready: return x.n / kk;
    case basis_kind::inverse_ready: return 1 / kk;
    case basis_kind::power_log:
      if (x.n <= 0) return i == 0 && j == 0 ? 1 : 0;
      return std::pow(x.n, i) * std::pow(std::log2(std::max(x.n, 1.0)), j);
    case basis_kind::working_set:
      return x.n * latency_scale * latency_at(*this, x.n * bytes_per_fd) / (shared_by_ready ? kk : 1.0);
    case basis_kind::overflow: return x.k > threshold ? x.n : 0;
    case basis_kind::fd_times_ready: return x.n * x.k;
    case basis_kind::cycle_set: return latency_scale * latency_at(*this, x.n * bytes_per_fd);
    case basis_kind::entry_set: return x.p * latency_scale * latency_at(*this, x.n * bytes_per_fd);
  }
  return 0;
}

std::string basis_name(const basis& b) {
  if (b.kind == basis_kind::power_log) return power_log_name(b.i, b.j);
  return kind_names[static_cast<std::size_t>(b.kind)];
}

std::string basis_symbol(const basis& b) {
  switch (b.kind) {
    case basis_kind::constant: return "1";
    case basis_kind::per_fd: return "n";
    case basis_kind::per_word: return "⌈(maxfd+1)/64⌉";
    case basis_kind::per_ready: return "k";
    case basis_kind::per_registered: return "p";
    case basis_kind::log_n: return "log2(n)";
    case basis_kind::fd_per_ready: return "n/k";
    case basis_kind::inverse_ready: return "1/k";
    case basis_kind::power_log: return power_log_name(b.i, b.j) == "fixed" ? "1" : power_log_name(b.i, b.j);
    case basis_kind::working_set:
      return std::string(b.shared_by_ready ? "(n/k)" : "n") + "·Δlat(n·" + exponent_text(b.bytes_per_fd) + " B)";
    case basis_kind::overflow: return "n·[k>" + exponent_text(b.threshold) + "]";
    case basis_kind::fd_times_ready: return "n·k";
    case basis_kind::cycle_set: return "Δlat(n·" + exponent_text(b.bytes_per_fd) + " B)";
    case basis_kind::entry_set: return "p·Δlat(n·" + exponent_text(b.bytes_per_fd) + " B)";
  }
  return "?";
}

std::string basis_meaning(const basis& b) {
  switch (b.kind) {
    case basis_kind::constant: return "fixed cost of one operation (entry, exit, set-up)";
    case basis_kind::per_fd: return "per registered fd: copy-in of its entry, fd lookup and readiness query";
    case basis_kind::per_word: return "per 64-bit bitmap word scanned up to max fd";
    case basis_kind::per_ready: return "per ready fd: event delivered, read and re-armed";
    case basis_kind::per_registered: return "per wait-queue entry registered before the first ready fd (blocking only)";
    case basis_kind::log_n: return "per level of a balanced tree over n fds (epoll_ctl rb-tree)";
    case basis_kind::fd_per_ready: return "a scan over n fds shared by the k events it finds";
    case basis_kind::inverse_ready: return "a fixed per-call cost shared by the k events it finds";
    case basis_kind::power_log: return "generic Extra-P term " + power_log_name(b.i, b.j);
    case basis_kind::working_set:
      return "dependent cache-line loads per fd that pay the extra latency once n x " + exponent_text(b.bytes_per_fd) +
             " B outgrows a cache level";
    case basis_kind::overflow:
      return "signal queue overflow beyond " + exponent_text(b.threshold) + " pending events: recovery polls all n fds";
    case basis_kind::fd_times_ready:
      return "a scan over n fds paid once per ready client: closed-loop latency is k replies deep";
    case basis_kind::cycle_set:
      return "dependent loads per operation that miss once the n objects visited in turn (" +
             exponent_text(b.bytes_per_fd) + " B each) outgrow a cache level";
    case basis_kind::entry_set:
      return "dependent loads per wait entry registered (and removed) that pay the extra latency once n x " +
             exponent_text(b.bytes_per_fd) + " B outgrows a cache level";
  }
  return "";
}

std::string coefficient_unit(const basis& b, const std::string& unit) {
  switch (b.kind) {
    case basis_kind::constant: return unit;
    case basis_kind::per_fd:
    case basis_kind::overflow:
    case basis_kind::fd_per_ready: return unit + "/fd";
    case basis_kind::per_word: return unit + "/word";
    case basis_kind::per_ready: return unit + "/event";
    case basis_kind::per_registered: return unit + "/entry";
    case basis_kind::log_n: return unit + "/level";
    case basis_kind::inverse_ready: return unit + "·event";
    case basis_kind::power_log: return unit + "/(" + power_log_name(b.i, b.j) + ")";
    case basis_kind::working_set: return "loads/fd";
    case basis_kind::fd_times_ready: return unit + "/(fd·event)";
    case basis_kind::cycle_set: return "loads";
    case basis_kind::entry_set: return "loads/entry";
  }
  return unit;
}

nlohmann::json basis_to_json(const basis& b) {
  nlohmann::json j = {{"kind", kind_names[static_cast<std::size_t>(b.kind)]}};
  if (b.kind == basis_kind::power_log) {
    j["i"] = b.i;
    j["j"] = b.j;
  }
  if (b.kind == basis_kind::working_set || b.kind == basis_kind::cycle_set || b.kind == basis_kind::entry_set) {
    j["bytes_per_fd"] = b.bytes_per_fd;
    j["latency_measured"] = b.latency_measured;
    j["latency_scale"] = b.latency_scale;
    j["latency_ns"] = b.latency;
    j["shared_by_ready"] = b.shared_by_ready;
  }
  if (b.kind == basis_kind::overflow) j["threshold"] = b.threshold;
  return j;
}

namespace {

double finite_number(const nlohmann::json& j, const char* name) {
  if (!j.contains(name) || !j[name].is_number())
    throw std::invalid_argument(std::string("basis: '") + name + "' is missing or not a number");
  const double v = j[name].get<double>();
  if (!std::isfinite(v)) throw std::invalid_argument(std::string("basis: '") + name + "' is not finite");
  return v;
}

}  // namespace

basis basis_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    throw std::invalid_argument("basis: not an object with a 'kind'");
  const auto name = j["kind"].get<std::string>();
  const auto it = std::find(kind_names, kind_names + kind_count, name);
  if (it == kind_names + kind_count) throw std::invalid_argument("basis: unknown kind '" + name + "'");
  basis b;
  b.kind = static_cast<basis_kind>(it - kind_names);
  if (b.kind == basis_kind::power_log) {
    b.i = finite_number(j, "i");
    b.j = finite_number(j, "j");
  }
  if (b.kind == basis_kind::working_set || b.kind == basis_kind::cycle_set || b.kind == basis_kind::entry_set) {
    b.bytes_per_fd = finite_number(j, "bytes_per_fd");
    b.latency_scale = finite_number(j, "latency_scale");
    if (!j.contains("latency_measured") || !j["latency_measured"].is_boolean())
      throw std::invalid_argument("basis: 'latency_measured' is missing or not a boolean");
    b.latency_measured = j["latency_measured"].get<bool>();
    b.shared_by_ready =
        j.contains("shared_by_ready") && j["shared_by_ready"].is_boolean() && j["shared_by_ready"].get<bool>();
    try {
      b.latency = j.at("latency_ns").get<std::vector<std::pair<double, double>>>();
    } catch (const nlohmann::json::exception&) {
      throw std::invalid_argument("basis: 'latency_ns' is not a list of [bytes, ns] pairs");
    }
    for (const auto& [bytes, ns] : b.latency)
      if (!(bytes > 0) || !std::isfinite(ns) || !std::isfinite(bytes))
        throw std::invalid_argument("basis: 'latency_ns' holds a non-positive size or a non-finite value");
    if (!std::is_sorted(b.latency.begin(), b.latency.end()))
      throw std::invalid_argument("basis: 'latency_ns' is not sorted by size");
  }
  if (b.kind == basis_kind::overflow) b.threshold = finite_number(j, "threshold");
  return b;
}

}  // namespace pollscale::model
