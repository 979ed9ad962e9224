// How one operation's cost spreads around its mean, call by call: the shape the simulator
// varies each call it charges by (sim/call_variation.hpp).
//
// The cost models are fitted to batch means — a sample of every other scenario is the mean
// of hundreds of back-to-back operations — so they say what a call costs on average and,
// through the visits, how sure that average is. A server's latency tail is made of single
// calls, and those the batches cannot show. The call_spread scenario times single
// operations (calibrate/probes/call_spread.cpp); this file turns its samples into shapes.
//
// A shape is the quantile function of one operation's cost divided by the mean of *its own
// visit*: dividing by the visit's mean keeps out what moves whole visits (the machine's speed
// mode, where the set-up's kernel objects landed), which the model's intervals already
// carry (docs/sim.md: the two sources, and why counting one twice would be wrong). What is
// left is what varies within one moment of one set-up: interrupts, the host's steals, cache
// misses, the clock's granularity. Kept at fixed probabilities (spread_probabilities, from
// the minimum to the maximum), so a shape is twelve numbers; between knots the quantile
// function is taken as linear, which makes a distribution whose mean
// (mean_ratio) is within a few percent of 1 — the simulator divides by it so that a varied
// call costs the model's mean on average.
//
// The shape depends on how long the operation is: a timer tick or a steal lands in a 60 µs
// call more often than in a 1 µs one and counts for less in it. Shapes are kept with their
// operation's mean, and an operation of another length takes the quantile functions of the
// two shapes around it blended by log mean (shape_for_mean), the nearest one outside them.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "datasets/dataset.hpp"

namespace pollscale::datasets {

/// The probabilities a shape keeps its quantiles at: minimum, tails, quartiles, maximum.
inline constexpr std::array<double, 12> spread_probabilities = {0,    0.01, 0.05, 0.1,  0.25,  0.5,
                                                                0.75, 0.9,  0.95, 0.99, 0.999, 1};

/// Fewest single operations a point needs for its shape (below it the 99th percentile rests
/// on fewer than three calls).
inline constexpr std::size_t spread_min_samples = 300;

/// One operation's spread.
struct spread_shape {
  std::string point;   ///< the point it was measured at (describe(key)), for people
  double mean_ns = 0;  ///< the operation's mean cost over every sample, ns
  /// One call's cost over its visit's mean at each of spread_probabilities: non-decreasing,
  /// finite, > 0.
  std::array<double, spread_probabilities.size()> ratios{};
  std::size_t samples = 0;  ///< single operations it was computed from
  std::size_t visits = 0;   ///< their visits

  /// The quantile function at u in [0, 1], linear between the knots.
  double ratio_at(double u) const;
  /// The mean of that distribution (the integral of ratio_at over [0, 1]).
  double mean_ratio() const;
  /// Its second moment (the integral of ratio_at squared).
  double second_moment() const;
};

/// Every shape of a dataset, by operation, each list in increasing mean_ns.
struct call_spread {
  std::vector<spread_shape> wait_calls;  ///< timeout-0 wait calls (time_per_call rows)
  std::vector<spread_shape> handlers;    ///< a request read and its reply written (time_per_op)
  /// Wake-ups (round_trip rows: a round trip's shape stands for one wake-up's), waker and
  /// sleeper on one CPU and on two.
  std::vector<spread_shape> wakeups_same_cpu;
  std::vector<spread_shape> wakeups_cross_cpu;
};

/// The shapes of the call_spread samples among `samples` (any order; other scenarios and
/// batched samples are ignored, so are values <= 0 or not finite). A point takes part with at
/// least spread_min_samples samples; nullopt when no point does.
std::optional<call_spread> estimate_call_spread(std::span<const sample_row> samples);

/// Where an operation of mean `mean_ns` falls among `shapes` (increasing mean_ns, at least
/// one): the shapes below and above it and the upper one's weight in log mean; lo == hi
/// outside them (the nearest), or when mean_ns is not > 0 (the first).
struct shape_blend {
  std::size_t lo = 0;
  std::size_t hi = 0;
  double weight = 0;  ///< of shapes[hi]: 0 at shapes[lo]'s mean, 1 at shapes[hi]'s
};
shape_blend blend_for_mean(std::span<const spread_shape> shapes, double mean_ns);

/// The shape for an operation of mean `mean_ns` from `shapes` (increasing mean_ns, at least
/// one): between two shapes, their ratios blended linearly in log mean (blend_for_mean);
/// outside them, the nearest. Precondition: mean_ns > 0.
spread_shape shape_for_mean(std::span<const spread_shape> shapes, double mean_ns);

/// Why `s` cannot be used (a ratio not finite or <= 0, ratios decreasing, mean_ns not > 0),
/// or "" when it can.
std::string shape_problem(const spread_shape& s);

}  // namespace pollscale::datasets
