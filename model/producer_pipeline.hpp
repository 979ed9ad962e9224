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
// every host, so it is kept for one producer only.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/observations.hpp"

namespace pollscale::model {

struct pipeline_fit {
  double write_s = 0;     ///< w: one producer's write, CPU seconds per event
  double consumer_s = 0;  ///< a: the consumer's CPU seconds per event with one producer
  double line_s = 0;      ///< L: the cache line's round trip between two CPUs, seconds
  /// Events per second with one producer and the consumer on CPUs of their own.
  double rate() const;
};

/// w and a of 1/X(T) = w + a/T by least squares over (T, events per second) of the one-CPU
/// series. Empty, with `note` saying why, for fewer than two distinct T, a rate that is not
/// finite and > 0, or a fit whose w or a is not > 0.
std::optional<pipeline_fit> fit_pipeline(const std::vector<std::pair<double, double>>& t_rate, double line_s,
                                         std::string& note);

/// The cache line's round trip between the first two CPUs in seconds (the cache_line row
/// with pinning 0+1, its unit ns, us, ms or s), when the data has one.
std::optional<double> cache_line_round_trip_s(const observation_set& data);

}  // namespace pollscale::model
