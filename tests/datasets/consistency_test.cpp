#include "datasets/consistency.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "datasets/statistics.hpp"

namespace pollscale::datasets {
namespace {

key point(const std::string& mechanism, std::int64_t n, const std::string& metric, std::int64_t blocking = 0,
          std::optional<std::int64_t> max_fd = std::nullopt, const std::string& unit = "us") {
  key k;
  k.scenario = "find_active";
  k.mechanism = mechanism;
  k.fd_kind = "pipe";
  k.n_fds = n;
  k.n_active = 1;
  k.active_pos = "middle";
  k.max_fd = max_fd;
  k.blocking = blocking;
  k.threads = 1;
  k.cpus = 1;
  k.pinning = "0";
  k.metric = metric;
  k.unit = unit;
  return k;
}

/// A summary with the given median and 95% interval (the other fields follow from them).
summary_row row(const key& k, double median, double lo, double hi) {
  summary s;
  s.n = 15;
  s.median = s.mean = median;
  s.ci95_lo = s.min = lo;
  s.ci95_hi = s.max = hi;
  return {k, s};
}

/// A summary from repetitions, as the runner makes it.
summary_row measured(const key& k, const std::vector<double>& values) { return {k, summarise(values)}; }

TEST(ConsistencyTest, ConsistentSetGivesNoIssue) {
  const std::vector<summary_row> rows = {
      row(point("poll", 10, "time_per_call"), 1.0, 0.9, 1.1),
      row(point("poll", 100, "time_per_call"), 2.0, 1.9, 2.1),
      row(point("poll", 1000, "time_per_call"), 12.0, 11.5, 12.5),
      row(point("poll", 10, "time_per_op"), 3.0, 2.9, 3.1),
      row(point("poll", 100, "time_per_op"), 4.0, 3.9, 4.1),
      row(point("poll", 1000, "time_per_op"), 14.0, 13.5, 14.5),
      row(point("poll", 10, "time_per_op", 1), 6.0, 5.8, 6.2),
      row(point("poll", 1000, "time_per_op", 1), 17.0, 16.5, 17.5),
  };
  EXPECT_TRUE(check_consistency(rows).empty());
}

TEST(ConsistencyTest, OpBelowCallIsFlaggedOnTheOpWithTheCallAsOther) {
  const key call = point("poll", 1168, "time_per_call");
  const key op = point("poll", 1168, "time_per_op");
  const std::vector<summary_row> rows = {row(call, 15.8, 15.0, 16.4), row(op, 9.6, 9.1, 10.2)};
  const auto issues = check_consistency(rows);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].k, op);
  EXPECT_EQ(issues[0].other, call);
  EXPECT_EQ(issues[0].rule, rule_op_below_call);
  EXPECT_TRUE(issues[0].beyond_intervals);
  EXPECT_EQ(issues[0].detail, "time_per_op 9.6 us < time_per_call 15.8 us at n=1168 (95% [9.1, 10.2] vs [15, 16.4])");
}

TEST(ConsistencyTest, OpBelowCallByMediansOnlyIsNotBeyondIntervals) {
  const key call = point("poll", 100, "time_per_call");
  const key op = point("poll", 100, "time_per_op");
  // Medians 15.5 < 15.8, but the op's interval reaches 16.5, above the call's 15.2.
  const auto issues = check_consistency({row(call, 15.8, 15.2, 16.4), row(op, 15.5, 15.0, 16.5)});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].rule, rule_op_below_call);
  EXPECT_FALSE(issues[0].beyond_intervals);
  // Equal medians break nothing.
  EXPECT_TRUE(check_consistency({row(call, 15.8, 15.2, 16.4), row(op, 15.8, 15.0, 16.5)}).empty());
}

TEST(ConsistencyTest, DifferentMaxFdStillMatchesTheSameSetUp) {
  // select's op set-up opens its pipe after the parked range: the highest fd differs.
  const key call = point("select", 1000, "time_per_call", 0, 1003);
  const key op = point("select", 1000, "time_per_op", 0, 1005);
  const auto issues = check_consistency({row(call, 20.0, 19.5, 20.5), row(op, 18.0, 17.5, 18.5)});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].k, op);
  EXPECT_EQ(issues[0].other, call);
  EXPECT_TRUE(issues[0].beyond_intervals);
}

