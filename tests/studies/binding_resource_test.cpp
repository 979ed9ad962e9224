#include "studies/binding_resource.hpp"

#include <gtest/gtest.h>

namespace pollscale::studies {
namespace {

// A run's figures with its utilisation split as given (fractions of the CPUs' time).
sim::experiment_result run_with(double wait, double rescan, double overflow, double rearm, double handler,
                                double overflows_per_s = 0) {
  sim::experiment_result r;
  r.cpu_share = {wait, rescan, overflow, rearm, handler};
  r.cpu_utilisation.mean = wait + rescan + overflow + rearm + handler;
  r.overflows_per_s = overflows_per_s;
  return r;
}

TEST(BindingResourceTest, ABusyCpuIsNamedByWhatItWasBusyWith) {
  // poll over many idle fds: the scans take the CPU (first passes and rescans together).
  const auto scans = run_with(0.5, 0.2, 0, 0, 0.29);
  EXPECT_EQ(binding_resource(scans), resource::cpu_wait_calls);
  EXPECT_EQ(describe(resource::cpu_wait_calls, scans), "the CPUs, 71% of their time in wait calls");
  EXPECT_EQ(binding_resource(run_with(0.1, 0, 0, 0, 0.88)), resource::cpu_handlers);
  EXPECT_EQ(binding_resource(run_with(0.2, 0, 0, 0.4, 0.35)), resource::cpu_rearms);
}

TEST(BindingResourceTest, CpusWithTimeLeftMeanTheRequestsWaitedToBeNoticed) {
  const auto idle = run_with(0.3, 0.1, 0, 0, 0.1);
  EXPECT_EQ(binding_resource(idle), resource::latency);
  EXPECT_EQ(describe(resource::latency, idle),
            "latency, not CPU: the CPUs are 50% busy (80% of that in wait calls), so requests waited to be noticed");
  // ... unless the target missed is the CPU's own: then it is the CPU however busy.
  EXPECT_EQ(binding_resource(idle, true), resource::cpu_wait_calls);
}

TEST(BindingResourceTest, OverflowPollsTakingTheCpuNameTheSignalQueue) {
  const auto flooded = run_with(0.05, 0, 0.6, 0, 0.3, 1200);
  EXPECT_EQ(binding_resource(flooded), resource::signal_queue);
  EXPECT_EQ(describe(resource::signal_queue, flooded),
            "rtsig's signal queue (1200 overflows/s, each a full poll; 63% of the CPUs' time in them)");
  // A few overflows whose polls cost less than the handlers do not bind.
  EXPECT_EQ(binding_resource(run_with(0.05, 0, 0.1, 0, 0.8, 10)), resource::cpu_handlers);
}

TEST(BindingResourceTest, ASharedSetHeldAllTheTimeIsNamedBeforeTheCpus) {
  // Four threads on one epoll instance: its serial part held 97% of the time while the CPUs
  // are 40% busy. More CPUs would not help; the instance ran out.
  auto held = run_with(0.3, 0, 0, 0, 0.1);
  held.shared_set_busy = 0.97;
  held.shared_set_wait_s = 21e-6;
  EXPECT_EQ(binding_resource(held), resource::shared_set);
  EXPECT_EQ(to_string(resource::shared_set), "shared_set");
  EXPECT_EQ(describe(resource::shared_set, held),
            "the set every thread shares: its serial part held 97% of the time, a pass waiting 21 us for it, with the "
            "CPUs 40% busy");
  // Held less than the CPUs are busy, or below the threshold: the CPUs are named as before.
  auto busy_cpus = run_with(0.6, 0, 0, 0, 0.38);
  busy_cpus.shared_set_busy = 0.95;
  EXPECT_EQ(binding_resource(busy_cpus), resource::cpu_wait_calls);
  held.shared_set_busy = 0.5;
  EXPECT_EQ(binding_resource(held), resource::latency);
}

TEST(BindingResourceTest, TheJsonCarriesTheResourceAndTheSplit) {
  const auto j = binding_json(resource::cpu_handlers, run_with(0.1, 0.02, 0, 0, 0.85));
  EXPECT_EQ(j["resource"], "cpu_handlers");
  EXPECT_DOUBLE_EQ(j["cpu_by_use"]["handlers"].get<double>(), 0.85);
  EXPECT_DOUBLE_EQ(j["cpu_by_use"]["rescans"].get<double>(), 0.02);
  EXPECT_EQ(j["cpu_by_use"].size(), 5U);
}

}  // namespace
}  // namespace pollscale::studies
