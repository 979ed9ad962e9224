// The measurement loop shared by every probe: batch sizing against the timer, warm-up,
// repetitions until the median's 95% interval is within ±2% (or a time cap), raw samples
// kept. One sample = one batch of back-to-back operations; its value is per operation.
// A probe after the spread of single operations (call_spread) asks for samples of one
// operation each instead, a fixed number per visit; a counting probe (probe_instance::
// counts) returns events per batch instead of time, and its samples are counts per operation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/timer.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::calibrate {

struct runner_options {
  double warmup_s = 0.01;              ///< warm-up per point, after batch sizing
  double max_s_per_point = 0.25;       ///< time cap for the repetitions of one point
  double target_rel_halfwidth = 0.02;  ///< stop once the median's 95% CI is within ±2%
  std::size_t min_samples = 11;
  std::size_t max_samples = 5000;
  double min_sample_ns = 10'000;  ///< a batch lasts at least this long (set from the timer)
};

/// Options for a profile, with min_sample_ns = max(50 x resolution, 100 x read cost, 10 µs).
runner_options options_for(profile_kind p, const timer_facts& t);

/// The outcome of measuring one point.
struct point_result {
  datasets::key key;
  std::vector<double> values;        ///< per-operation values in key.unit, one per sample
  std::vector<std::size_t> batches;  ///< operations per sample
  std::string skipped;               ///< non-empty: why the point could not run
  bool converged = false;            ///< the ±target was reached before the time cap
  double wall_s = 0;                 ///< set-up included
  // Its parts (calibrate/time_ledger.hpp), seconds: making the probe's instance and
  // tearing it down (a shared set-up's first point builds it; leaving it is the session's),
  // sizing the batch and warming up, the samples.
  double setup_s = 0, prepare_s = 0, measure_s = 0;
};

/// Converts nanoseconds per operation into `unit` (ns, us, ms, s or a rate 1/s, 1/ms).
double convert_ns_per_op(double ns_per_op, const std::string& unit);

class runner {
 public:
  explicit runner(runner_options o) : opts_(o) {}
  /// Measures one point. probe_skipped becomes a skipped result; sys::interrupted and
  /// probe_failure propagate.
  point_result measure(const probe_def& probe, const datasets::key& k, const selection& sel) const;
  const runner_options& options() const { return opts_; }

 private:
  std::size_t size_batch(probe_instance& inst, const std::string& unit) const;
  /// Runs one batch of `ops`: returns how long it took in ns (what run() timed, or the wall
  /// time around a counting instance's run) and sets `value` to the sample in `unit`.
  double run_batch(probe_instance& inst, std::size_t ops, const std::string& unit, double& value) const;
  /// At least two runs of `ops` operations and warmup_s, untimed.
  void warm_up(probe_instance& inst, std::size_t ops) const;
  /// A point of single operations (probe_instance::single_op_samples): `count` samples of one.
  void measure_singles(probe_instance& inst, std::size_t count, point_result& r) const;
  /// A batched point made at clock_ns() = `made`: sizing, warm-up (r.prepare_s), then
  /// samples until the interval or the time cap (r.measure_s).
  void sample(probe_instance& inst, std::uint64_t made, point_result& r) const;
  runner_options opts_;
};

}  // namespace pollscale::calibrate