TEST(ConsistencyTest, OpBelowCallComparesOnlyTheSameSetUpAtTimeout0) {
  const std::vector<summary_row> rows = {
      row(point("poll", 100, "time_per_call"), 15.8, 15.0, 16.4),
      row(point("epoll", 100, "time_per_op"), 9.6, 9.1, 10.2),        // another mechanism
      row(point("poll", 1000, "time_per_op"), 9.6, 9.1, 10.2),        // another n
      row(point("poll", 100, "time_per_call", 1), 30.0, 29.0, 31.0),  // a sleeping call ...
  };
  EXPECT_TRUE(check_consistency(rows).empty());
  // ... and a sleeping op is not held against the timeout-0 call by this rule.
  std::vector<summary_row> with_blocking_op = rows;
  with_blocking_op.push_back(row(point("poll", 100, "time_per_op", 1), 9.6, 9.1, 10.2));
  for (const auto& i : check_consistency(with_blocking_op)) EXPECT_NE(i.rule, rule_op_below_call) << i.detail;
}

TEST(ConsistencyTest, DecreasingInNIsFlaggedOnlyBeyondIntervalsAgainstThePreviousN) {
  const key n10 = point("poll", 10, "time_per_call");
  const key n100 = point("poll", 100, "time_per_call");
  const key n1000 = point("poll", 1000, "time_per_call");
  const key n10000 = point("poll", 10000, "time_per_call");
  const std::vector<summary_row> rows = {
      row(n1000, 5.5, 5.4, 5.6),  // below n=100 beyond both intervals
      row(n10, 5.0, 4.8, 5.2), row(n100, 6.0, 5.9, 6.1),
      row(n10000, 5.45, 5.3, 5.7),  // median below n=1000, intervals overlap: noise
  };
  const auto issues = check_consistency(rows);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].k, n1000);
  EXPECT_EQ(issues[0].other, n100);  // the previous n, not the first one (n=10, 5.0 < 5.5)
  EXPECT_EQ(issues[0].rule, rule_decreasing_in_n);
  EXPECT_TRUE(issues[0].beyond_intervals);
  EXPECT_NE(issues[0].detail.find("n=1000"), std::string::npos) << issues[0].detail;
  EXPECT_NE(issues[0].detail.find("n=100)"), std::string::npos) << issues[0].detail;
}

TEST(ConsistencyTest, DecreasingInNIgnoresMaxFdAndAppliesToTimePerOp) {
  const key n10 = point("select", 10, "time_per_op", 0, 13);
  const key n100 = point("select", 100, "time_per_op", 0, 103);
  const auto issues = check_consistency({row(n10, 8.0, 7.8, 8.2), row(n100, 6.0, 5.9, 6.1)});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].k, n100);
  EXPECT_EQ(issues[0].other, n10);
  EXPECT_EQ(issues[0].rule, rule_decreasing_in_n);
}

TEST(ConsistencyTest, EpollFlatSeriesWithCrossingMediansIsNotFlagged) {
  const std::vector<double> a = {300, 296, 304, 299, 301, 298, 302, 297, 303, 300};
  const std::vector<double> b = {298, 295, 303, 297, 299, 296, 301, 294, 302, 298};
  const std::vector<double> c = {301, 297, 305, 300, 302, 299, 303, 298, 304, 301};
  const std::vector<double> d = {297, 294, 302, 296, 298, 295, 300, 293, 301, 297};
  std::vector<summary_row> rows = {
      measured(point("epoll", 10, "time_per_call", 0, std::nullopt, "ns"), a),
      measured(point("epoll", 100, "time_per_call", 0, std::nullopt, "ns"), b),
      measured(point("epoll", 1000, "time_per_call", 0, std::nullopt, "ns"), c),
      measured(point("epoll", 10000, "time_per_call", 0, std::nullopt, "ns"), d),
  };
  ASSERT_LT(rows[1].s.median, rows[0].s.median);  // the medians do cross
  ASSERT_LT(rows[3].s.median, rows[2].s.median);
  EXPECT_TRUE(check_consistency(rows).empty());
}

