#include "model/working_set.hpp"

#include <gtest/gtest.h>

#include "model/fit.hpp"
#include "tests/model/synthetic.hpp"

namespace pollscale::model {
namespace {

TEST(WorkingSetTest, CachesComeFromTheContextOnePerLevel) {
  nlohmann::json ctx = test::cache_context();
  ctx["caches"].push_back({{"level", 1}, {"type", "Instruction"}, {"size_bytes", 32768}});
  ctx["caches"].push_back({{"level", 4}, {"type", "Unified"}, {"size_bytes", -5}});  // ignored
  const auto c = caches_from_context(ctx);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].level, 1);
  EXPECT_DOUBLE_EQ(c[0].size_bytes, 49152);
  EXPECT_DOUBLE_EQ(c[2].size_bytes, 32 << 20);
  EXPECT_TRUE(caches_from_context(nlohmann::json::object()).empty());
  EXPECT_TRUE(caches_from_context({{"caches", "L2 1M"}}).empty());
}

TEST(WorkingSetTest, DefaultCurveStartsAtL2) {
  const auto curve = make_latency_curve(caches_from_context(test::cache_context()), {});
  ASSERT_TRUE(curve);
  EXPECT_FALSE(curve->measured);
  ASSERT_EQ(curve->knots.size(), 2u);  // L2 and L3; L1 misses are overlapped
  EXPECT_DOUBLE_EQ(curve->knots[0].first, 1 << 20);
  EXPECT_GT(curve->knots[1].second, curve->knots[0].second);  // missing the LLC costs more
  EXPECT_FALSE(make_latency_curve({{1, 49152}}, {}));           // only L1: no curve
}

TEST(WorkingSetTest, AMeasuredMemoryLatencyCurveIsUsedWhenPresent) {
  const std::vector<latency_point> probe = {{16384, 1.2}, {262144, 3.5}, {4 << 20, 14.0}, {256 << 20, 95.0}};
  const auto curve = make_latency_curve(caches_from_context(test::cache_context()), probe);
  ASSERT_TRUE(curve);
  EXPECT_TRUE(curve->measured);
  ASSERT_EQ(curve->knots.size(), 4u);
  // Minus the L2-resident latency (at 512 KiB, interpolated between 3.5 and 14 ns).
  EXPECT_DOUBLE_EQ(curve->knots[0].second, 0);
  EXPECT_DOUBLE_EQ(curve->knots[2].second, 14.0 - (3.5 + 0.25 * 10.5));
  // From the context too.
  nlohmann::json ctx = test::cache_context();
  ctx["memory_latency"] = {{{"size_bytes", 16384}, {"ns", 1.2}}, {{"size_bytes", 4 << 20}, {"ns", 14.0}}};
  EXPECT_EQ(latency_points_from_context(ctx).size(), 2u);
}

TEST(WorkingSetTest, TheMeasuredCurveChangesThePredictedStep) {
  // The same small-n data predict a bigger step when the probe says memory is slower.
  const auto truth = [](double n, double) { return 170 + 30 * n; };
  auto fit_with = [&](double llc_ns) {
    observation_set s;
    s.context = test::cache_context();
    s.context["memory_latency"] = {{{"size_bytes", 65536}, {"ns", 1.0}},
                                   {{"size_bytes", 512 << 10}, {"ns", 3.0}},
                                   {{"size_bytes", 8 << 20}, {"ns", 3.0 + llc_ns}}};
    std::mt19937_64 rng(3);
    test::add_points(s, test::cell_key("poll"), {1, 10, 100, 300, 1000}, {1}, truth, 0.005, rng);
    const auto m = fit_models(s);
    return m.cells.at(0);
  };
  const point far{16000, 1, 8000, 0};
  double slow = 0, fast = 0;
  for (const auto& t : fit_with(30).terms) slow += t.coefficient * t.b(far);
  for (const auto& t : fit_with(5).terms) fast += t.coefficient * t.b(far);
  EXPECT_GT(slow, fast * 1.2);
}

TEST(WorkingSetTest, OnlyScanningMechanismsGetTheTerm) {
  EXPECT_TRUE(scans_every_fd("poll"));
  EXPECT_TRUE(scans_every_fd("select"));
  EXPECT_TRUE(scans_every_fd("devpoll"));
  EXPECT_FALSE(scans_every_fd("epoll"));
  EXPECT_FALSE(scans_every_fd("io_uring"));
  EXPECT_GT(footprint_for("socketpair").bytes_per_fd, footprint_for("eventfd").bytes_per_fd);
  EXPECT_DOUBLE_EQ(ns_to_unit("us"), 1e-3);
  EXPECT_DOUBLE_EQ(ns_to_unit("1/s"), 0);
}

}  // namespace
}  // namespace pollscale::model
