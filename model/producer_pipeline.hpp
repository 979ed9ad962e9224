// One producer and its consumer on two CPUs: a pipeline (docs/scaling.md, "One CPU to two:
// the pipeline").
//
// On one CPU the producers scenario's consumer and its T producers share the CPU, which is
// never idle, so 1/X1(T) is the CPU time of one event: one producer's write w plus the
// consumer's share a/T (one epoll_wait and one eventfd read take every event written while
// the consumer was off the CPU). With one producer on a CPU of its own the two run side by
// side, and every event moves the eventfd's cache line from the producer's CPU to the
// consumer's and back: L, the cache_line probe's round trip between two CPUs. The rate is
// then the slower stage's, min(1/(w + L), 1/(a + L)) — where the capacity bound, twice the
// one-CPU rate, cannot see that one producer leaves the second CPU's other half idle.
// Written on one calibration and judged on every other with cache_line rows: within ±10%
// on six AMD runs (the bound 23-41% over), +26% and +50% on an Intel host's two campaigns
// (the bound +124% and +168%). The same split predicts two or more producers 10-29% low on
// every host, so it is kept for one producer only. Its 95% interval (interval()) is the
// scaling laws' kind: the parts' variances through Student's t; 12 of 13 datasets inside.
//
// Switches one CPU makes and two do not (2026-12-07): on one CPU the consumer sleeps in
// epoll_wait each time it has drained every eventfd, and a producer must run before it can
// read again — two switches and a wake-up that the one-CPU rate pays per sleep. On two CPUs
// the consumer beside its one producer hardly sleeps (a replica on the ninth host: 0.0001
// sleeps an event against 0.083 on one CPU), so those switches are no part of either stage.
// Where the probe counted the consumer's sleeps per event (metric wakeups) and the data has
// the same-CPU hand-off s (the wakeup probe, as the one-in-flight chain uses it), w and a are
// split from 1/X1(T) − sleeps(T)·s instead: the chain's rule (one_in_flight.hpp), applied to
// the pipeline. Without the counts, as before.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/observations.hpp"

namespace pollscale::model {

/// The cache line's round trip between two CPUs and how much a new measurement of it may
/// differ: the variance between the cache_line point's visits (each a fresh set-up at
/// another moment) plus that of their mean, in s^2; NaN with fewer than two visits.
struct line_estimate {
  double s = 0;
  double var_s2 = NAN;
};

struct pipeline_fit {
  double write_s = 0;     ///< w: one producer's write, CPU seconds per event
  double consumer_s = 0;  ///< a: the consumer's CPU seconds per event with one producer
  double line_s = 0;      ///< L: the cache line's round trip between two CPUs, seconds
  /// s, where w and a were split from the one-CPU series less the consumer's switches (each
  /// sleep it made there, counted by the probe, at s seconds: the wakeup probe's same-CPU
  /// hand-off); NaN where they were split from the series as measured.
  double switch_s = NAN;
  /// The split of the series as measured, switches in, for both_busy_rate (on two CPUs the
  /// consumer's CPU still hosts producers, and the floor must stay a floor); equal to w and a
  /// where no switches were taken out.
  double measured_write_s = 0, measured_consumer_s = 0;
  /// What the 95% interval is made of (NaN where unknown, as in a model.json written before
  /// the interval existed): the covariance of (w, a) from the least squares, the residual
  /// variance of 1/X about w + a/T and its degrees of freedom (points - 2), the variance
  /// of a new measurement of L. All in s^2. df < 0: not recorded.
  double cov_ww = NAN, cov_wa = NAN, cov_aa = NAN;
  double residual_var = NAN;
  int df = -1;
  double line_var = NAN;
  /// Events per second with one producer and the consumer on CPUs of their own:
  /// min(1/(w + L), 1/(a + L)).
  double rate() const;
  /// Events per second with t >= 2 producers on two CPUs, both busy: the second CPU's
  /// producers paying the line on every event, the first CPU's sharing it with the consumer,
  /// which pays a/t + L an event: (1/(w + L) + 1/w) / (1 + (a/t + L)/w), with the split as
  /// measured (switches in). It charges the line on every event where the consumer's read
  /// takes many, so it errs low: 10-29% under every two-CPU measurement of the corpus
  /// (docs/scaling.md) — a floor, not a prediction.
  double both_busy_rate(double t) const;
  /// The 95% interval for a new measurement of rate(): the slower stage's time plus L,
  /// t(df) times the root of the stage's variance, the residual variance and L's, turned
  /// into rates. Empty, with `why` saying so, where a part is unknown or the interval
  /// reaches zero time.
  std::optional<std::pair<double, double>> interval(std::string& why) const;
  /// The same interval's lower end alone, 1/(time + half), where interval() has none only
  /// because its time's lower end reaches zero (the rate's upper end is then open: the data
  /// cannot bound it from above, the CPUs' capacity can); empty otherwise.
  std::optional<double> open_interval_lo() const;

 private:
  /// Whether the interval's parts are known (df >= 1, every variance finite); `why` not.
  bool uncertainty_known(std::string& why) const;
  /// The slower stage's time plus L, and t(df) times the root of the parts' variances, in
  /// seconds. Precondition: uncertainty_known.
  std::pair<double, double> time_and_half_width() const;
};

/// One row of the one-CPU series: T producers, events per second, and the consumer's sleeps
/// per event counted at the same point (NaN where not counted).
struct one_cpu_row {
  double t = 0;
  double rate = 0;
  double sleeps = NAN;
};

/// w and a of 1/X(T) = w + a/T by least squares over the one-CPU series, with their
/// covariance. Where every row has its consumer's sleeps and `switch_s` is a time, the split
/// is of 1/X(T) less sleeps(T)·s: what an event costs where nothing switches (a split that
/// then does not come out > 0 falls back to the series as measured, `note` saying so). Empty,
/// with `note` saying why, for fewer than two distinct T, a rate that is not finite and > 0,
/// or a fit whose w or a is not > 0.
std::optional<pipeline_fit> fit_pipeline(const std::vector<one_cpu_row>& rows, const line_estimate& line,
                                         std::optional<double> switch_s, std::string& note);

/// The cache line's round trip between the first two CPUs (the cache_line row with
/// pinning 0+1, its unit ns, us, ms or s), when the data has one.
std::optional<line_estimate> cache_line_round_trip(const observation_set& data);

}  // namespace pollscale::model
