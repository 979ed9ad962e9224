// A calibration session: enumerate the points of the chosen probes, visit each point once
// per round in a seeded random order (visit_plan.hpp) with the drift sentinel read before
// every visit (sentinel.hpp), check the physics at the end and revisit the points that break
// it, and turn the results into a dataset (samples with their visit, moment and sentinel
// level; summaries whose intervals come from the visits; the sentinel series; context with
// the machine's stability, skipped points and warnings). Ctrl-C stops after the current
// visit; everything finished is kept.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/reporter.hpp"
#include "calibrate/runner.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::calibrate {

struct planned_point {
  const probe_def* probe;
  datasets::key key;
};

/// Visits until the visits agree (settle.hpp): after the rounds and the repairs, a point
/// whose visit medians' relative standard error is above target_se is visited again, sweep
/// after sweep, until it is under it or has max_visits visits; all sweeps together stop at
/// `share` of the time spent before them, and at the profile's budget (`budget_s` seconds
/// from the start: none once the run has used it; 0 = no such cap). max_visits <= rounds
/// turns it off.
struct settle_options {
  double target_se = 0.04;  ///< dimensionless: 0.04 = the median known to about 4%
  int max_visits = 8;
  double share = 0.25;
  double budget_s = 0;
};

/// The wall-clock budget of a profile, seconds: quick 3 minutes, full 30.
double profile_budget_s(profile_kind p);

struct calibration_request {
  selection sel;
  std::vector<std::string> scenarios;  ///< empty: every scenario
  std::vector<flavour> mechs;          ///< mechanisms (and variants) to measure
  runner_options runner;
  std::filesystem::path out;  ///< dataset directory (written atomically per file)
  /// Told of every visit, failure and the end (null: nobody is told; the dataset still is).
  reporter* report = nullptr;
  /// Visits per point: the whole plan is measured this many times, round after round, each
  /// round in its own seeded random order, each visit with a fresh set-up. On a machine whose
  /// speed drifts for seconds at a time (a shared VM) one visit measures a point in whatever
  /// phase it falls into; the spread between visits is what "measured again" means, and the
  /// summaries' intervals are built from it (statistics.hpp, summarise_visits). Each visit
  /// gets 1/rounds of the point's time cap and warm-up.
  int rounds = 3;
  /// Extra visits a point that breaks the physics (datasets/consistency.hpp) may get after
  /// the rounds; all repair visits together stop at repair_share of the time spent so far.
  int repair_visits = 2;
  double repair_share = 0.2;
  settle_options settle;
};

struct calibration_outcome {
  datasets::dataset data;
  std::size_t planned = 0, measured = 0, skipped = 0, failed = 0;
  std::size_t repair_visits = 0;  ///< visits made after the rounds to points that broke the physics
  std::size_t settle_visits = 0;  ///< visits made after the repairs to points whose visits disagreed
  bool interrupted = false;
  double wall_s = 0;
};

/// The points a request would measure, in order. Throws std::invalid_argument for an
/// unknown scenario.
std::vector<planned_point> plan(const calibration_request& req);

/// Measures every planned point; a point whose probe fails (wrong answer, OS error) is
/// told to req.report, listed in context "failures" and counted in `failed`.
/// Measures every planned point (pinning this thread to sel.cpus[0]) and writes the dataset
/// to req.out after the last point, after an interruption, and every ~30 s in between.
/// `context` is the captured context block; the request's options are added to it.
calibration_outcome run_calibration(const calibration_request& req, nlohmann::json context);

/// Where and when a visit happened, for its sample rows.
struct visit_facts {
  std::int64_t first_rep = 0;  ///< samples earlier visits of the point kept
  std::int64_t visit = 0;      ///< visits of the point before this one
  std::optional<double> t_s;   ///< seconds into the run at the visit's start
  std::optional<double> sentinel_ns;
  std::optional<double> wake_sentinel_ns;  ///< the cross-CPU wake sentinel's latest reading
  std::optional<double> placement_ns;      ///< the placement sentinel's latest reading
};

/// Appends one visit's samples to `d`.
void append_samples(datasets::dataset& d, const point_result& r, const visit_facts& v = {});

/// Runner options for one visit of `rounds`: the time cap and warm-up shared by the visits,
/// at least 7 samples each.
runner_options per_visit(runner_options o, int rounds);

}  // namespace pollscale::calibrate
