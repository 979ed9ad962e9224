#include "calibrate/cpuid_caches.hpp"

#include <gtest/gtest.h>

namespace pollscale::calibrate {
namespace {

// A leaf-4 subleaf as an Intel CPU writes it: EAX type | level << 5; EBX (line-1) |
// (partitions-1) << 12 | (ways-1) << 22; ECX sets-1.
cpuid_registers deterministic(std::uint32_t type, std::uint32_t level, std::uint32_t ways, std::uint32_t line,
                              std::uint32_t sets) {
  return {type | level << 5, (line - 1) | (ways - 1) << 22, sets - 1, 0};
}

TEST(CpuidCachesTest, DecodesADeterministicCacheLeafToItsSize) {
  // A 2 MiB L2 (16 ways x 64 B x 2048 sets) and a 48 KiB L1d (12 x 64 x 64).
  const auto l2 = decode_deterministic_cache(deterministic(3, 2, 16, 64, 2048));
  ASSERT_TRUE(l2);
  EXPECT_EQ(l2->level, 2);
  EXPECT_EQ(l2->type, "Unified");
  EXPECT_EQ(l2->size_bytes, 2u << 20);
  EXPECT_EQ(l2->line_bytes, 64u);
  EXPECT_EQ(l2->shared_cpus, "");  // CPUID counts sharing threads; it does not name them
  const auto l1 = decode_deterministic_cache(deterministic(1, 1, 12, 64, 64));
  ASSERT_TRUE(l1);
  EXPECT_EQ(l1->type, "Data");
  EXPECT_EQ(l1->size_bytes, 48u << 10);
}

TEST(CpuidCachesTest, LeavesOutInstructionCachesAndTheEndMarker) {
  EXPECT_FALSE(decode_deterministic_cache(deterministic(2, 1, 8, 64, 64)));  // instruction
  EXPECT_FALSE(decode_deterministic_cache({0, 0, 0, 0}));                    // type 0: no more
  EXPECT_FALSE(decode_deterministic_cache(deterministic(3, 0, 8, 64, 64)));  // level 0 is no cache
}

TEST(CpuidCachesTest, DecodesAmdLegacyLeavesWithL3InHalfMebibyteUnits) {
  // As a 2-vCPU AMD EPYC guest (family 26) reports them: L1d 48 KiB, L2 1 MiB, L3 1016 x 512 KiB.
  const cpuid_registers l1{0, 0, 48U << 24 | 64, 0};
  const cpuid_registers l2_l3{0, 0, 1024U << 16 | 64, 1016U << 18 | 64};
  const auto caches = decode_amd_legacy_caches(l1, l2_l3);
  ASSERT_EQ(caches.size(), 3u);
  EXPECT_EQ(caches[0].level, 1);
  EXPECT_EQ(caches[0].size_bytes, 48u << 10);
  EXPECT_EQ(caches[1].level, 2);
  EXPECT_EQ(caches[1].size_bytes, 1u << 20);
  EXPECT_EQ(caches[2].level, 3);
  EXPECT_EQ(caches[2].size_bytes, 1016ULL << 19);
  EXPECT_EQ(caches[2].line_bytes, 64u);
}

TEST(CpuidCachesTest, AnAmdLegacySizeOfZeroIsNoCache) {
  const cpuid_registers l1{0, 0, 32U << 24 | 64, 0};
  const cpuid_registers l2_only{0, 0, 512U << 16 | 64, 0};
  const auto caches = decode_amd_legacy_caches(l1, l2_only);
  ASSERT_EQ(caches.size(), 2u);
  EXPECT_EQ(caches.back().level, 2);
  EXPECT_TRUE(decode_amd_legacy_caches({}, {}).empty());
}

TEST(CpuidCachesTest, ThisCpuDescribesAFirstLevelDataCache) {
#if defined(__x86_64__) || defined(__i386__)
  const auto caches = caches_from_cpuid();
  ASSERT_FALSE(caches.empty());
  EXPECT_EQ(caches.front().level, 1);
  EXPECT_EQ(caches.front().type, "Data");
  EXPECT_GE(caches.front().size_bytes, 8u << 10);  // every x86 since the 486 has at least 8 KiB
  for (std::size_t i = 1; i < caches.size(); ++i) EXPECT_GE(caches[i].level, caches[i - 1].level);
#else
  GTEST_SKIP() << "CPUID is an x86 instruction";
#endif
}

}  // namespace
}  // namespace pollscale::calibrate
