// The record the report's Machine table shows, read by field: each value as shown, "n/a"
// where a context has none, and an older or hand-edited context never fails.

#include "datasets/host_record.hpp"

#include <gtest/gtest.h>

namespace pollscale::datasets {
namespace {

TEST(HostRecordTest, ReadsEachFieldAsShown) {
  const nlohmann::json c = {
      {"host", "box"},
      {"kernel", "6.18.44"},
      {"cpu_model", "AMD EPYC"},
      {"cpus_online", 2},
      {"cpus_allowed", {0, 1}},
      {"clocksource", "kvm-clock"},
      {"governor", nullptr},
      {"time_utc", "2026-12-04T03:35:00Z"},
      {"virtualization",
       {{"hypervisor_flag", true}, {"hypervisor_type", nullptr}, {"sys_vendor", "QEMU"}, {"product_name", nullptr}}},
      {"rlimit_nofile", {{"soft_at_start", 1024}, {"soft", 20000}, {"hard", 20000}}},
      {"timer", {{"clock", "CLOCK_MONOTONIC"}, {"overhead_ns", 24.9}, {"resolution_ns", 1}}},
      {"tool",
       {{"version", "0.1.0"},
        {"git_hash", "abc"},
        {"dirty", true},
        {"build_type", "Release"},
        {"compiler", "GNU 12"}}}};
  const host_record h = read_host_record(c);
  EXPECT_EQ(h.host, "box");
  EXPECT_EQ(h.cpus_online, "2");
  EXPECT_EQ(h.cpus_allowed, "[0,1]");
  EXPECT_EQ(h.governor, "n/a");  // null: a VM without cpufreq
  EXPECT_EQ(h.virtualization.hypervisor_flag, true);
  EXPECT_EQ(h.virtualization.sys_vendor, "QEMU");
  EXPECT_EQ(h.virtualization.product_name, "n/a");
  EXPECT_EQ(h.rlimit_nofile.soft_at_start, "1024");
  EXPECT_EQ(h.timer.overhead_ns, 24.9);
  ASSERT_TRUE(h.tool.has_value());
  EXPECT_TRUE(h.tool->dirty);
  EXPECT_EQ(h.tool->compiler, "GNU 12");
}

TEST(HostRecordTest, AnOlderOrDamagedContextShowsNotAvailable) {
  for (const nlohmann::json& c : {nlohmann::json::object(), nlohmann::json::array(), nlohmann::json(3),
                                  nlohmann::json{{"virtualization", "yes"},
                                                 {"timer", {{"overhead_ns", "fast"}}},
                                                 {"tool", 5},
                                                 {"rlimit_nofile", nullptr}}}) {
    SCOPED_TRACE(c.dump());
    const host_record h = read_host_record(c);
    EXPECT_EQ(h.host, "n/a");
    EXPECT_FALSE(h.virtualization.hypervisor_flag.has_value());
    EXPECT_EQ(h.rlimit_nofile.hard, "n/a");
    EXPECT_FALSE(h.timer.overhead_ns.has_value());
    EXPECT_FALSE(h.tool.has_value());
  }
}

}  // namespace
}  // namespace pollscale::datasets
