#include "sim/workload.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "datasets/input_error.hpp"
#include "datasets/json_file.hpp"

namespace pollscale::sim {

arrival_kind parse_arrival_kind(const std::string& text) {
  if (text == "closed") return arrival_kind::closed;
  if (text == "poisson") return arrival_kind::poisson;
  if (text == "on_off") return arrival_kind::on_off;
  throw std::invalid_argument("arrivals '" + text + "' is not one of closed, poisson, on_off");
}

std::string to_string(arrival_kind k) {
  switch (k) {
    case arrival_kind::closed: return "closed";
    case arrival_kind::poisson: return "poisson";
    case arrival_kind::on_off: return "on_off";
  }
  return "?";
}

std::uint64_t workload::state_bytes() const {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(idle, 0)) * state_bytes_per_idle +
         static_cast<std::uint64_t>(std::max<std::int64_t>(active, 0)) * state_bytes_per_active;
}

void workload::validate() const {
  // Connection indices are 32-bit inside the model; 2^31 is far beyond any fd limit.
  constexpr std::int64_t max_connections = std::int64_t{1} << 31;
  if (idle < 0 || idle > max_connections) throw std::invalid_argument("idle connections must be in 0..2^31");
  if (active < 1 || active > max_connections) throw std::invalid_argument("active connections must be in 1..2^31");
  if (idle + active > max_connections) throw std::invalid_argument("idle + active must be <= 2^31");
  if (arrivals != arrival_kind::closed && (!std::isfinite(rate_per_s) || rate_per_s <= 0 || rate_per_s > 1e9))
    throw std::invalid_argument("rate_per_s must be in (0, 1e9] for poisson and on_off arrivals");
  if (arrivals == arrival_kind::on_off && (on_period.mean() <= 0 || off_period.mean() <= 0))
    throw std::invalid_argument("on_period and off_period must have a mean > 0");
  if (idle_activity && idle_activity->mean() <= 0) throw std::invalid_argument("idle_activity must have a mean > 0");
}

namespace {

// The load generator's wake-up process in a workload file (not the scenario of that name).
constexpr const char* wakeup_field = "wakeup";  // vocabulary: a workload-file field

[[noreturn]] void fail(const std::string& origin, const std::string& key, const std::string& what) {
  throw datasets::input_error(origin, 0, key + ": " + what);
}

std::int64_t integer_field(const nlohmann::json& v, const std::string& origin, const std::string& key) {
  if (!v.is_number_integer()) fail(origin, key, "expected an integer");
  return v.get<std::int64_t>();
}

distribution distribution_field(const nlohmann::json& v, const std::string& origin, const std::string& key) {
  if (!v.is_string()) fail(origin, key, "expected a distribution such as \"exp:0.001\"");
  try {
    return distribution::parse(v.get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail(origin, key, e.what());
  }
}

std::optional<load_generator> generator_field(const nlohmann::json& v, const std::string& origin,
                                              const std::string& key) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_object()) fail(origin, key, "expected {\"per_message\": ..., \"wakeup\": ...} or null");
  load_generator g;
  for (const auto& [k, d] : v.items()) {
    if (k == "per_message")
      g.per_message = distribution_field(d, origin, key + "." + k);
    else if (k == wakeup_field)
      g.wakeup = distribution_field(d, origin, key + "." + k);
    else
      fail(origin, key + "." + k, "unknown key");
  }
  return g;
}

arrival_kind arrivals_field(const nlohmann::json& v, const std::string& origin, const std::string& key) {
  if (!v.is_string()) fail(origin, key, "expected \"closed\", \"poisson\" or \"on_off\"");
  try {
    return parse_arrival_kind(v.get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail(origin, key, e.what());
  }
}

// Sets the field `key` of `w` from `v`; false for an unknown key.
bool set_field(workload& w, const std::string& key, const nlohmann::json& v, const std::string& origin) {
  if (key == "idle") {
    w.idle = integer_field(v, origin, key);
  } else if (key == "active") {
    w.active = integer_field(v, origin, key);
  } else if (key == "arrivals") {
    w.arrivals = arrivals_field(v, origin, key);
  } else if (key == "rate_per_s") {
    if (!v.is_number()) fail(origin, key, "expected a number");
    w.rate_per_s = v.get<double>();
  } else if (key == "idle_activity") {
    w.idle_activity = v.is_null() ? std::nullopt : std::optional(distribution_field(v, origin, key));
  } else if (key == "generator") {
    w.generator = generator_field(v, origin, key);
  } else {
    distribution* d = key == "think"        ? &w.think
                      : key == "on_period"  ? &w.on_period
                      : key == "off_period" ? &w.off_period
                      : key == "network"    ? &w.network
                      : key == "app_work"   ? &w.app_work
                                            : nullptr;
    if (!d) return key == "comment";
    *d = distribution_field(v, origin, key);
  }
  return true;
}

}  // namespace

workload parse_workload(const nlohmann::json& doc, const std::string& origin, workload w) {
  if (!doc.is_object()) fail(origin, "top level", "expected a JSON object");
  for (const auto& [key, v] : doc.items())
    if (!set_field(w, key, v, origin)) fail(origin, key, "unknown key");
  try {
    w.validate();
  } catch (const std::invalid_argument& e) {
    fail(origin, "workload", e.what());
  }
  return w;
}

workload read_workload(const std::string& path, workload base) {
  // The shared reader: a directory, an unreadable file, nesting past its bound and every
  // JSON error (a number out of range included) are an input_error naming the file.
  const nlohmann::json doc = datasets::read_json_file(path);
  return parse_workload(doc, path, std::move(base));
}

nlohmann::json to_json(const workload& w) {
  nlohmann::json j;
  j["idle"] = w.idle;
  j["active"] = w.active;
  j["arrivals"] = to_string(w.arrivals);
  j["think"] = w.think.describe();
  if (w.arrivals != arrival_kind::closed) j["rate_per_s"] = w.rate_per_s;
  if (w.arrivals == arrival_kind::on_off) {
    j["on_period"] = w.on_period.describe();
    j["off_period"] = w.off_period.describe();
  }
  j["network"] = w.network.describe();
  j["app_work"] = w.app_work.describe();
  j["idle_activity"] = w.idle_activity ? nlohmann::json(w.idle_activity->describe()) : nlohmann::json();
  j["generator"] = w.generator ? nlohmann::json{{"per_message", w.generator->per_message.describe()},
                                                {wakeup_field, w.generator->wakeup.describe()}}
                               : nlohmann::json();
  return j;
}

}  // namespace pollscale::sim
