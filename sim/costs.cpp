#include "sim/costs.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

#include "datasets/input_error.hpp"
#include "datasets/json_file.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::sim {

double linear_wait_cost::rescan_s(const wait_query& q) const {
  return per_call_s + per_registered_s * static_cast<double>(q.registered) + per_ready_s * static_cast<double>(q.ready);
}

double cpu_width_pricing::time_factor(int cpus) const {
  if (measured_cpus < 1 || cpus <= measured_cpus) return 1;
  const double d = std::log2(static_cast<double>(cpus) / static_cast<double>(measured_cpus));
  return std::exp(-(log_mean * d + log_sd * std::sqrt(d) * z));
}

double fds_before_first_ready(const wait_query& q) {
  if (q.ready <= 0) return static_cast<double>(q.registered);
  if (q.before_first_ready >= 0) return q.before_first_ready;
  // k ready fds at random positions among n: the first one is preceded by n/(k+1) others
  // on average.
  return static_cast<double>(q.registered) / static_cast<double>(q.ready + 1);
}

double linear_wait_cost::call_s(const wait_query& q) const {
  // Registration stops at the first ready fd, and happens only when the call may sleep.
  return rescan_s(q) + (q.blocking ? per_registered_blocking_s * fds_before_first_ready(q) : 0.0);
}

namespace {

[[noreturn]] void fail(const std::string& origin, const std::string& where, const std::string& what) {
  throw datasets::input_error(origin, 0, where + ": " + what);
}

void check_keys(const nlohmann::json& obj, const std::set<std::string>& allowed, const std::string& origin,
                const std::string& where) {
  if (!obj.is_object()) fail(origin, where, "expected a JSON object");
  for (const auto& [k, v] : obj.items())
    if (!allowed.count(k)) fail(origin, where, "unknown key '" + k + "'");
}

// A duration in nanoseconds, returned in seconds; 0 when absent.
double ns_field(const nlohmann::json& obj, const std::string& key, const std::string& origin,
                const std::string& where) {
  if (!obj.contains(key)) return 0;
  const nlohmann::json& v = obj.at(key);
  if (!v.is_number()) fail(origin, where + "." + key, "expected a number of nanoseconds");
  const double ns = v.get<double>();
  if (!std::isfinite(ns) || ns < 0) fail(origin, where + "." + key, "must be finite and >= 0");
  return ns * 1e-9;
}

}  // namespace

cost_table parse_cost_table(const nlohmann::json& doc, const std::string& origin) {
  check_keys(doc, {"mechanisms", "handler_ns", "wakeup_same_cpu_ns", "wakeup_cross_cpu_ns", "comment"}, origin,
             "top level");
  cost_table t;
  t.handler_s = ns_field(doc, "handler_ns", origin, "top level");
  t.wakeup_same_cpu_s = ns_field(doc, "wakeup_same_cpu_ns", origin, "top level");
  t.wakeup_cross_cpu_s = ns_field(doc, "wakeup_cross_cpu_ns", origin, "top level");
  if (!doc.contains("mechanisms")) return t;
  const nlohmann::json& mechs = doc.at("mechanisms");
  if (!mechs.is_object()) fail(origin, "mechanisms", "expected an object keyed by mechanism");
  for (const auto& [name, m] : mechs.items()) {
    const std::string where = "mechanisms." + name;
    check_keys(
        m, {"per_call_ns", "per_registered_ns", "per_ready_ns", "per_registered_blocking_ns", "rearm_ns", "comment"},
        origin, where);
    linear_wait_cost c;
    c.per_call_s = ns_field(m, "per_call_ns", origin, where);
    c.per_registered_s = ns_field(m, "per_registered_ns", origin, where);
    c.per_ready_s = ns_field(m, "per_ready_ns", origin, where);
    c.per_registered_blocking_s = ns_field(m, "per_registered_blocking_ns", origin, where);
    t.wait[name] = c;
    t.rearm_s[name] = ns_field(m, "rearm_ns", origin, where);
  }
  return t;
}

cost_table read_cost_table(const std::string& path) {
  // The shared reader: a directory, an unreadable file, nesting past its bound and every
  // JSON error (a number out of range included) are an input_error naming the file.
  const nlohmann::json doc = datasets::read_json_file(path);
  return parse_cost_table(doc, path);
}

cost_model make_cost_model(const cost_table& table, const std::string& mechanism) {
  const auto it = table.wait.find(mechanism);
  if (it == table.wait.end()) throw std::invalid_argument("costs: no wait cost for mechanism '" + mechanism + "'");
  const linear_wait_cost wait = it->second;
  cost_model m;
  m.wait_call_s = [wait](const wait_query& q) { return wait.call_s(q); };
  m.rescan_s = [wait](const wait_query& q) { return wait.rescan_s(q); };
  const double rearm = table.rearm_s.at(mechanism);
  m.rearm_s = [rearm](std::int64_t) { return rearm; };
  if (mechanism == datasets::mechanism::rtsig) {
    const auto poll = table.wait.find(datasets::text(datasets::mechanism::poll));
    if (poll == table.wait.end())
      throw std::invalid_argument("costs: rtsig needs a 'poll' entry for its overflow fallback");
    const linear_wait_cost p = poll->second;
    m.overflow_poll_s = [p](const wait_query& q) { return p.rescan_s(q); };
  }
  m.handler_s = table.handler_s;
  m.wakeup_same_cpu_s = table.wakeup_same_cpu_s;
  m.wakeup_cross_cpu_s = table.wakeup_cross_cpu_s;
  return m;
}

}  // namespace pollscale::sim
