#include "model/row_filter.hpp"

#include <gtest/gtest.h>

namespace pollscale::model {
namespace {

observation row(std::int64_t n, const std::string& mechanism, const std::string& platform = "") {
  observation o;
  o.k.scenario = "find_active";
  o.k.mechanism = mechanism;
  o.k.n_fds = n;
  o.k.metric = "time_per_call";
  o.k.unit = "ns";
  o.platform = platform;
  return o;
}

bool pass(const std::string& expr, const observation& o, const column_extremes& e = {}) {
  return row_filter::parse(expr)(o, e);
}

TEST(RowFilterTest, ComparesNumbers) {
  EXPECT_TRUE(pass("n_fds<=1000", row(1000, "poll")));
  EXPECT_FALSE(pass("n_fds<1000", row(1000, "poll")));
  EXPECT_TRUE(pass("n_fds > 10", row(11, "poll")));
  EXPECT_TRUE(pass("n_fds>=1e3", row(1000, "poll")));
  EXPECT_TRUE(pass("n_fds==1000", row(1000, "poll")));
  EXPECT_TRUE(pass("n_fds=1000", row(1000, "poll")));
  EXPECT_TRUE(pass("n_fds!=5", row(1000, "poll")));
}

TEST(RowFilterTest, CombinesWithAndOrNotAndParentheses) {
  const auto o = row(500, "poll");
  EXPECT_TRUE(pass("n_fds<=1000 && mechanism==poll", o));
  EXPECT_FALSE(pass("n_fds<=1000 and mechanism==epoll", o));
  EXPECT_TRUE(pass("mechanism==epoll || n_fds<600", o));
  EXPECT_TRUE(pass("mechanism=='poll', n_fds<600", o));
  EXPECT_TRUE(pass("!(mechanism==epoll)", o));
  EXPECT_FALSE(pass("not (n_fds<600 or mechanism==epoll)", o));
  EXPECT_TRUE(pass("platform==\"dual Pentium III 650 MHz\"", row(5, "poll", "dual Pentium III 650 MHz")));
}

TEST(RowFilterTest, MaxAndMinReferToTheGroup) {
  const auto f = row_filter::parse("n_fds<max");
  ASSERT_EQ(f.columns_needing_extremes(), std::vector<std::string>{"n_fds"});
  const auto a = row(100, "poll"), b = row(1000, "poll"), c = row(10000, "poll");
  const auto ext = extremes_of({&a, &b, &c}, {"n_fds"});
  EXPECT_TRUE(f(a, ext));
  EXPECT_TRUE(f(b, ext));
  EXPECT_FALSE(f(c, ext));
  EXPECT_TRUE(row_filter::parse("n_fds==min")(a, ext));
}

TEST(RowFilterTest, ModulusOfTheNRankPicksEveryOtherN) {
  observation_set set;
  for (std::int64_t n : {10, 100, 1000, 10000}) set.rows.push_back(row(n, "poll"));
  set.rows.push_back(row(100, "epoll"));  // another cell: ranked on its own
  rank_n_within_cells(set);
  EXPECT_EQ(set.rows[2].n_rank, 2);
  EXPECT_EQ(set.rows[4].n_rank, 0);
  const auto f = row_filter::parse("n_rank%2==0");
  EXPECT_TRUE(f(set.rows[0], {}));
  EXPECT_FALSE(f(set.rows[1], {}));
  EXPECT_TRUE(f(set.rows[2], {}));
  EXPECT_TRUE(f(set.rows[4], {}));
  EXPECT_TRUE(pass("n_fds % 3 == 1", row(1000, "poll")));
  EXPECT_THROW(row_filter::parse("n_rank%0==0"), std::invalid_argument);
  EXPECT_THROW(row_filter::parse("n_rank%2==max"), std::invalid_argument);
}

TEST(RowFilterTest, AnEmptyColumnDoesNotConstrainTheRow) {
  observation ipc;
  ipc.k.scenario = "ipc";
  EXPECT_TRUE(pass("n_fds<=1000", ipc));
  EXPECT_TRUE(pass("n_fds>1000", ipc));
}

TEST(RowFilterTest, BadExpressionsAreOneLineErrorsNamingTheCulprit) {
  const std::vector<std::pair<std::string, std::string>> cases = {{"n_fd<=1000", "unknown column 'n_fd'"},
                                                                  {"n_fds<=", "expected a value"},
                                                                  {"n_fds 1000", "expected <"},
                                                                  {"(n_fds<=1000", "missing ')'"},
                                                                  {"n_fds<=1000 &&", "expected a column"},
                                                                  {"mechanism<poll", "text compares only"},
                                                                  {"n_fds<=1000 junk", "unexpected 'junk'"},
                                                                  {"platform=='open", "unterminated quote"},
                                                                  {"   ", "empty expression"}};
  for (const auto& [expr, why] : cases) {
    try {
      row_filter::parse(expr);
      ADD_FAILURE() << expr;
    } catch (const std::invalid_argument& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find(why), std::string::npos) << expr << " -> " << w;
      EXPECT_EQ(w.find('\n'), std::string::npos);
      EXPECT_EQ(w.rfind("--train", 0), 0u) << w;
    }
  }
}

}  // namespace
}  // namespace pollscale::model
