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
  machine_facts none;
  write_machine_facts(context, none);
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
    "rlimit_memlock": {"soft": "unlimited", "hard": "unlimited"}
  })");
  const machine_facts f = read_machine_facts(context);
  ASSERT_EQ(f.caches.size(), 1u);  // only the L3 is a cache with a level and a size
  EXPECT_EQ(f.caches[0].level, 3);
  EXPECT_EQ(f.caches[0].size_bytes, 32u << 20);
  EXPECT_FALSE(f.rlimit_sigpending.has_value());
  ASSERT_TRUE(f.rlimit_memlock.has_value());
  EXPECT_FALSE(f.rlimit_memlock->soft.has_value());
  EXPECT_TRUE(read_machine_facts(nlohmann::json::array()).caches.empty());
  EXPECT_TRUE(read_machine_facts(nlohmann::json{{"caches", "L2 1M"}}).caches.empty());
}

}  // namespace
}  // namespace pollscale::datasets
