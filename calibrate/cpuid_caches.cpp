#include "calibrate/cpuid_caches.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace pollscale::calibrate {
namespace {

constexpr std::uint32_t intel_cache_leaf = 4;
constexpr std::uint32_t amd_cache_leaf = 0x8000001D;
constexpr std::uint32_t amd_l1_leaf = 0x80000005;
constexpr std::uint32_t amd_l2_l3_leaf = 0x80000006;
constexpr int max_subleaves = 16;  // real CPUs list 4 or 5 caches; a bound against a garbage leaf

std::uint32_t bits(std::uint32_t v, int lo, int width) { return (v >> lo) & ((1U << width) - 1); }

datasets::cache_facts cache(int level, const char* type, std::uint64_t size_bytes, std::uint64_t line_bytes) {
  datasets::cache_facts c;
  c.level = level;
  c.type = type;
  c.size_bytes = size_bytes;
  c.line_bytes = line_bytes;
  return c;
}

#if defined(__x86_64__) || defined(__i386__)
std::optional<cpuid_registers> query(std::uint32_t leaf, std::uint32_t subleaf) {
  const auto max = static_cast<std::uint32_t>(__get_cpuid_max(leaf & 0x80000000U, nullptr));  // clang declares it int
  if (max < leaf) return std::nullopt;
  cpuid_registers r{};
  __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
  return r;
}
#else
std::optional<cpuid_registers> query(std::uint32_t, std::uint32_t) { return std::nullopt; }
#endif

std::vector<datasets::cache_facts> deterministic_caches(std::uint32_t leaf) {
  std::vector<datasets::cache_facts> out;
  for (int i = 0; i < max_subleaves; ++i) {
    const auto r = query(leaf, static_cast<std::uint32_t>(i));
    if (!r || bits((*r)[0], 0, 5) == 0) break;  // type 0: no more caches
    if (auto c = decode_deterministic_cache(*r)) out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace

std::optional<datasets::cache_facts> decode_deterministic_cache(const cpuid_registers& r) {
  const std::uint32_t type = bits(r[0], 0, 5);  // 1 data, 2 instruction, 3 unified
  if (type != 1 && type != 3) return std::nullopt;
  const auto level = static_cast<int>(bits(r[0], 5, 3));
  const std::uint64_t line = bits(r[1], 0, 12) + 1ULL;
  const std::uint64_t partitions = bits(r[1], 12, 10) + 1ULL;
  const std::uint64_t ways = bits(r[1], 22, 10) + 1ULL;
  const std::uint64_t sets = r[2] + 1ULL;
  if (level < 1) return std::nullopt;
  return cache(level, type == 1 ? "Data" : "Unified", ways * partitions * line * sets, line);
}

std::vector<datasets::cache_facts> decode_amd_legacy_caches(const cpuid_registers& l1, const cpuid_registers& l2_l3) {
  std::vector<datasets::cache_facts> out;
  if (const std::uint32_t kib = bits(l1[2], 24, 8); kib != 0)  // ECX: L1d size (KiB), line
    out.push_back(cache(1, "Data", std::uint64_t{kib} << 10, bits(l1[2], 0, 8)));
  if (const std::uint32_t kib = bits(l2_l3[2], 16, 16); kib != 0)  // ECX: L2 size (KiB), line
    out.push_back(cache(2, "Unified", std::uint64_t{kib} << 10, bits(l2_l3[2], 0, 8)));
  if (const std::uint32_t units = bits(l2_l3[3], 18, 14); units != 0)  // EDX: L3 size (512 KiB units)
    out.push_back(cache(3, "Unified", std::uint64_t{units} << 19, bits(l2_l3[3], 0, 8)));
  return out;
}

std::vector<datasets::cache_facts> caches_from_cpuid() {
  if (auto caches = deterministic_caches(intel_cache_leaf); !caches.empty()) return caches;
  // AMD's leaf 0x8000001D is valid only with TOPOEXT (CPUID 0x80000001 ECX bit 22).
  if (const auto ext = query(0x80000001, 0); ext && bits((*ext)[2], 22, 1) != 0)
    if (auto caches = deterministic_caches(amd_cache_leaf); !caches.empty()) return caches;
  const auto l1 = query(amd_l1_leaf, 0);
  const auto l2_l3 = query(amd_l2_l3_leaf, 0);
  if (!l1 || !l2_l3) return {};
  return decode_amd_legacy_caches(*l1, *l2_l3);
}

}  // namespace pollscale::calibrate
