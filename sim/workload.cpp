#include "sim/workload.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

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

namespace {

// Connection indices are 32-bit inside the model; 2^31 is far beyond any fd limit.
constexpr std::int64_t max_connections = std::int64_t{1} << 31;
// Requests per second: beyond this the simulated clock's resolution is the limit.
constexpr double max_rate_per_s = 1e9;

}  // namespace

void workload::validate() const {
  if (idle < 0 || idle > max_connections) throw field_error("idle", "must be in 0..2^31 connections");
  if (active < 1 || active > max_connections) throw field_error("active", "must be in 1..2^31 connections");
  if (idle + active > max_connections) throw field_error("idle", "idle + active must be <= 2^31");
  if (arrivals != arrival_kind::closed && rate_per_s == 0)
    throw field_error("rate_per_s", "required with " + to_string(arrivals) + " arrivals");
  if (arrivals != arrival_kind::closed &&
      !(std::isfinite(rate_per_s) && rate_per_s > 0 && rate_per_s <= max_rate_per_s))
    throw field_error("rate_per_s", "must be in (0, 1e9] requests/s for poisson and on_off arrivals");
  if (arrivals == arrival_kind::on_off && on_period.mean() <= 0)
    throw field_error("on_period", "must have a mean > 0 for on_off arrivals");
  if (arrivals == arrival_kind::on_off && off_period.mean() <= 0)
    throw field_error("off_period", "must have a mean > 0 for on_off arrivals");
  if (idle_activity && idle_activity->mean() <= 0) throw field_error("idle_activity", "must have a mean > 0");
}

