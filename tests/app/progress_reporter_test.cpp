// The calibration's voice on stderr: a live line on a terminal, cleared before a failure
// and at the end; nothing but failures elsewhere.

#include "app/progress_reporter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace pollscale::app {
namespace {

std::string text_of(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

datasets::key point() {
  datasets::key k;
  k.scenario = "find_active";
  k.mechanism = "poll";
  k.n_fds = 1000;
  return k;
}

TEST(ProgressReporterTest, DrawsAndClearsOneLineOnATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  stderr_reporter r(true, f);
  r.visit_started(0, 10, NAN, point());
  r.visit_started(1, 10, 125, point());
  r.probe_failed("find_active/poll n=1000: wrong answer");
  r.finished();
  const std::string label = datasets::describe(point());
  EXPECT_EQ(text_of(f), "\r\033[K[   1/10] ETA ?       " + label + "\r\033[K[   2/10] ETA 2m5s    " + label +
                            "\r\033[Kpollscale: probe failed: find_active/poll n=1000: wrong answer\n");
  std::fclose(f);
}

TEST(ProgressReporterTest, SaysOnlyWhatWentWrongElsewhere) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  stderr_reporter r(false, f);
  r.visit_started(0, 10, 3, point());
  r.probe_failed("x: y");
  r.finished();
  EXPECT_EQ(text_of(f), "pollscale: probe failed: x: y\n");
  std::fclose(f);
  EXPECT_EQ(eta_text(59.6), "1m0s");
  EXPECT_EQ(eta_text(7), "7s");
  EXPECT_EQ(eta_text(-1), "?");
}

}  // namespace
}  // namespace pollscale::app
