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
//   "cpu":      {"vendor": "AuthenticAMD", "family": 25, "model": 1, "stepping": 1,
//                "microcode": "0xa0011d1", "mhz": 2445.4, "max_mhz": null}
//   "topology": {"sockets": 1, "cores": 2, "threads_per_core": 1, "numa_nodes": 1, "smt": "notsupported"}
//   "thp":      {"enabled": "madvise", "defrag": "madvise"}       the bracketed choice of each
//   "mitigations": {"spectre_v2": "Mitigation: Retpolines; ...", ...}   sysfs vulnerabilities
//
// Each is null (or absent, from an older pollscale) where it could not be read: a VM may hide
// cpufreq, a container /sys. Two hosts with the same "cpu_model" text can differ in family,
// model, microcode and mitigations, and those change what a system call costs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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

/// What /proc/cpuinfo says of the first CPU.
struct cpu_facts {
  std::string vendor;             ///< vendor_id: GenuineIntel, AuthenticAMD, ...
  std::optional<int> family;      ///< "cpu family"
  std::optional<int> model;       ///< "model" (the number, not the name)
  std::optional<int> stepping;    ///< "stepping"
  std::string microcode;          ///< "microcode", e.g. 0xa0011d1; "" when not listed
  std::optional<double> mhz;      ///< "cpu MHz" when the context was taken, MHz
  std::optional<double> max_mhz;  ///< cpufreq cpuinfo_max_freq, MHz; nullopt when no cpufreq
};

/// How the online CPUs are laid out (sysfs topology): threads on one core share its caches
/// and execution units, so two threads pinned to siblings do not scale like two cores.
struct topology_facts {
  int sockets = 0;                ///< distinct physical packages
  int cores = 0;                  ///< distinct (package, core) pairs
  int threads_per_core = 0;       ///< online CPUs / cores, rounded down
  std::optional<int> numa_nodes;  ///< memory nodes; nullopt when sysfs lists none
  std::string smt;                ///< smt/control: on, off, forceoff, notsupported; "" unknown
};

/// Transparent huge pages: the selected setting of each sysfs file.
struct thp_facts {
  std::string enabled;  ///< always, madvise or never
  std::string defrag;   ///< always, defer, defer+madvise, madvise or never
};

struct machine_facts {
  std::vector<cache_facts> caches;               ///< data and unified caches, as listed
  std::optional<limit_facts> rlimit_sigpending;  ///< nullopt: not recorded
  std::optional<limit_facts> rlimit_memlock;     ///< nullopt: not recorded
  std::optional<cpu_facts> cpu;                  ///< nullopt: not recorded
  std::optional<topology_facts> topology;        ///< nullopt: not recorded
  std::optional<thp_facts> thp;                  ///< nullopt: not recorded
  /// sysfs cpu/vulnerabilities: file name -> its line ("Not affected", "Mitigation: ...").
  std::vector<std::pair<std::string, std::string>> mitigations;
};

/// Writes the facts into a context block (the keys above), replacing what was there.
void write_machine_facts(nlohmann::json& context, const machine_facts& facts);

/// Reads the facts from a context block. Tolerant by design: a context from an older
/// pollscale, another tool or a hand edit keeps what is readable; an entry that is not an
/// object, a cache without a level >= 1 and a finite positive size, an instruction cache,
/// and a limit that is neither a non-negative number nor "unlimited" are left out; so is a
/// cpu, topology or thp block that is not an object, and any field of it of the wrong type.
machine_facts read_machine_facts(const nlohmann::json& context);

}  // namespace pollscale::datasets
