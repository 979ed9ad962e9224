// A calibration session: enumerate the points of the chosen probes, measure each with the
// runner, and turn the results into a dataset (samples, summaries, context with skipped
// points and warnings). Ctrl-C stops after the current point; everything finished is kept.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/runner.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::calibrate {

struct planned_point {
  const probe_def* probe;
  datasets::key key;
};

struct calibration_request {
  selection sel;
  std::vector<std::string> scenarios;  ///< empty: every scenario
  std::vector<flavour> mechs;          ///< mechanisms (and variants) to measure
  runner_options runner;
  std::filesystem::path out;  ///< dataset directory (written atomically per file)
  bool progress = false;      ///< progress line on stderr
  /// Times the whole plan is measured, round after round; each point's samples pool over
  /// the rounds. On a machine whose speed drifts for seconds at a time (a shared VM), one
  /// round measures each point in whatever phase it falls into; rounds spread every point
  /// over the run, so points compared with one another saw the same mix of phases. Each
  /// round gets 1/rounds of the point's time cap and uses all of it (equal weights).
  int rounds = 1;
};

struct calibration_outcome {
  datasets::dataset data;
  std::size_t planned = 0, measured = 0, skipped = 0, failed = 0;
  bool interrupted = false;
  double wall_s = 0;
};

/// The points a request would measure, in order. Throws std::invalid_argument for an
/// unknown scenario.
std::vector<planned_point> plan(const calibration_request& req);

/// Measures every planned point; a point whose probe fails (wrong answer, OS error) is
/// reported on stderr, listed in context "failures" and counted in `failed`.
/// Measures every planned point (pinning this thread to sel.cpus[0]) and writes the dataset
/// to req.out after the last point, after an interruption, and every ~30 s in between.
/// `context` is the captured context block; the request's options are added to it.
calibration_outcome run_calibration(const calibration_request& req, nlohmann::json context);

/// Appends one point's samples to `d`, numbered from `first_rep` (0 in the first round,
/// then on from the samples earlier rounds kept).
void append_samples(datasets::dataset& d, const point_result& r, std::int64_t first_rep = 0);

}  // namespace pollscale::calibrate
