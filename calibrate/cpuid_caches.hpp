// The caches as the CPU itself describes them (the CPUID instruction), for guests whose
// sysfs lists none: some hypervisors give a VM no /sys/devices/system/cpu/cpu0/cache, and
// without cache sizes the model has no working-set term to place (model/working_set.hpp).
// Three encodings, tried in this order:
//   leaf 4 (Intel) and leaf 0x8000001D (AMD with TOPOEXT): one subleaf per cache, the
//     "deterministic cache parameters": size = ways x partitions x line x sets;
//   leaves 0x80000005/6 (AMD, legacy): L1d in KiB, L2 in KiB, L3 in 512 KiB units.
// A hypervisor may pass the host's figures through (a 2-vCPU guest listing a 508 MiB L3),
// which is why the model places its knees from the memory-latency probe where it can and
// treats the listed sizes as a prior. The decoders are pure functions of register values so
// that tests can plant them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "datasets/machine_facts.hpp"

namespace pollscale::calibrate {

/// EAX, EBX, ECX, EDX of one CPUID subleaf.
using cpuid_registers = std::array<std::uint32_t, 4>;

/// One subleaf of leaf 4 / 0x8000001D: nullopt for "no more caches" (type 0) and for an
/// instruction cache; otherwise the cache it describes (shared_cpus left empty: CPUID
/// gives a count of sharing threads, not their numbers).
std::optional<datasets::cache_facts> decode_deterministic_cache(const cpuid_registers& r);

/// Leaves 0x80000005 (L1) and 0x80000006 (L2, L3): the caches whose size field is not 0.
std::vector<datasets::cache_facts> decode_amd_legacy_caches(const cpuid_registers& l1, const cpuid_registers& l2_l3);

/// The data and unified caches of the CPU this runs on, from CPUID; empty where the
/// instruction is not available (not x86) or describes none.
std::vector<datasets::cache_facts> caches_from_cpuid();

}  // namespace pollscale::calibrate
