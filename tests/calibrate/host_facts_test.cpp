// The host readers against made-up /proc and /sys trees: exact field matching in cpuinfo,
// CPU lists, topology counted from per-CPU files, the bracketed sysfs choice, and empty
// fields (never guesses) where a file is missing or malformed.

#include "calibrate/host_facts.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pollscale::calibrate {
namespace {

namespace fs = std::filesystem;

class HostFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("pollscale_host_facts_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void put(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  std::string at(const std::string& rel) const { return (root_ / rel).string(); }
  fs::path root_;
};

TEST_F(HostFactsTest, CpuinfoFieldsMatchExactlyAndTheFirstCpuWins) {
  put("cpuinfo",
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\nstepping\t: 7\n"
      "microcode\t: 0x5003604\ncpu MHz\t\t: 2499.998\n\nprocessor\t: 1\nmodel\t\t: 99\ncpu MHz\t\t: 1200.0\n");
  put("cpufreq/cpuinfo_max_freq", "3500000\n");
  EXPECT_EQ(cpuinfo_field("model", at("cpuinfo")), "85");  // not "model name"
  EXPECT_EQ(cpuinfo_field("model name", at("cpuinfo")), "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz");
  EXPECT_EQ(cpuinfo_field("flags", at("cpuinfo")), "");
  const auto c = read_cpu_facts(at("cpuinfo"), at("cpufreq"));
  EXPECT_EQ(c.vendor, "GenuineIntel");
  EXPECT_EQ(c.family, 6);
  EXPECT_EQ(c.model, 85);
  EXPECT_EQ(c.stepping, 7);
  EXPECT_EQ(c.microcode, "0x5003604");
  ASSERT_TRUE(c.mhz.has_value());
  EXPECT_DOUBLE_EQ(*c.mhz, 2499.998);
  ASSERT_TRUE(c.max_mhz.has_value());
  EXPECT_DOUBLE_EQ(*c.max_mhz, 3500.0);  // kHz in sysfs
}

TEST_F(HostFactsTest, UnreadableCpuFieldsStayEmpty) {
  put("cpuinfo", "vendor_id : AuthenticAMD\ncpu family : twenty-five\nmodel : 1x\n");
  const auto c = read_cpu_facts(at("cpuinfo"), at("no-cpufreq"));
  EXPECT_EQ(c.vendor, "AuthenticAMD");
  EXPECT_FALSE(c.family.has_value());
  EXPECT_FALSE(c.model.has_value());
  EXPECT_FALSE(c.stepping.has_value());
  EXPECT_FALSE(c.mhz.has_value());
  EXPECT_FALSE(c.max_mhz.has_value());
  EXPECT_EQ(read_cpu_facts(at("missing"), at("missing")).vendor, "");
}

TEST(HostFactsListTest, CpuListsParseOrAreRefusedWhole) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("0-1,x").empty());
  EXPECT_TRUE(parse_cpu_list("-1").empty());
  EXPECT_TRUE(parse_cpu_list("0-99999999").empty());
}

TEST_F(HostFactsTest, TopologyCountsSocketsCoresAndSiblings) {
  // Two sockets, two cores each, two threads per core: CPUs 0-7.
  put("cpu/online", "0-7\n");
  for (int cpu = 0; cpu < 8; ++cpu) {
    const std::string d = "cpu/cpu" + std::to_string(cpu) + "/topology/";
    put(d + "physical_package_id", std::to_string(cpu / 4) + "\n");
    put(d + "core_id", std::to_string(cpu % 2) + "\n");
  }
  put("cpu/smt/control", "on\n");
  put("node/online", "0-1\n");
  const auto t = read_topology(at("cpu"), at("node"));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->sockets, 2);
  EXPECT_EQ(t->cores, 4);
  EXPECT_EQ(t->threads_per_core, 2);
  EXPECT_EQ(t->numa_nodes, 2);
  EXPECT_EQ(t->smt, "on");
}

TEST_F(HostFactsTest, TopologyIsNulloptWhenACpuCannotBeRead) {
  put("cpu/online", "0-1\n");
  put("cpu/cpu0/topology/physical_package_id", "0\n");
  put("cpu/cpu0/topology/core_id", "0\n");
  EXPECT_FALSE(read_topology(at("cpu"), at("node")).has_value());
  EXPECT_FALSE(read_topology(at("nothing"), at("node")).has_value());
}

TEST_F(HostFactsTest, ThpAndMitigationsReadTheSelectedChoiceAndEachFile) {
  EXPECT_EQ(selected_choice("always [madvise] never"), "madvise");
  EXPECT_EQ(selected_choice("always defer defer+madvise [madvise] never"), "madvise");
  EXPECT_EQ(selected_choice("plain"), "plain");
  put("thp/enabled", "[always] madvise never\n");
  put("thp/defrag", "always defer [defer+madvise] madvise never\n");
  const auto thp = read_thp(at("thp"));
  ASSERT_TRUE(thp.has_value());
  EXPECT_EQ(thp->enabled, "always");
  EXPECT_EQ(thp->defrag, "defer+madvise");
  EXPECT_FALSE(read_thp(at("no-thp")).has_value());
  put("vuln/spectre_v2", "Mitigation: Retpolines\n");
  put("vuln/meltdown", "Not affected\n");
  const auto m = read_mitigations(at("vuln"));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0], (std::pair<std::string, std::string>{"meltdown", "Not affected"}));
  EXPECT_EQ(m[1].second, "Mitigation: Retpolines");
  EXPECT_TRUE(read_mitigations(at("no-vuln")).empty());
}

}  // namespace
}  // namespace pollscale::calibrate
