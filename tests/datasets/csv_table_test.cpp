#include "datasets/csv_table.hpp"

#include <gtest/gtest.h>

namespace pollscale::datasets {
namespace {

TEST(CsvTableTest, ParsesQuotedFieldsAndRemembersLines) {
  const auto t = parse_csv("a,b\n1,\"x,y\"\n\n2,\"say \"\"hi\"\"\"\n", "t.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].fields[1], "x,y");
  EXPECT_EQ(t.records[0].line, 2u);
  EXPECT_EQ(t.records[1].fields[1], "say \"hi\"");
  EXPECT_EQ(t.records[1].line, 4u);
  EXPECT_EQ(t.where(t.records[1]), "t.csv:4: ");
}

TEST(CsvTableTest, RejectsWrongFieldCountNamingTheLine) {
  try {
    parse_csv("a,b\n1,2\n3\n", "bad.csv");
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "bad.csv:3: expected 2 fields, found 1");
  }
}

TEST(CsvTableTest, RejectsUnterminatedQuoteAndEmptyInput) {
  EXPECT_THROW(parse_csv("a,b\n1,\"open\n", "q.csv"), input_error);
  EXPECT_THROW(parse_csv("", "e.csv"), input_error);
  EXPECT_THROW(read_csv("/nonexistent/x.csv"), input_error);
}

TEST(CsvTableTest, EscapeRoundTrips) {
  for (std::string s : {"plain", "a,b", "q\"uote", "line\nbreak", ""}) {
    const auto t = parse_csv("h,x\n" + csv_escape(s) + ",1\n", "r.csv");
    ASSERT_EQ(t.records.size(), 1u);
    EXPECT_EQ(t.records[0].fields[0], s);
  }
}

TEST(CsvTableTest, RequireColumnNamesFile) {
  const auto t = parse_csv("a\n1\n", "c.csv");
  EXPECT_EQ(t.require_column("a"), 0u);
  try {
    (void)t.require_column("zz");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "c.csv:1: missing column 'zz'");
  }
}

}  // namespace
}  // namespace pollscale::datasets
