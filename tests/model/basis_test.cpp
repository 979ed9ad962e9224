#include "model/basis.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace pollscale::model {
namespace {

datasets::key key_with(std::int64_t n, std::int64_t k, const std::string& pos) {
  datasets::key q;
  q.n_fds = n;
  q.n_active = k;
  q.active_pos = pos;
  return q;
}

TEST(BasisTest, PointOfDerivesPositionsAndBitmapWords) {
  EXPECT_DOUBLE_EQ(point_of(key_with(1000, 1, "first")).p, 1);
  EXPECT_DOUBLE_EQ(point_of(key_with(1000, 1, "middle")).p, 500);
  EXPECT_DOUBLE_EQ(point_of(key_with(1000, 1, "last")).p, 1000);
  EXPECT_DOUBLE_EQ(point_of(key_with(1000, 10, "top")).p, 991);
  EXPECT_DOUBLE_EQ(point_of(key_with(1000, 9, "spread")).p, 100);
  auto q = key_with(1000, 1, "");
  EXPECT_DOUBLE_EQ(point_of(q).words, std::ceil(1003.0 / 64));  // max_fd defaults to n + 2
  q.max_fd = 5000;
  EXPECT_DOUBLE_EQ(point_of(q).words, std::ceil(5001.0 / 64));
  EXPECT_DOUBLE_EQ(point_of(datasets::key{}).k, 1);  // absent n_active: one ready fd
}

TEST(BasisTest, EvaluatesEachKind) {
  const point x{1024, 4, 512, 17};
  basis b;
  EXPECT_DOUBLE_EQ(b(x), 1);
  b.kind = basis_kind::per_fd;
  EXPECT_DOUBLE_EQ(b(x), 1024);
  b.kind = basis_kind::log_n;
  EXPECT_DOUBLE_EQ(b(x), 10);
  b.kind = basis_kind::fd_per_ready;
  EXPECT_DOUBLE_EQ(b(x), 256);
  b.kind = basis_kind::power_log;
  b.i = 1.5;
  b.j = 1;
  EXPECT_DOUBLE_EQ(b(x), std::pow(1024.0, 1.5) * 10);
  b = basis{};
  b.kind = basis_kind::overflow;
  b.threshold = 3;
  EXPECT_DOUBLE_EQ(b(x), 1024);
  b.threshold = 4;
  EXPECT_DOUBLE_EQ(b(x), 0);
}

TEST(BasisTest, WorkingSetTermIsZeroInsideL2AndGrowsBeyond) {
  basis b;
  b.kind = basis_kind::working_set;
  b.bytes_per_fd = 256;
  b.latency = {{1 << 20, 9.0}, {32 << 20, 75.0}};
  EXPECT_DOUBLE_EQ(b(point{1000, 1, 0, 0}), 0);  // 256 KB: inside L2
  const double n = 8192;                         // 2 MiB: half misses L2
  EXPECT_DOUBLE_EQ(b(point{n, 1, 0, 0}), n * 9.0 * 0.5);
  b.latency_scale = 1e-3;  // the same in microseconds
  EXPECT_DOUBLE_EQ(b(point{n, 1, 0, 0}), n * 9.0 * 0.5 * 1e-3);
}

TEST(BasisTest, MeasuredLatencyIsInterpolatedInLogSize) {
  basis b;
  b.kind = basis_kind::working_set;
  b.bytes_per_fd = 1;
  b.latency_measured = true;
  b.latency = {{1000, 0.0}, {4000, 10.0}};
  EXPECT_DOUBLE_EQ(b(point{500, 1, 0, 0}), 0);             // flat below
  EXPECT_NEAR(b(point{2000, 1, 0, 0}), 2000 * 5.0, 1e-9);  // halfway in log size
  EXPECT_DOUBLE_EQ(b(point{8000, 1, 0, 0}), 8000 * 10.0);  // flat above
}

TEST(BasisTest, JsonRoundTripKeepsParameters) {
  basis b;
  b.kind = basis_kind::working_set;
  b.bytes_per_fd = 272;
  b.latency = {{1 << 20, 9.0}, {32 << 20, 75.0}};
  b.latency_scale = 1e-3;
  const basis c = basis_from_json(basis_to_json(b));
  EXPECT_EQ(c.kind, b.kind);
  EXPECT_EQ(c.latency, b.latency);
  EXPECT_DOUBLE_EQ(c.bytes_per_fd, 272);
  EXPECT_DOUBLE_EQ(c.latency_scale, 1e-3);
  basis p;
  p.kind = basis_kind::power_log;
  p.i = 1.5;
  p.j = 2;
  EXPECT_EQ(basis_name(basis_from_json(basis_to_json(p))), "n^1.5*log2(n)^2");
}

TEST(BasisTest, MalformedJsonIsRejectedWithTheField) {
  EXPECT_THROW(basis_from_json({{"kind", "warp"}}), std::invalid_argument);
  EXPECT_THROW(basis_from_json({{"kind", "power_log"}, {"i", 1}}), std::invalid_argument);
  try {
    basis_from_json({{"kind", "overflow"}, {"threshold", "x"}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("threshold"), std::string::npos);
  }
}

TEST(BasisTest, UnitsAndNamesDescribeTheCoefficient) {
  basis b;
  b.kind = basis_kind::per_fd;
  EXPECT_EQ(basis_name(b), "per_fd");
  EXPECT_EQ(coefficient_unit(b, "ns"), "ns/fd");
  b.kind = basis_kind::per_ready;
  EXPECT_EQ(coefficient_unit(b, "us"), "us/event");
  b.kind = basis_kind::working_set;
  EXPECT_EQ(coefficient_unit(b, "ns"), "loads/fd");
  EXPECT_FALSE(basis_meaning(b).empty());
}

}  // namespace
}  // namespace pollscale::model
