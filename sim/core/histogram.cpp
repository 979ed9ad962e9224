#include "sim/core/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

namespace {
constexpr int sub_bits = 8;  // 256 buckets per octave
constexpr int mantissa_bits = 52;
constexpr int min_exponent = -40;                                                                 // 2^-40 s
constexpr int max_exponent = 24;                                                                  // 2^24 s
constexpr std::uint64_t first_key = static_cast<std::uint64_t>(1023 + min_exponent) << sub_bits;  // key of 2^-40
constexpr std::size_t bucket_count = static_cast<std::size_t>(max_exponent - min_exponent) << sub_bits;

std::uint64_t key_of(double v) { return std::bit_cast<std::uint64_t>(v) >> (mantissa_bits - sub_bits); }
}  // namespace

latency_histogram::latency_histogram() : counts_(bucket_count, 0) {}

std::size_t latency_histogram::bucket_of(double v) const {
  const std::uint64_t key = key_of(v);
  if (key < first_key) return 0;
  return std::min(static_cast<std::size_t>(key - first_key), bucket_count - 1);
}

double latency_histogram::bucket_low(std::size_t b) const {
  const std::uint64_t bits = (first_key + b) << (mantissa_bits - sub_bits);
  return std::bit_cast<double>(bits);
}

void latency_histogram::add(double seconds) {
  POLLSCALE_SIM_EXPECT(std::isfinite(seconds) && seconds >= 0, "latency must be finite and >= 0");
  ++counts_[bucket_of(seconds)];
  if (count_ == 0) {
    min_ = max_ = seconds;
  } else {
    min_ = std::min(min_, seconds);
    max_ = std::max(max_, seconds);
  }
  ++count_;
}

void latency_histogram::merge(const latency_histogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t b = 0; b < counts_.size(); ++b) counts_[b] += other.counts_[b];
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = count_ ? std::max(max_, other.max_) : other.max_;
  count_ += other.count_;
}

void latency_histogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = max_ = 0;
}

double latency_histogram::quantile(double q) const {
  POLLSCALE_SIM_EXPECT(q >= 0 && q <= 1, "quantile q outside [0, 1]");
  if (count_ == 0) return 0;
  // Rank of the wanted order statistic, 1-based, as the type-1 (inverse CDF) definition.
  const double rank = std::max(1.0, std::ceil(q * static_cast<double>(count_)));
  // The extreme order statistics are known exactly.
  if (rank <= 1) return min_;
  if (rank >= static_cast<double>(count_)) return max_;
  std::uint64_t below = 0;
  for (std::size_t b = 0; b < counts_.size(); ++b) {
    const std::uint64_t c = counts_[b];
    if (c == 0) continue;
    if (static_cast<double>(below + c) >= rank) {
      const double lo = bucket_low(b), hi = bucket_low(b + 1);
      const double within = (rank - static_cast<double>(below) - 0.5) / static_cast<double>(c);
      return std::clamp(lo + (hi - lo) * within, min_, max_);
    }
    below += c;
  }
  return max_;
}

}  // namespace pollscale::sim
