// Streaming statistics that a simulation updates once per observation, O(1) memory.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

/// Count, mean and sample variance of observations (Welford's update: no cancellation).
class running_stats {
 public:
  void add(double x) {
    ++n_;
    const double d = x - mean_;
    mean_ += d / static_cast<double>(n_);
    m2_ += d * (x - mean_);
    min_ = x < min_ ? x : min_;
    max_ = x > max_ ? x : max_;
  }
  std::uint64_t count() const { return n_; }
  /// Mean of the observations; 0 when there are none.
  double mean() const { return mean_; }
  /// Sample variance (n-1 denominator); 0 when n < 2.
  double variance() const { return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : 0; }
  /// Sample standard deviation of the observations (not of their mean).
  double stddev() const { return std::sqrt(variance()); }
  double min() const { return n_ ? min_ : 0; }
  double max() const { return n_ ? max_ : 0; }

 private:
  std::uint64_t n_ = 0;
  double mean_ = 0;
  double m2_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

/// Time average of a piecewise-constant quantity (queue length, busy servers): the
/// integral of the value over time divided by the time covered since reset().
class time_weighted {
 public:
  /// Starts averaging at `now` with the current value kept.
  void reset(double now) {
    start_ = last_ = now;
    area_ = 0;
  }
  /// The quantity changes to `value` at `now`. Precondition: now >= the previous time.
  void set(double now, double value) {
    POLLSCALE_SIM_EXPECT(now >= last_, "time_weighted updated backwards in time");
    area_ += value_ * (now - last_);
    last_ = now;
    value_ = value;
  }
  /// Adds `delta` to the current value at `now`.
  void add(double now, double delta) { set(now, value_ + delta); }
  double value() const { return value_; }
  /// The average over [reset time, now]; the current value when no time has passed.
  double mean(double now) const {
    const double span = now - start_;
    return span > 0 ? (area_ + value_ * (now - last_)) / span : value_;
  }

 private:
  double value_ = 0;
  double area_ = 0;
  double start_ = 0;
  double last_ = 0;
};

}  // namespace pollscale::sim