namespace {

using json = nlohmann::json;

// The load generator's wake-up process in a workload file (not the scenario of that name).
constexpr const char* wakeup_field = "generator.wakeup";  // vocabulary: a workload-file field

double number_value(const json& v) {
  if (!v.is_number()) throw std::invalid_argument("expected a number");
  return v.get<double>();
}

distribution distribution_value(const json& v) {
  if (!v.is_string()) throw std::invalid_argument("expected a distribution such as \"exp:0.001\"");
  return distribution::parse(v.get<std::string>());
}

std::optional<distribution> optional_distribution_value(const json& v) {
  return v.is_null() ? std::nullopt : std::optional(distribution_value(v));
}

arrival_kind arrivals_value(const json& v) {
  if (!v.is_string()) throw std::invalid_argument("expected \"closed\", \"poisson\" or \"on_off\"");
  return parse_arrival_kind(v.get<std::string>());
}

json text_or_null(const std::optional<distribution>& d) { return d ? json(d->describe()) : json(); }

load_generator& generator_of(workload& w) {
  if (!w.generator) w.generator.emplace();
  return *w.generator;
}

// A generator cost: a distribution, or the word "costs" (the cost model's own). Each cost is
// a pair of members of load_generator: its distribution and whether the costs price it.
constexpr const char* from_costs_text = "costs";  // vocabulary: a workload-file value
using generator_distribution = distribution load_generator::*;
using generator_from_costs = bool load_generator::*;

void set_generator_cost(workload& w, const json& v, generator_distribution d, generator_from_costs from_costs) {
  load_generator& g = generator_of(w);
  g.*from_costs = v.is_string() && v.get<std::string>() == from_costs_text;
  if (!(g.*from_costs)) g.*d = distribution_value(v);
}

json generator_cost_json(const workload& w, generator_distribution d, generator_from_costs from_costs) {
  if (!w.generator) return unused_field();
  return (*w.generator).*from_costs ? json(from_costs_text) : json(((*w.generator).*d).describe());
}

// clang-format off
const workload_field fields[] = {
    {"idle", "idle", "N", "0", "idle connections (registered, silent)", field_form::integer,
     [](workload& w, const json& v) { w.idle = integer_value(v, 0, max_connections); },
     [](const workload& w) { return json(w.idle); }, 0},
    {"active", "active", "N", "100", "active connections carrying requests", field_form::integer,
     [](workload& w, const json& v) { w.active = integer_value(v, 1, max_connections); },
     [](const workload& w) { return json(w.active); }, 1},
    {"arrivals", "arrivals", "KIND", "closed", "closed, poisson or on_off", field_form::text,
     [](workload& w, const json& v) { w.arrivals = arrivals_value(v); },
     [](const workload& w) { return json(to_string(w.arrivals)); }},
    {"think", "think", "DIST", "const:0", "closed clients' think time, e.g. exp:0.001 (s)", field_form::text,
     [](workload& w, const json& v) { w.think = distribution_value(v); },
     [](const workload& w) { return json(w.think.describe()); }},
    {"rate_per_s", "rate", "PER_SECOND", "", "poisson/on_off: requests per second (while on)", field_form::number,
     [](workload& w, const json& v) { w.rate_per_s = number_value(v); },
     [](const workload& w) { return w.arrivals == arrival_kind::closed ? unused_field() : json(w.rate_per_s); }, 1},
    {"on_period", "on", "DIST", "exp:0.1", "on_off: burst length distribution (s)", field_form::text,
     [](workload& w, const json& v) { w.on_period = distribution_value(v); },
     [](const workload& w) { return w.arrivals == arrival_kind::on_off ? json(w.on_period.describe()) : unused_field(); }},
    {"off_period", "off", "DIST", "exp:0.1", "on_off: silence length distribution (s)", field_form::text,
     [](workload& w, const json& v) { w.off_period = distribution_value(v); },
     [](const workload& w) { return w.arrivals == arrival_kind::on_off ? json(w.off_period.describe()) : unused_field(); }},
    {"network", "network", "DIST", "const:0", "one-way network delay distribution (s)", field_form::text,
     [](workload& w, const json& v) { w.network = distribution_value(v); },
     [](const workload& w) { return json(w.network.describe()); }},
    {"app_work", "app-work", "DIST", "const:0", "application work per request (s)", field_form::text,
     [](workload& w, const json& v) { w.app_work = distribution_value(v); },
     [](const workload& w) { return json(w.app_work.describe()); }},
    {"idle_activity", "idle-activity", "DIST", "", "keep-alive period of each idle connection (s)", field_form::text,
     [](workload& w, const json& v) { w.idle_activity = optional_distribution_value(v); },
     [](const workload& w) { return text_or_null(w.idle_activity); }},
    {"generator", "", "", "", "the clients' load-generator process", field_form::group,
     [](workload& w, const json& v) {
       if (!v.is_null() && !v.is_object())
         throw std::invalid_argument("expected {\"per_message\": ..., \"wakeup\": ...} or null");
       w.generator = v.is_null() ? std::nullopt : std::optional(load_generator{});
     },
     [](const workload& w) { return w.generator ? json::object() : json(); }},
    {"generator.per_message", "generator-per-message", "DIST", "",
     "clients run in one load-generator process: its cost per reply (s), or 'costs': the cost model's handler "
     "cost (with a model, drawn with the server's costs)", field_form::text,
     [](workload& w, const json& v) {
       set_generator_cost(w, v, &load_generator::per_message, &load_generator::per_message_from_costs);
     },
     [](const workload& w) {
       return generator_cost_json(w, &load_generator::per_message, &load_generator::per_message_from_costs);
     }},
    {wakeup_field, "generator-wakeup", "DIST", "",
     "the load generator's wake-up latency after a pause (s), or 'costs': the cost model's cross-CPU wake-up",
     field_form::text,
     [](workload& w, const json& v) {
       set_generator_cost(w, v, &load_generator::wakeup, &load_generator::wakeup_from_costs);
     },
     [](const workload& w) { return generator_cost_json(w, &load_generator::wakeup, &load_generator::wakeup_from_costs); }},
};
// clang-format on

[[noreturn]] void fail(const std::string& origin, const std::string& key, const std::string& what) {
  throw datasets::input_error(origin, 0, key + ": " + what);
}

// Sets the field `key` from `v` (a group's members after the group itself).
void set_field(workload& w, const std::string& key, const json& v, const std::string& origin) {
  const workload_field* f = workload_field_by_key(key);
  if (!f) fail(origin, key, "unknown key");
  try {
    f->set(w, v);
  } catch (const std::invalid_argument& e) {
    fail(origin, key, e.what());
  }
  if (f->form != field_form::group || v.is_null()) return;
  for (const auto& [member, mv] : v.items()) {
    const std::string member_key = key + "." + member;
    const workload_field* m = workload_field_by_key(member_key);
    if (!m || m->form == field_form::group) fail(origin, member_key, "unknown key");
    set_field(w, member_key, mv, origin);
  }
}

}  // namespace

std::span<const workload_field> workload_fields() { return fields; }

const workload_field* workload_field_by_key(std::string_view key) { return field_by_key(workload_fields(), key); }

const workload_field* workload_field_by_flag(std::string_view flag) { return field_by_flag(workload_fields(), flag); }

workload parse_workload(const json& doc, const std::string& origin, workload w) {
  if (!doc.is_object()) fail(origin, "top level", "expected a JSON object");
  for (const auto& [key, v] : doc.items()) {
    if (key == "comment") continue;
    if (key.find('.') != std::string::npos) fail(origin, key, "unknown key");
    set_field(w, key, v, origin);
  }
  try {
    w.validate();
  } catch (const field_error& e) {
    fail(origin, e.key, e.detail);
  }
  return w;
}

workload read_workload(const std::string& path, workload base) {
  // The shared reader: a directory, an unreadable file, nesting past its bound and every
  // JSON error (a number out of range included) are an input_error naming the file.
  const nlohmann::json doc = datasets::read_json_file(path);
  return parse_workload(doc, path, std::move(base));
}

nlohmann::json to_json(const workload& w) { return fields_json(workload_fields(), w); }

}  // namespace pollscale::sim
