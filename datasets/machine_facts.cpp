#include "datasets/machine_facts.hpp"

#include <cmath>

#include "datasets/json_fields.hpp"

namespace pollscale::datasets {
namespace {

constexpr const char* caches_key = "caches";
constexpr const char* sigpending_key = "rlimit_sigpending";
constexpr const char* memlock_key = "rlimit_memlock";
constexpr const char* cpu_key = "cpu";
constexpr const char* topology_key = "topology";
constexpr const char* thp_key = "thp";
constexpr const char* mitigations_key = "mitigations";
constexpr const char* unlimited = "unlimited";

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

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

// A small integer field of a block (a family, a count), or nullopt.
std::optional<int> int_of(const nlohmann::json& block, const char* name) {
  if (!block.contains(name)) return std::nullopt;
  const auto v = count_of(block[name]);
  if (!v || *v > 1'000'000) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<double> mhz_of(const nlohmann::json& block, const char* name) {
  if (!block.contains(name) || !block[name].is_number()) return std::nullopt;
  const double v = block[name].get<double>();
  return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

const nlohmann::json* block_of(const nlohmann::json& context, const char* key) {
  return context.contains(key) && context[key].is_object() ? &context[key] : nullptr;
}

std::optional<cpu_facts> read_cpu(const nlohmann::json& context) {
  const auto* b = block_of(context, cpu_key);
  if (!b) return std::nullopt;
  return cpu_facts{text_at(*b, "vendor"),    int_of(*b, "family"), int_of(*b, "model"),  int_of(*b, "stepping"),
                   text_at(*b, "microcode"), mhz_of(*b, "mhz"),    mhz_of(*b, "max_mhz")};
}

std::optional<topology_facts> read_topology(const nlohmann::json& context) {
  const auto* b = block_of(context, topology_key);
  if (!b) return std::nullopt;
  return topology_facts{int_of(*b, "sockets").value_or(0), int_of(*b, "cores").value_or(0),
                        int_of(*b, "threads_per_core").value_or(0), int_of(*b, "numa_nodes"), text_at(*b, "smt")};
}

std::optional<thp_facts> read_thp(const nlohmann::json& context) {
  const auto* b = block_of(context, thp_key);
  if (!b) return std::nullopt;
  return thp_facts{text_at(*b, "enabled"), text_at(*b, "defrag")};
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
  context[cpu_key] = nullptr;
  if (const auto& c = facts.cpu)
    context[cpu_key] = {{"vendor", c->vendor},           {"family", or_null(c->family)},
                        {"model", or_null(c->model)},    {"stepping", or_null(c->stepping)},
                        {"microcode", c->microcode},     {"mhz", or_null(c->mhz)},
                        {"max_mhz", or_null(c->max_mhz)}};
  context[topology_key] = nullptr;
  if (const auto& t = facts.topology)
    context[topology_key] = {{"sockets", t->sockets},
                             {"cores", t->cores},
                             {"threads_per_core", t->threads_per_core},
                             {"numa_nodes", or_null(t->numa_nodes)},
                             {"smt", t->smt}};
  context[thp_key] = nullptr;
  if (const auto& t = facts.thp) context[thp_key] = {{"enabled", t->enabled}, {"defrag", t->defrag}};
  nlohmann::json m = nlohmann::json::object();
  for (const auto& [name, state] : facts.mitigations) m[name] = state;
  context[mitigations_key] = std::move(m);
}

machine_facts read_machine_facts(const nlohmann::json& context) {
  machine_facts out;
  if (!context.is_object()) return out;
  if (context.contains(caches_key) && context[caches_key].is_array())
    for (const auto& c : context[caches_key])
      if (auto f = read_cache(c)) out.caches.push_back(*f);
  out.rlimit_sigpending = read_limit(context, sigpending_key);
  out.rlimit_memlock = read_limit(context, memlock_key);
  out.cpu = read_cpu(context);
  out.topology = read_topology(context);
  out.thp = read_thp(context);
  if (const auto* m = block_of(context, mitigations_key))
    for (const auto& [name, state] : m->items())
      if (state.is_string()) out.mitigations.emplace_back(name, state.get<std::string>());
  return out;
}

}  // namespace pollscale::datasets
