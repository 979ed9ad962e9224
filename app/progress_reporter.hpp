// How `calibrate` (and the study's calibration) shows a run to the person waiting: on a
// terminal, one progress line redrawn in place ("[ 412/2331] ETA 1m52s find_active/poll/
// pipe n=1000 ..."), cleared before any other message; elsewhere (a pipe, a log, --no-
// progress) only what went wrong. Every line goes to stderr: stdout is for data.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "calibrate/reporter.hpp"

namespace pollscale::app {

class stderr_reporter final : public calibrate::reporter {
 public:
  /// `live`: redraw a progress line (stderr is a terminal and progress was not refused).
  explicit stderr_reporter(bool live, std::FILE* out = stderr) : live_(live), out_(out) {}
  void visit_started(std::size_t done, std::size_t total, double eta_s, const datasets::key& point) override;
  void probe_failed(const std::string& what) override;
  void finished() override;

 private:
  void clear_line();
  bool live_;
  std::FILE* out_;
  bool drawn_ = false;
};

/// A progress line for work counted in steps (fit's cells): "pollscale fit: cell 12/133,
/// ETA 4s", redrawn at most every 0.2 s while stderr is a terminal, cleared at the last
/// step. Not live: nothing. The function is what a library's progress callback takes.
std::function<void(std::size_t done, std::size_t total)> step_progress(std::string label, const char* unit, bool live,
                                                                       std::FILE* out = stderr);

/// "1m52s", "7s"; "?" for an unknown or negative time.
std::string eta_text(double seconds);

}  // namespace pollscale::app
