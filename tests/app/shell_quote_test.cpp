// shell_quote: every word comes back from a real POSIX shell exactly as it went in.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "app/shell_quote.hpp"

namespace pollscale::app {
namespace {

// What `sh -c 'printf %s WORD'` prints for the quoted word.
std::string through_shell(const std::string& quoted) {
  const std::string cmd = "printf %s " + quoted;
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, got);
  ::pclose(p);
  return out;
}

TEST(ShellQuoteTest, PlainWordsStayAsTheyAre) {
  EXPECT_EQ(shell_quote("validate"), "validate");
  EXPECT_EQ(shell_quote("--train"), "--train");
  EXPECT_EQ(shell_quote("out/s2/model.json"), "out/s2/model.json");
  EXPECT_EQ(shell_quote("idle=0,1000"), "idle=0,1000");
}

TEST(ShellQuoteTest, EveryOtherWordSurvivesTheShell) {
  for (const std::string word : {"n_fds<=1000", "n_rank%2==0 || n_fds==max || n_active>1", "Gooch's patch", "", "a b",
                                 "$HOME", "`id`", "x;y", "back\\slash", "\"double\"", "'", "''", "*", "~"}) {
    SCOPED_TRACE(word);
    const std::string q = shell_quote(word);
    EXPECT_NE(q, word);
    EXPECT_EQ(through_shell(q), word);
  }
}

}  // namespace
}  // namespace pollscale::app
