// The facts about a machine that later stages compute with, typed: its data caches (the
// model's working-set terms place their knees at these sizes) and the limits that shape
// what the kernel will queue (RLIMIT_SIGPENDING bounds the realtime-signal queue).
// calibrate fills them from sysfs and getrlimit and writes them into context.json;
// model/ and the report read them by field, through read_machine_facts, never by key.
//
// JSON, inside context.json (docs/datasets.md):
//   "caches": [{"level": 2, "type": "Unified", "size_bytes": 524288, "line_bytes": 64,
//               "shared_cpus": "0"}, ...]          instruction caches are left out
//   "rlimit_sigpending": {"soft": 63432, "hard": 63432}   "unlimited" or null where so
//   "rlimit_memlock":    {"soft": 8388608, "hard": "unlimited"}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pollscale::datasets {

struct cache_facts {
  int level = 0;                 ///< 1, 2, 3, ...
  std::string type;              ///< "Data" or "Unified"
  std::uint64_t size_bytes = 0;  ///< capacity
  std::uint64_t line_bytes = 0;  ///< coherency line size
  std::string shared_cpus;       ///< sysfs shared_cpu_list, e.g. "0-1"
};

struct limit_facts {
  std::optional<std::uint64_t> soft;  ///< nullopt: unlimited
  std::optional<std::uint64_t> hard;  ///< nullopt: unlimited
};

struct machine_facts {
  std::vector<cache_facts> caches;               ///< data and unified caches, as listed
  std::optional<limit_facts> rlimit_sigpending;  ///< nullopt: not recorded
  std::optional<limit_facts> rlimit_memlock;     ///< nullopt: not recorded
};

/// Writes the facts into a context block (the keys above), replacing what was there.
void write_machine_facts(nlohmann::json& context, const machine_facts& facts);

/// Reads the facts from a context block. Tolerant by design: a context from an older
/// pollscale, another tool or a hand edit keeps what is readable; an entry that is not an
/// object, a cache without a level >= 1 and a finite positive size, an instruction cache,
/// and a limit that is neither a non-negative number nor "unlimited" are left out.
machine_facts read_machine_facts(const nlohmann::json& context);

}  // namespace pollscale::datasets
