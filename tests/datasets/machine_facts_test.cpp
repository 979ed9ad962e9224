// The machine facts later stages compute with: written into a context block and read back
// by field; a foreign or damaged context keeps what is readable.

#include "datasets/machine_facts.hpp"

#include <gtest/gtest.h>

namespace pollscale::datasets {
namespace {

machine_facts sample() {
  machine_facts f;
  f.caches = {{1, "Data", 48 << 10, 64, "0"}, {2, "Unified", 1 << 20, 64, "0"}, {3, "Unified", 32 << 20, 64, "0-1"}};
  f.rlimit_sigpending = limit_facts{63432, 63432};
  f.rlimit_memlock = limit_facts{8 << 20, std::nullopt};
  f.cpu = cpu_facts{"AuthenticAMD", 25, 1, 1, "0xa0011d1", 2445.4, std::nullopt};
  f.topology = topology_facts{1, 2, 1, 1, "notsupported"};
  f.thp = thp_facts{"madvise", "madvise"};
  f.mitigations = {{"meltdown", "Not affected"}, {"spectre_v2", "Mitigation: Retpolines"}};
  return f;
}

TEST(MachineFactsTest, WritesTheContextKeysAndReadsThemBack) {
  nlohmann::json context = {{"host", "h"}, {"caches", "stale"}};
  write_machine_facts(context, sample());
  EXPECT_EQ(context["host"], "h");  // other keys untouched
  ASSERT_TRUE(context["caches"].is_array());
  EXPECT_EQ(
      context["caches"][2],
      (nlohmann::json{
          {"level", 3}, {"type", "Unified"}, {"size_bytes", 32 << 20}, {"line_bytes", 64}, {"shared_cpus", "0-1"}}));
  EXPECT_EQ(context["rlimit_sigpending"], (nlohmann::json{{"soft", 63432}, {"hard", 63432}}));
  EXPECT_EQ(context["rlimit_memlock"], (nlohmann::json{{"soft", 8 << 20}, {"hard", "unlimited"}}));
  const machine_facts back = read_machine_facts(context);
  ASSERT_EQ(back.caches.size(), 3u);
  EXPECT_EQ(back.caches[1].level, 2);
  EXPECT_EQ(back.caches[1].size_bytes, 1u << 20);
  EXPECT_EQ(back.caches[2].shared_cpus, "0-1");
  ASSERT_TRUE(back.rlimit_sigpending.has_value());
  EXPECT_EQ(back.rlimit_sigpending->soft, 63432u);
  ASSERT_TRUE(back.rlimit_memlock.has_value());
  EXPECT_FALSE(back.rlimit_memlock->hard.has_value());  // unlimited
  EXPECT_EQ(context["cpu"]["max_mhz"], nullptr);
  ASSERT_TRUE(back.cpu.has_value());
  EXPECT_EQ(back.cpu->vendor, "AuthenticAMD");
  EXPECT_EQ(back.cpu->family, 25);
  EXPECT_EQ(back.cpu->microcode, "0xa0011d1");
  EXPECT_DOUBLE_EQ(back.cpu->mhz.value_or(0), 2445.4);
  EXPECT_FALSE(back.cpu->max_mhz.has_value());
  ASSERT_TRUE(back.topology.has_value());
  EXPECT_EQ(back.topology->cores, 2);
  EXPECT_EQ(back.topology->numa_nodes, 1);
  EXPECT_EQ(back.topology->smt, "notsupported");
  ASSERT_TRUE(back.thp.has_value());
  EXPECT_EQ(back.thp->defrag, "madvise");
  EXPECT_EQ(back.mitigations, sample().mitigations);
  machine_facts none;
  write_machine_facts(context, none);
  EXPECT_TRUE(context["cpu"].is_null());
  EXPECT_FALSE(read_machine_facts(context).cpu.has_value());
  EXPECT_TRUE(context["rlimit_sigpending"].is_null());  // not recorded
  EXPECT_FALSE(read_machine_facts(context).rlimit_sigpending.has_value());
}

TEST(MachineFactsTest, ReadingKeepsWhatIsReadableOfADamagedContext) {
  const auto context = nlohmann::json::parse(R"({
    "caches": [
      {"level": 1, "type": "Instruction", "size_bytes": 32768},
      {"level": 0, "type": "Data", "size_bytes": 32768},
      {"level": 2, "type": "Unified", "size_bytes": -5},
      {"level": 2, "type": "Unified", "size_bytes": "1M"},
      "L3 32M",
      {"level": 3, "type": "Unified", "size_bytes": 3.3554432e7}
    ],
    "rlimit_sigpending": {"soft": "lots", "hard": 10},
    "rlimit_memlock": {"soft": "unlimited", "hard": "unlimited"},
    "cpu": {"vendor": 7, "family": -1, "model": "one", "stepping": 2, "mhz": "fast"},
    "topology": "1 socket",
    "thp": {"enabled": ["always"], "defrag": "never"},
    "mitigations": {"meltdown": "Not affected", "mds": 3}
  })");
  const machine_facts f = read_machine_facts(context);
  ASSERT_EQ(f.caches.size(), 1u);  // only the L3 is a cache with a level and a size
  EXPECT_EQ(f.caches[0].level, 3);
  EXPECT_EQ(f.caches[0].size_bytes, 32u << 20);
  EXPECT_FALSE(f.rlimit_sigpending.has_value());
  ASSERT_TRUE(f.rlimit_memlock.has_value());
  EXPECT_FALSE(f.rlimit_memlock->soft.has_value());
  ASSERT_TRUE(f.cpu.has_value());  // the block is kept, each field of the wrong type dropped
  EXPECT_EQ(f.cpu->vendor, "");
  EXPECT_FALSE(f.cpu->family.has_value());
  EXPECT_FALSE(f.cpu->model.has_value());
  EXPECT_EQ(f.cpu->stepping, 2);
  EXPECT_FALSE(f.cpu->mhz.has_value());
  EXPECT_FALSE(f.topology.has_value());
  ASSERT_TRUE(f.thp.has_value());
  EXPECT_EQ(f.thp->enabled, "");
  EXPECT_EQ(f.thp->defrag, "never");
  ASSERT_EQ(f.mitigations.size(), 1u);
  EXPECT_EQ(f.mitigations[0].first, "meltdown");
  EXPECT_TRUE(read_machine_facts(nlohmann::json::array()).caches.empty());
  EXPECT_TRUE(read_machine_facts(nlohmann::json{{"caches", "L2 1M"}}).caches.empty());
}

}  // namespace
}  // namespace pollscale::datasets
