// Reading the host's hardware and kernel settings from /proc and /sys: the CPU's identity
// and clock, the layout of the online CPUs, transparent huge pages and the CPU-vulnerability
// mitigations. Each of these changes what a system call or a cache miss costs, so a dataset
// records them (datasets/machine_facts.hpp holds the types and their JSON) and two hosts
// can be told apart by more than a model-name string such as "AMD EPYC".
//
// Every reader takes its paths as arguments (the defaults are the real ones) so that tests
// can point it at a made-up tree; a file that cannot be read leaves its field empty, never
// guessed.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "datasets/machine_facts.hpp"

namespace pollscale::calibrate {

/// The value of the first "field : value" line of /proc/cpuinfo whose field is exactly
/// `field` ("model" does not match "model name"); "" when there is none.
std::string cpuinfo_field(const std::string& field, const std::string& cpuinfo = "/proc/cpuinfo");

/// Vendor, family, model, stepping, microcode and clock of the first CPU listed.
datasets::cpu_facts read_cpu_facts(const std::string& cpuinfo = "/proc/cpuinfo",
                                   const std::string& cpufreq_dir = "/sys/devices/system/cpu/cpu0/cpufreq");

/// A sysfs CPU list ("0-3,8,10-11") as CPU numbers; empty when the text is not such a list.
std::vector<int> parse_cpu_list(const std::string& text);

/// Sockets, cores and threads per core of the online CPUs, NUMA nodes and SMT control;
/// nullopt when the online list or a CPU's topology cannot be read.
std::optional<datasets::topology_facts> read_topology(const std::string& cpu_root = "/sys/devices/system/cpu",
                                                      const std::string& node_root = "/sys/devices/system/node");

/// The bracketed choice of a sysfs setting line: "always [madvise] never" -> "madvise";
/// the whole line when it has no brackets.
std::string selected_choice(const std::string& line);

/// THP enabled and defrag; nullopt when the kernel has no THP directory.
std::optional<datasets::thp_facts> read_thp(const std::string& dir = "/sys/kernel/mm/transparent_hugepage");

/// Each file of the vulnerabilities directory with its line, sorted by name.
std::vector<std::pair<std::string, std::string>> read_mitigations(
    const std::string& dir = "/sys/devices/system/cpu/vulnerabilities");

}  // namespace pollscale::calibrate
