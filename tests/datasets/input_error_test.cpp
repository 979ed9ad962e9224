// One type for bad input: where it is (source, line) and what is wrong, in one line.

#include "datasets/input_error.hpp"

#include <gtest/gtest.h>

#include "datasets/csv_table.hpp"

namespace pollscale::datasets {
namespace {

TEST(InputErrorTest, NamesTheSourceAndLine) {
  const input_error at_line("data/summary.csv", 12, "column 'n_fds': '-3' is not a non-negative integer");
  EXPECT_STREQ(at_line.what(), "data/summary.csv:12: column 'n_fds': '-3' is not a non-negative integer");
  EXPECT_EQ(at_line.source(), "data/summary.csv");
  EXPECT_EQ(at_line.line(), 12u);
  EXPECT_EQ(at_line.detail(), "column 'n_fds': '-3' is not a non-negative integer");
  const input_error whole_file("costs.json", 0, "not valid JSON");
  EXPECT_STREQ(whole_file.what(), "costs.json: not valid JSON");
  const input_error preformatted("--rate: must be > 0");
  EXPECT_STREQ(preformatted.what(), "--rate: must be > 0");
  EXPECT_EQ(preformatted.line(), 0u);
  EXPECT_TRUE(preformatted.source().empty());
}

TEST(InputErrorTest, TheCsvReaderThrowsItWithTheLine) {
  try {
    parse_csv("a,b\n1,2\n\"3,4\n", "t.csv");
    FAIL() << "an unterminated quote was accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.source(), "t.csv");
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(e.detail(), "malformed CSV: unterminated quoted field");
  }
  try {
    parse_csv("", "empty.csv");
    FAIL() << "an empty file was accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "empty.csv:1: empty file, no header");
  }
}

}  // namespace
}  // namespace pollscale::datasets
