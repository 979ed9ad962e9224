// A/B comparison of two calibrations (two kernels, two machines, two builds), point by
// point and per series, with a verdict that means "B differs from A by more than measuring
// again would".
//
// Why not a t-test on the raw samples alone: on a shared VM the batches of one visit share
// their set-up and the host's speed at that moment, so hundreds of batches are not hundreds
// of independent measurements. Two calibrations of one machine taken back to back differ
// point by point by a median 7% and a 95th percentile of 30–90% (docs/calibrate.md); a
// raw-sample test calls most of those differences "significant". The comparison therefore
// works on the log of each point's ratio, d = ln(median_B / median_A), with a standard error
// that has two parts:
//   - within each run, from the spread of the point's visit medians (each visit a fresh set-up
//     at another moment), se_w² = var(ln visit medians)/visits, per run;
//   - between runs, τ²: the scatter of d over all common points that the within-run errors do
//     not explain — the τ at which (d_i − median d)/sqrt(se_w,i² + τ²) have the median
//     absolute value of a standard normal (a robust Paule–Mandel random-effects estimate),
//     so a point whose visits agree but which moved between runs is allowed for, and a
//     minority of points that really changed does not inflate it.
// z = d / sqrt(se_w² + τ²); p two-sided from the normal; Holm's step-down correction across
// all points (and separately across series) keeps the family-wise false-alarm rate at alpha.
// Welch's t and Mann–Whitney p-values on the raw samples are reported beside it, as the
// evidence a reader may want, but they do not decide.
//
// A series (a row of the per-mechanism table) is the points that differ only in n, k,
// position and max_fd: its d is the mean of its points', its se² Σ se_i²/points² plus a
// between-series τ² estimated the same way over all series — the points of a series move
// together between runs (one probe's set-up habits, the regime the host was in), so their
// mean is not as sure as independent points would make it. They move together within a
// run too: visit v of every point falls in round v, and a host that slowed for a round
// slows every point visited in it, which Σ se_i²/points² (independent points) averages
// away. So a group's variance is at least what its rounds show: per side, the variance over
// rounds of the mean deviation of its points' visits in each round, over the rounds. A mechanism (with its variant)
// pools its series the same way, one level up, after turning rates into times (the d of a
// rate negated), so its ratio is B/A of the time per operation in every scenario it was
// measured in. A regression is a significant
// change in the slow direction (a time up, a rate down) larger than the threshold the
// caller gives.
//
// Published tables give a value and a "+/-" per row and no samples: compare_sides takes
// each "+/-" as the standard error of its value and no between-run term (one table, one
// machine, one session).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "datasets/dataset.hpp"
#include "datasets/run_facts.hpp"
#include "datasets/schema.hpp"