TEST(ConsistencyTest, BlockingBelowTimeout0IsFlagged) {
  const key t0 = point("poll", 100, "time_per_op", 0, 104);
  const key sleeping = point("poll", 100, "time_per_op", 1, 105);
  auto issues = check_consistency({row(t0, 3.0, 2.9, 3.1), row(sleeping, 2.0, 1.9, 2.1)});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].k, sleeping);
  EXPECT_EQ(issues[0].other, t0);
  EXPECT_EQ(issues[0].rule, rule_blocking_below_timeout0);
  EXPECT_TRUE(issues[0].beyond_intervals);

  issues = check_consistency({row(t0, 3.0, 2.9, 3.1), row(sleeping, 2.95, 2.8, 3.3)});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].rule, rule_blocking_below_timeout0);
  EXPECT_FALSE(issues[0].beyond_intervals);
}

TEST(ConsistencyTest, AbsentBlockingIsReadAsTimeout0) {
  key t0 = point("poll", 100, "time_per_op");
  t0.blocking.reset();
  const key sleeping = point("poll", 100, "time_per_op", 1);
  const auto issues = check_consistency({row(t0, 3.0, 2.9, 3.1), row(sleeping, 2.0, 1.9, 2.1)});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].other, t0);
}

TEST(ConsistencyTest, RowsOfOtherScenariosAreIgnored) {
  std::vector<summary_row> rows = {
      row(point("poll", 100, "time_per_call"), 15.8, 15.0, 16.4),
      row(point("poll", 100, "time_per_op"), 9.6, 9.1, 10.2),
      row(point("poll", 1000, "time_per_op"), 5.0, 4.9, 5.1),
      row(point("poll", 100, "time_per_op", 1), 2.0, 1.9, 2.1),
  };
  ASSERT_EQ(check_consistency(rows).size(), 3u);  // the same rows as find_active break all three rules
  for (auto& r : rows) r.k.scenario = "token_ring";
  EXPECT_TRUE(check_consistency(rows).empty());
}

// cold_scan: a call after the eviction cheaper than back to back at the same n is flagged
// (by the medians already), and its series must not fall with n; warm rows at another n,
// or of another kind, are not its partners.
TEST(ConsistencyTest, AColdScanCheaperThanWarmIsFlagged) {
  const auto cold_key = [](const std::string& variant, std::int64_t n, const std::string& kind = "pipe") {
    key k = point("poll", n, "time_per_call", 0, std::nullopt, "ns");
    k.scenario = "cold_scan";
    k.variant = variant;
    k.fd_kind = kind;
    k.n_active = 0;
    k.active_pos.clear();
    return k;
  };
  std::vector<summary_row> rows = {
      row(cold_key("", 500), 15000, 14800, 15300),
      row(cold_key("cold", 500), 24000, 23500, 24500),
      row(cold_key("", 1000), 28000, 27500, 28600),
      row(cold_key("cold", 1000), 44000, 43000, 45000),
      row(cold_key("", 1000, "eventfd"), 50000, 49000, 51000),  // another kind: no partner of the pipes'
  };
  EXPECT_TRUE(check_consistency(rows).empty());
  rows[1] = row(cold_key("cold", 500), 14900, 14000, 15800);   // cold below warm by the medians only
  rows[3] = row(cold_key("cold", 1000), 20000, 19500, 20500);  // below warm beyond both intervals, and below n=500
  const auto issues = check_consistency(rows);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].k, cold_key("cold", 500));
  EXPECT_EQ(issues[0].other, cold_key("", 500));
  EXPECT_EQ(issues[0].rule, rule_cold_below_warm);
  EXPECT_FALSE(issues[0].beyond_intervals);
  EXPECT_EQ(issues[1].k, cold_key("cold", 1000));
  EXPECT_EQ(issues[1].rule, rule_cold_below_warm);
  EXPECT_TRUE(issues[1].beyond_intervals);
  EXPECT_EQ(issues[1].detail, "cold 20000 ns < warm 28000 ns at n=1000 (95% [19500, 20500] vs [27500, 28600])");
  rows[3] = row(cold_key("cold", 1000), 13000, 12500, 13500);  // now also below the cold n=500 beyond intervals
  const auto more = check_consistency(rows);
  EXPECT_EQ(std::count_if(more.begin(), more.end(), [](const auto& i) { return i.rule == rule_decreasing_in_n; }), 1);
}

