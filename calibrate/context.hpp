// The context block that opens every dataset (docs/datasets.md): what machine, kernel,
// limits, clocks and options produced the numbers, so that they can be compared honestly.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/sys/process.hpp"
#include "calibrate/timer.hpp"
#include "datasets/machine_facts.hpp"

namespace pollscale::calibrate {

/// Facts read from /proc and /sys, plus what the caller knows (limits, timer, options).
/// Fields that cannot be read here are null, never guessed.
nlohmann::json capture_context(const sys::nofile_limit& nofile, const timer_facts& timer);

/// The data and unified caches of CPU 0 from sysfs (instruction caches left out).
std::vector<datasets::cache_facts> read_caches(const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu/cpu0");

/// The caches the context lists: sysfs first (it also says which CPUs share each cache), CPUID
/// where a guest's sysfs lists none. `source`, when given, is set to "sysfs", "cpuid" or "".
std::vector<datasets::cache_facts> host_caches(std::string* source = nullptr);

/// "32K", "2048K", "32M" (sysfs cache size text) in bytes; 0 when unparsable.
std::uint64_t parse_size_text(const std::string& text);

/// First line of a file without its newline, or "" if it cannot be read.
std::string read_first_line(const std::string& path);

}  // namespace pollscale::calibrate
