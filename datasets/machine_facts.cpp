#include "datasets/machine_facts.hpp"

#include <cmath>

namespace pollscale::datasets {
namespace {

constexpr const char* caches_key = "caches";
constexpr const char* sigpending_key = "rlimit_sigpending";
constexpr const char* memlock_key = "rlimit_memlock";
constexpr const char* unlimited = "unlimited";

nlohmann::json limit_json(const std::optional<limit_facts>& l) {
  if (!l) return nullptr;
  auto value = [](const std::optional<std::uint64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(unlimited); };
  return {{"soft", value(l->soft)}, {"hard", value(l->hard)}};
}

// A count in JSON: a finite non-negative number (sizes are written as integers, but a
// hand-edited 5.12e5 is still a size), or nullopt.
std::optional<std::uint64_t> count_of(const nlohmann::json& j) {
  if (!j.is_number()) return std::nullopt;
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < 0 || v > 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

std::optional<limit_facts> read_limit(const nlohmann::json& context, const char* key) {
  if (!context.contains(key) || !context[key].is_object()) return std::nullopt;
  const auto& j = context[key];
  auto side = [&](const char* name, bool& ok) -> std::optional<std::uint64_t> {
    if (!j.contains(name)) return ok = false, std::nullopt;
    if (j[name].is_string() && j[name].get<std::string>() == unlimited) return std::nullopt;
    const auto v = count_of(j[name]);
    if (!v) ok = false;
    return v;
  };
  bool ok = true;
  limit_facts l{side("soft", ok), side("hard", ok)};
  return ok ? std::optional<limit_facts>(l) : std::nullopt;
}

std::optional<cache_facts> read_cache(const nlohmann::json& c) {
  if (!c.is_object()) return std::nullopt;
  cache_facts f;
  f.type = c.contains("type") && c["type"].is_string() ? c["type"].get<std::string>() : "";
  const auto level = c.contains("level") ? count_of(c["level"]) : std::nullopt;
  const auto size = c.contains("size_bytes") ? count_of(c["size_bytes"]) : std::nullopt;
  if (f.type == "Instruction" || !level || *level < 1 || *level > 16 || !size || *size == 0) return std::nullopt;
  f.level = static_cast<int>(*level);
  f.size_bytes = *size;
  if (c.contains("line_bytes")) f.line_bytes = count_of(c["line_bytes"]).value_or(0);
  if (c.contains("shared_cpus") && c["shared_cpus"].is_string()) f.shared_cpus = c["shared_cpus"].get<std::string>();
  return f;
}

}  // namespace

void write_machine_facts(nlohmann::json& context, const machine_facts& facts) {
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : facts.caches)
    caches.push_back({{"level", c.level},
                      {"type", c.type},
                      {"size_bytes", c.size_bytes},
                      {"line_bytes", c.line_bytes},
                      {"shared_cpus", c.shared_cpus}});
  context[caches_key] = std::move(caches);
  context[sigpending_key] = limit_json(facts.rlimit_sigpending);
  context[memlock_key] = limit_json(facts.rlimit_memlock);
}

machine_facts read_machine_facts(const nlohmann::json& context) {
  machine_facts out;
  if (!context.is_object()) return out;
  if (context.contains(caches_key) && context[caches_key].is_array())
    for (const auto& c : context[caches_key])
      if (auto f = read_cache(c)) out.caches.push_back(*f);
  out.rlimit_sigpending = read_limit(context, sigpending_key);
  out.rlimit_memlock = read_limit(context, memlock_key);
  return out;
}

}  // namespace pollscale::datasets