TEST(ConsistencyTest, DifferentUnitsAreNeverCompared) {
  // As bare numbers each pair below would break a rule (9.6 < 15800, 6 < 5000, 2 < 3000).
  const std::vector<summary_row> rows = {
      row(point("poll", 100, "time_per_call", 0, std::nullopt, "ns"), 15800, 15000, 16400),
      row(point("poll", 100, "time_per_op", 0, std::nullopt, "us"), 9.6, 9.1, 10.2),
      row(point("select", 10, "time_per_call", 0, std::nullopt, "ns"), 5000, 4900, 5100),
      row(point("select", 100, "time_per_call", 0, std::nullopt, "us"), 6.0, 5.9, 6.1),
      row(point("epoll", 100, "time_per_op", 0, std::nullopt, "ns"), 3000, 2900, 3100),
      row(point("epoll", 100, "time_per_op", 1, std::nullopt, "us"), 2.0, 1.9, 2.1),
  };
  EXPECT_TRUE(check_consistency(rows).empty());
}

TEST(ConsistencyTest, IssuesAreSortedByKeyThenRule) {
  const std::vector<summary_row> rows = {
      row(point("select", 100, "time_per_call"), 10.0, 9.9, 10.1),
      row(point("select", 100, "time_per_op"), 5.0, 4.9, 5.1),  // op_below_call
      row(point("select", 10, "time_per_op"), 7.0, 6.9, 7.1),   // ... and decreasing_in_n at n=100
      row(point("poll", 100, "time_per_call"), 10.0, 9.9, 10.1),
      row(point("poll", 100, "time_per_op"), 5.0, 4.9, 5.1),
  };
  const auto issues = check_consistency(rows);
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].k.mechanism, "poll");
  EXPECT_EQ(issues[1].k, point("select", 100, "time_per_op"));
  EXPECT_EQ(issues[1].rule, rule_decreasing_in_n);
  EXPECT_EQ(issues[2].k, point("select", 100, "time_per_op"));
  EXPECT_EQ(issues[2].rule, rule_op_below_call);
  // The input order does not matter.
  const std::vector<summary_row> reversed(rows.rbegin(), rows.rend());
  const auto again = check_consistency(reversed);
  ASSERT_EQ(again.size(), issues.size());
  for (std::size_t i = 0; i < issues.size(); ++i) {
    EXPECT_EQ(again[i].k, issues[i].k);
    EXPECT_EQ(again[i].rule, issues[i].rule);
    EXPECT_EQ(again[i].detail, issues[i].detail);
  }
}

TEST(ConsistencyTest, MarksJoinEachRuleOnceSorted) {
  const key op = point("select", 100, "time_per_op", 0, 105);
  const key call = point("select", 100, "time_per_call", 0, 103);
  const std::vector<summary_row> rows = {
      row(call, 10.0, 9.9, 10.1),
      row(point("select", 100, "time_per_call", 0, 110), 10.5, 10.4, 10.6),  // a second call set-up
      row(op, 5.0, 4.9, 5.1),
      row(point("select", 10, "time_per_op", 0, 15), 7.0, 6.9, 7.1),
  };
  const auto issues = check_consistency(rows);
  ASSERT_EQ(issues.size(), 3u);  // op below both calls, and below n=10
  EXPECT_EQ(consistency_marks(issues, op), "decreasing_in_n;op_below_call");
  EXPECT_EQ(consistency_marks(issues, call), "");
  EXPECT_EQ(consistency_marks({}, op), "");
}

}  // namespace
}  // namespace pollscale::datasets
