// Where and with what a calibration ran, as a person reads it in the report's Machine table:
// the host's name, the kernel, the CPU model text and counts, virtualization, clocksource and
// governor, RLIMIT_NOFILE, the timer, the build that measured and when. Nothing computes
// with these (machine_facts.hpp holds what the model does; run_facts.hpp what says how far
// to trust a run); they are typed all the same, so that the report reads them by field and
// a context from an older pollscale or a hand edit shows "n/a" instead of failing.
//
// JSON, inside context.json (written by calibrate/context.cpp; docs/datasets.md):
//   "host", "kernel", "cpu_model", "clocksource", "governor", "time_utc": text or null
//   "cpus_online": 2, "cpus_allowed": [0, 1]
//   "virtualization": {"hypervisor_flag": true, "hypervisor_type": null, "sys_vendor": ..., "product_name": ...}
//   "rlimit_nofile": {"soft_at_start": 1024, "soft": 20000, "hard": 20000}
//   "timer": {"clock": "CLOCK_MONOTONIC", "overhead_ns": 24.9, "resolution_ns": 1, "min_step_ns": ...}
//   "tool": {"version": ..., "git_hash": ..., "dirty": false, "build_type": ..., "compiler": ...}
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pollscale::datasets {

/// Each text field as shown: a JSON string as it is, any other value as its JSON text,
/// "n/a" where the context has none (absent or null).
struct host_record {
  std::string host, kernel, cpu_model, cpus_online, cpus_allowed, clocksource, governor, time_utc;
  struct virtualization_facts {
    std::optional<bool> hypervisor_flag;                    ///< the CPU's hypervisor flag: a guest
    std::string hypervisor_type, sys_vendor, product_name;  ///< "n/a" where unknown
  } virtualization;
  struct nofile_facts {
    std::string soft, hard, soft_at_start;
  } rlimit_nofile;
  struct timer_facts {
    std::string clock;
    std::optional<double> overhead_ns, resolution_ns;  ///< nullopt where not a number
  } timer;
  struct tool_facts {
    std::string version, git_hash, build_type, compiler;
    bool dirty = false;
  };
  std::optional<tool_facts> tool;  ///< nullopt: written by an older pollscale
};

/// Reads the record from a context block, tolerantly (see above).
host_record read_host_record(const nlohmann::json& context);

}  // namespace pollscale::datasets
