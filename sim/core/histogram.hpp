// Latency percentiles in O(1) memory: a log-linear histogram (HdrHistogram's idea). A
// positive double's bit pattern, shifted, is monotone in its value; keeping the exponent
// and the top 8 mantissa bits gives 256 buckets per power of two, so a reported quantile
// lies in the same bucket as the true order statistic: within 0.4% of it (exact min and
// max are kept and clamp the answer). Range: 2^-40 s (~1 ps) to 2^24 s; values outside are counted in
// the end buckets.
#pragma once

#include <cstdint>
#include <vector>

namespace pollscale::sim {

class latency_histogram {
 public:
  latency_histogram();

  /// Records one value, s. Precondition: finite and >= 0 (aborts otherwise).
  void add(double seconds);

  /// Adds every observation of `other`.
  void merge(const latency_histogram& other);
  void clear();

  std::uint64_t count() const { return count_; }
  double min() const { return count_ ? min_ : 0; }
  double max() const { return count_ ? max_ : 0; }

  /// The q-quantile (0 <= q <= 1) of the recorded values, s, interpolated linearly within
  /// its bucket; 0 when empty. Relative error <= 2^-8 for values inside the range.
  double quantile(double q) const;

  /// Largest relative error quantile() can make inside the range.
  static constexpr double relative_resolution = 1.0 / 256;

 private:
  std::size_t bucket_of(double v) const;
  double bucket_low(std::size_t b) const;

  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double min_ = 0;
  double max_ = 0;
};

}  // namespace pollscale::sim
