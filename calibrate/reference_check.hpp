// The independent references of reference.hpp, paired with pollscale's own points inside a
// calibration: right after each visit of the paired point, the tool runs on the same pinned
// CPU and the ratio pollscale / tool of that moment is recorded (context.json "reference").
//  - poll_loop: the plain poll() loop over n pipes (pollscale-crosscheck-poll) after each
//    visit of find_active / poll / pipe, k = 1, middle, timeout 0, time_per_call, at the
//    planned n closest to 1000 — the same operation, written without pollscale's code;
//  - perf_pipe: `perf bench sched pipe -T` (two threads, blocking pipe reads, one CPU) after
//    each visit of wakeup / blocking read / pipe / both threads on the calibrating CPU.
// A pair whose point is not in the plan, or whose tool is missing, is recorded with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/calibration.hpp"

namespace pollscale::calibrate {

class reference_check {
 public:
  /// Picks the paired points from the plan; `cpu` is the calibrating thread's CPU.
  reference_check(const std::vector<planned_point>& once, int cpu);

  /// After a visit of `k` (its planned key) whose per-operation values are `values` (ns):
  /// runs the paired tool when `k` is a paired point and records the ratio of the medians.
  void after_visit(const datasets::key& k, const std::vector<double>& values, double t_s);

  /// {"poll_loop": {...}, "perf_pipe": {...}}: each with the point, the tool, every
  /// reading (t_s, pollscale_ns, reference_ns, ratio) and median_ratio; or "missing": why.
  nlohmann::json to_json() const;

 private:
  struct pair {
    std::string name;
    std::optional<datasets::key> point;
    std::string missing;  // why there is no reading (empty while it may still come)
    std::string tool;
    std::vector<nlohmann::json> readings;
    std::vector<double> ratios;
  };
  pair poll_loop_, perf_pipe_;
};

}  // namespace pollscale::calibrate
