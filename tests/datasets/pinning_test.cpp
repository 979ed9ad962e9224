// The pinning column's one grammar: CPU numbers joined by '+', "" for unpinned.

#include "datasets/pinning.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "datasets/schema.hpp"

namespace pollscale::datasets {
namespace {

TEST(PinningTest, ReadsAndWritesTheColumn) {
  const auto one = pinning::parse("3");
  EXPECT_EQ(one.cpus(), std::vector<int>{3});
  EXPECT_TRUE(one.same_cpu());
  EXPECT_FALSE(one.is_pair());
  EXPECT_EQ(one.distinct_cpus(), 1u);
  const auto cross = pinning::parse("2+7");
  EXPECT_TRUE(cross.is_pair());
  EXPECT_FALSE(cross.same_cpu());
  EXPECT_EQ(cross.distinct_cpus(), 2u);
  EXPECT_EQ(cross.text(), "2+7");
  EXPECT_EQ(pinning::parse("5+5"), pinning::pair(5, 5));
  EXPECT_TRUE(pinning::pair(5, 5).same_cpu());
  EXPECT_EQ(pinning::on(12).text(), "12");
  EXPECT_TRUE(pinning::parse("").empty());
  EXPECT_FALSE(pinning::parse("").same_cpu());
  EXPECT_EQ(pinning::parse("").text(), "");
  EXPECT_EQ(pinning::parse("0+1+1").distinct_cpus(), 2u);
}

TEST(PinningTest, RefusesAnythingElseQuotingIt) {
  for (const char* bad :
       {"+", "0+", "+1", "0++1", "a", "0+b", "-1", "0+-1", " 0", "0 ", "1.5", "65536", "99999999999"}) {
    SCOPED_TRACE(bad);
    try {
      pinning::parse(bad);
      FAIL() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(pinning::on(-1), std::invalid_argument);
  EXPECT_THROW(pinning::pair(0, pinning::max_cpu + 1), std::invalid_argument);
}

TEST(PinningTest, TheKeyColumnIsCheckedAndWrittenCanonically) {
  key k;
  set_key_field(k, "pinning", "0+1");
  EXPECT_EQ(k.pinning, "0+1");
  set_key_field(k, "pinning", "007");
  EXPECT_EQ(k.pinning, "7");
  EXPECT_THROW(set_key_field(k, "pinning", "0-1"), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::datasets
