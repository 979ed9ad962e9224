// How a calibration speaks to the person waiting for it while it runs. The library says
// what happened — the point about to be measured with an estimate of the time left, a
// probe that failed, the end of the run — and the app decides how to show it: a progress
// line redrawn on a terminal, failures alone in a pipe or a log. calibrate/ itself never
// writes to stderr; what it measured and what went wrong are also in the dataset's context.
#pragma once

#include <cstddef>
#include <string>

#include "datasets/schema.hpp"

namespace pollscale::calibrate {

class reporter {
 public:
  virtual ~reporter() = default;
  /// The visit of `point` starts; `done` visits of `total` are behind. `eta_s`: seconds
  /// left at the pace so far, NaN before the first visit.
  virtual void visit_started(std::size_t done, std::size_t total, double eta_s, const datasets::key& point) = 0;
  /// A probe failed (a wrong answer, a system call that failed): "<point>: <what>". The run
  /// goes on; the command exits 1 at the end.
  virtual void probe_failed(const std::string& what) = 0;
  /// The last visit is over (or the run was interrupted).
  virtual void finished() = 0;
};

/// Says nothing: for callers that read the outcome instead (tests, benchmarks).
class silent_reporter final : public reporter {
 public:
  void visit_started(std::size_t, std::size_t, double, const datasets::key&) override {}
  void probe_failed(const std::string&) override {}
  void finished() override {}
};

}  // namespace pollscale::calibrate