namespace pollscale::studies {

struct compare_options {
  double alpha = 0.05;           ///< family-wise false-alarm rate (Holm)
  double regression_min = 0;     ///< a regression must slow by more than this fraction (0.05 = 5%)
  bool between_run_term = true;  ///< estimate τ from the points (off: within-run errors only)
  /// Judge every point, series and mechanism against the whole-machine shift (the median over
  /// mechanisms of their median B/A as time per operation) instead of against no change: what moved more
  /// than the machine did. Two runs that met two speed modes of one machine move every
  /// mechanism together; one run per side cannot tell that from a change, and this asks the
  /// question one run per side can answer. A change that taxes everything alike is then
  /// invisible: the shift is reported (`reference_ratio`, and `median_ratio` over all points).
  bool relative_to_machine = false;
};

/// One side of one point: its median and the standard error of ln(median).
struct side {
  double median = 0;
  double lo = 0, hi = 0;    ///< the point's own 95% interval
  double ln_se = 0;         ///< standard error of ln(median)
  std::size_t visits = 0;   ///< visits behind ln_se (0: a published "+/-")
  std::vector<double> raw;  ///< per-operation sample values (may be empty)
  /// ln of each run's median where the side holds several runs of the point; empty: one run
  std::vector<double> ln_runs;
  /// ln of each visit's median in visit order — visit v of every point falls in round v of
  /// the run, so the visits of a group's points in one round share that stretch of the
  /// host's time; empty for several runs merged or a published row
  std::vector<double> ln_visits;
};

struct point_comparison {
  datasets::key k;
  side a, b;
  double ratio = 1;                   ///< median_B / median_A
  double ratio_lo = 1, ratio_hi = 1;  ///< 95% interval of the ratio, both error terms
  double slowdown = 0;                ///< fraction B is slower than A: > 0 worse (time up or rate down)
  double z = 0, p = 1, p_holm = 1;
  double p_welch_raw = 1, p_mw_raw = 1;  ///< on the raw samples; NaN when either side has < 2
  bool significant = false;              ///< p_holm < alpha
  bool regression = false;               ///< significant and slowdown > regression_min
};

/// A series (points across n) or a mechanism (its series across scenarios and metrics).
struct group_comparison {
  datasets::key k;  ///< series: n_fds, n_active, active_pos, max_fd cleared; mechanism: mechanism and variant only
  std::size_t members = 0;                       ///< points of a series, series of a mechanism
  double ratio = 1, ratio_lo = 1, ratio_hi = 1;  ///< geometric mean ratio B/A with its 95% interval
  double slowdown = 0;
  double z = 0, p = 1, p_holm = 1;
  bool significant = false, regression = false;
};

/// A scenario whose probe measured another operation on one side than on the other (the
/// runs' context.json calibration.probe_revisions; a run without it: revision 1), or whose
/// runs on one side differ: its points are left out of the comparison.
struct revision_mismatch {
  std::string scenario;
  std::set<int> a, b;  ///< the revisions of the side's runs
};

struct comparison {
  std::vector<point_comparison> points;     ///< in key order
  std::vector<revision_mismatch> left_out;  ///< scenarios not compared, by scenario
  std::vector<group_comparison> series;
  /// Per mechanism and variant, ratio of the time per operation (rates inverted).
  std::vector<group_comparison> mechanisms;
  std::size_t only_a = 0, only_b = 0;  ///< points measured in one run only
  double between_run_sd = 0;           ///< τ, in ln units (0.07 ≈ 7%)
  double between_mechanism_sd = 0;     ///< τ of whole mechanisms, in ln units
  double between_series_sd = 0;        ///< τ of whole series (their mean d), in ln units
  /// How far a whole mechanism moved between the rounds of one run (round_drift_variance):
  /// the median over mechanisms of the standard error it gives their d, in ln units; 0 where
  /// no side has rounds (several runs merged, published rows)
  double mechanism_round_drift = 0;
  double median_ratio = 1, median_ratio_lo = 1, median_ratio_hi = 1;  ///< B/A time per op over all points, 95% CI
  bool relative_to_machine = false;  ///< ratios and verdicts are relative to reference_ratio (compare_options)
  /// Under relative_to_machine, the machine's shift the verdicts are relative to: the median
  /// over mechanisms of their median B/A time per op (1 otherwise).
  double reference_ratio = 1;
  std::size_t point_regressions = 0;  ///< points flagged as regressions
  std::size_t series_regressions = 0;
  std::size_t mechanism_regressions = 0;  ///< series flagged as regressions
};

/// Compares two calibration datasets point by point, matched by every key column and the
/// pinning; max_fd only where it tells two points of a run apart (elsewhere it records where
/// the descriptors landed, which shifts by a few between builds). Times and rates only:
/// counts per operation (unit 1, shared_epoll's wakeups) are left out.
comparison compare_datasets(const datasets::dataset& a, const datasets::dataset& b, const compare_options& o);

/// The same with several runs per side (each side measured again): a point's value on a
/// side is the geometric mean of its runs' medians, and the spread between runs — at every
/// level, so a series or a mechanism that moves as a whole between runs shows it — enters
/// the standard error directly instead of only through the estimated τ.
comparison compare_runs(const std::vector<const datasets::dataset*>& a, const std::vector<const datasets::dataset*>& b,
                        const compare_options& o);

/// What each side's drift sentinel read (context "stability": one CPU's speed through the
/// run, a poll(2) over 64 pipes) — the machine's state behind the numbers. A comparison
/// tests B against A; a machine that ran slower for one side moves every mechanism with it
/// and looks like a regression (docs/compare.md: two runs of one build on a 16-CPU machine
/// whose sentinels read 1.93x apart differed by a median 1.49x).
struct machine_shift {
  std::optional<double> sentinel_a_ns, sentinel_b_ns;  ///< geometric mean of each side's runs' medians
  std::optional<double> ratio;                         ///< B / A; nullopt unless both sides have a level
  /// True when B's level is at least slow_factor times A's or at most 1/slow_factor.
  bool shifted = false;
  /// The factor at which calibrate's sentinel calls a reading slow: a side this far from
  /// the other met another speed mode of the machine.
  static constexpr double slow_factor = datasets::slow_reading_factor;
};

machine_shift sentinel_shift(const std::vector<const datasets::dataset*>& a,
                             const std::vector<const datasets::dataset*>& b);

/// Compares points already reduced to one side each (a published table's rows), matched by
/// key; points without a partner are counted in only_a / only_b.
comparison compare_sides(const std::vector<std::pair<datasets::key, side>>& a,
                         const std::vector<std::pair<datasets::key, side>>& b, const compare_options& o);

/// Welch's two-sample t-test, two-sided p; NaN when either sample has fewer than 2 values
/// or both have no spread.
double welch_p(const std::vector<double>& x, const std::vector<double>& y);

/// Mann–Whitney U test, two-sided p from the normal approximation with the tie correction
/// and a continuity correction; NaN when either sample is empty.
double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y);

/// Holm's step-down adjusted p-values, in the order given (NaN stays NaN, not counted).
std::vector<double> holm_adjust(const std::vector<double>& p);

}  // namespace pollscale::studies
