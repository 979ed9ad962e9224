#include "calibrate/context.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/scratch_dir.hpp"

namespace pollscale::calibrate {
namespace {

namespace fs = std::filesystem;

TEST(ContextTest, ParsesSysfsSizeText) {
  EXPECT_EQ(parse_size_text("32K"), 32u * 1024);
  EXPECT_EQ(parse_size_text("2048K"), 2048u * 1024);
  EXPECT_EQ(parse_size_text("32M"), 32u << 20);
  EXPECT_EQ(parse_size_text("64"), 64u);
  EXPECT_EQ(parse_size_text("lots"), 0u);
  EXPECT_EQ(parse_size_text("12Q"), 0u);
}

TEST(ContextTest, ReadsDataCachesFromAFakeSysfsTree) {
  const pollscale::test::scratch_dir scratch("cpu");
  const fs::path& cpu = scratch.path();
  auto index = [&](int i, const char* level, const char* type, const char* size) {
    const fs::path d = cpu / "cache" / ("index" + std::to_string(i));
    fs::create_directories(d);
    std::ofstream(d / "level") << level << "\n";
    std::ofstream(d / "type") << type << "\n";
    std::ofstream(d / "size") << size << "\n";
    std::ofstream(d / "coherency_line_size") << "64\n";
    std::ofstream(d / "shared_cpu_list") << "0\n";
  };
  index(0, "1", "Data", "48K");
  index(1, "1", "Instruction", "32K");
  index(2, "2", "Unified", "1024K");
  const auto caches = read_caches(cpu.string());
  ASSERT_EQ(caches.size(), 2u);  // the instruction cache is left out
  EXPECT_EQ(caches[0].level, 1);
  EXPECT_EQ(caches[0].size_bytes, 48u * 1024);
  EXPECT_EQ(caches[1].type, "Unified");
  EXPECT_EQ(caches[1].size_bytes, 1024u * 1024);
  EXPECT_EQ(caches[1].line_bytes, 64u);
  EXPECT_EQ(caches[1].shared_cpus, "0");
}

TEST(ContextTest, AMalformedCacheLevelLeavesThatCacheOutInsteadOfThrowing) {
  const pollscale::test::scratch_dir scratch("cpu_bad");
  const fs::path& cpu = scratch.path();
  for (const auto& [i, level] :
       std::vector<std::pair<int, std::string>>{{0, "1"}, {1, "x"}, {2, ""}, {3, "99999999999"}, {4, "3"}}) {
    const fs::path d = cpu / "cache" / ("index" + std::to_string(i));
    fs::create_directories(d);
    std::ofstream(d / "level") << level << "\n";
    std::ofstream(d / "type") << "Unified\n";
    std::ofstream(d / "size") << "32768K\n";
  }
  std::vector<datasets::cache_facts> caches;
  EXPECT_NO_THROW(caches = read_caches(cpu.string()));
  ASSERT_EQ(caches.size(), 2u);
  EXPECT_EQ(caches[0].level, 1);
  EXPECT_EQ(caches[1].level, 3);
}

TEST(ContextTest, CaptureHasEveryContractField) {
  sys::nofile_limit lim{1024, 20000, 20000};
  timer_facts t{20, 1, 1};
  const auto c = capture_context(lim, t);
  for (const char* f : {"schema_version",
                        "time_utc",
                        "host",
                        "kernel",
                        "cpu_model",
                        "cpus_online",
                        "cpus_allowed",
                        "caches",
                        "virtualization",
                        "clocksource",
                        "governor",
                        "rlimit_nofile",
                        "rlimit_sigpending",
                        "timer",
                        "warnings",
                        "skipped",
                        "tool",
                        "cpu",
                        "topology",
                        "thp",
                        "mitigations",
                        "loadavg_at_start",
                        "ip_local_port_range"})
    EXPECT_TRUE(c.contains(f)) << f;
  // The build that measured: a commit (or "unknown" outside git) and how it was compiled.
  EXPECT_EQ(c["tool"]["name"], "pollscale");
  EXPECT_FALSE(c["tool"]["git_hash"].get<std::string>().empty());
  EXPECT_FALSE(c["tool"]["build_type"].get<std::string>().empty());
  // /proc values are numbers, not raw text.
  if (!c["ip_local_port_range"].is_null()) {
    ASSERT_EQ(c["ip_local_port_range"].size(), 2u);
    EXPECT_LT(c["ip_local_port_range"][0].get<int>(), c["ip_local_port_range"][1].get<int>());
  }
  if (!c["loadavg_at_start"].is_null()) {
    EXPECT_GE(c["loadavg_at_start"]["tasks"].get<int>(), 1);
  }
  // Read back by field: the cpu block of this machine names a vendor, and the topology
  // accounts for every online CPU.
  const auto facts = datasets::read_machine_facts(c);
  ASSERT_TRUE(facts.cpu.has_value());
  EXPECT_FALSE(facts.cpu->vendor.empty());
  if (facts.topology) {
    EXPECT_EQ(facts.topology->cores * facts.topology->threads_per_core, c["cpus_online"].get<int>());
  }
  EXPECT_EQ(c["rlimit_nofile"]["hard"], 20000);
  EXPECT_EQ(c["timer"]["overhead_ns"], 20);
  EXPECT_FALSE(c["kernel"].get<std::string>().empty());
}

}  // namespace
}  // namespace pollscale::calibrate
