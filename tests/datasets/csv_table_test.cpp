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

// Record by record: the same records and lines as parse_csv, the header handed along; an
// exception from the sink stops the parse and reaches the caller (it is carried past
// libcsv's C frames, not thrown through them); a header alone is a file of no records.
TEST(CsvTableTest, StreamsRecordsAndPropagatesTheSinksError) {
  const std::string text = "a,b\n1,\"x,y\"\n\n2,3\n";
  std::vector<std::size_t> lines;
  const auto head = for_each_csv_record(text, "s.csv", [&](const csv_table& h, csv_record& r) {
    EXPECT_EQ(h.header, (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(h.records.empty());
    lines.push_back(r.line);
  });
  EXPECT_EQ(lines, (std::vector<std::size_t>{2, 4}));
  EXPECT_EQ(head.header.size(), 2u);
  int seen = 0;
  EXPECT_THROW(for_each_csv_record(text, "s.csv",
                                   [&](const csv_table& h, csv_record& r) {
                                     ++seen;
                                     throw input_error(h.where(r) + "refused");
                                   }),
               input_error);
  EXPECT_EQ(seen, 1);
  try {
    for_each_csv_record("a,b\n1,2\n3\n", "bad.csv", [](const csv_table&, csv_record&) {});
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "bad.csv:3: expected 2 fields, found 1");
  }
  EXPECT_TRUE(parse_csv("a,b\n", "h.csv").records.empty());
  EXPECT_THROW(for_each_csv_record("", "e.csv", [](const csv_table&, csv_record&) {}), input_error);
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
