// Randomness for the simulator: one injected generator per replication (never a global),
// and variates computed here from its raw 64-bit output rather than by the standard
// library's distributions, whose algorithms are implementation-defined: the same seed must
// give the same simulated run, byte for byte, whatever standard library built the binary.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>

namespace pollscale::sim {

/// The generator every model takes by reference.
using rng = std::mt19937_64;

/// Uniform on [0, 1) with 53 random bits.
inline double uniform01(rng& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

/// Uniform on (0, 1] with 53 random bits (never 0, so its logarithm is finite).
inline double uniform01_open_closed(rng& g) { return static_cast<double>((g() >> 11) + 1) * 0x1.0p-53; }

/// Standard normal variate (Box-Muller from two uniforms computed here, not
/// std::normal_distribution, whose algorithm differs between standard libraries).
inline double standard_normal(rng& g) {
  const double u1 = uniform01_open_closed(g), u2 = uniform01(g);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

/// Exponential variate with the given mean (inversion). Precondition: mean >= 0.
/// (log of a (0,1] uniform rather than log1p of a [0,1) one: half the cost, same law.)
inline double exponential(rng& g, double mean) { return -mean * std::log(uniform01_open_closed(g)); }

/// Uniform integer in [0, n). Precondition: 0 < n <= 2^53 (the bias, below n / 2^53, is
/// irrelevant at simulation sizes).
inline std::uint64_t uniform_index(rng& g, std::uint64_t n) {
  const auto i = static_cast<std::uint64_t>(uniform01(g) * static_cast<double>(n));
  return i < n ? i : n - 1;
}

/// An independent seed for stream `stream` of a run seeded with `base` (SplitMix64 of
/// both), so replication i gets the same generator whatever else is simulated.
std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream);

/// A non-negative random duration (service, think or network time) with known first two
/// moments, which the queueing closed forms need.
class distribution {
 public:
  enum class kind { constant, exponential, uniform, erlang, hyperexponential };

  /// Always `value` seconds. Precondition: value >= 0, finite.
  static distribution constant(double value);
  /// Exponential with mean `mean` s (> 0).
  static distribution exponential(double mean);
  /// Uniform on [lo, hi] s, 0 <= lo <= hi.
  static distribution uniform(double lo, double hi);
  /// Sum of `phases` exponentials, total mean `mean` s: squared coefficient of variation 1/phases.
  static distribution erlang(int phases, double mean);
  /// Two-phase hyperexponential with balanced means: mean `mean` s, squared coefficient of
  /// variation `scv` >= 1.
  static distribution hyperexponential(double mean, double scv);

  /// Parses "const:V", "exp:MEAN", "uniform:LO:HI", "erlang:K:MEAN", "hyperexp:MEAN:SCV"
  /// (seconds). Throws std::invalid_argument naming the text when it is not one of those
  /// or a parameter is out of range.
  static distribution parse(const std::string& text);

  double sample(rng& g) const;
  double mean() const;
  /// E[X^2], s^2.
  double second_moment() const;
  /// Squared coefficient of variation Var[X] / E[X]^2 (0 for a zero constant).
  double scv() const;
  kind which() const { return kind_; }
  /// The parse() spelling of this distribution.
  std::string describe() const;

 private:
  distribution(kind k, double a, double b, int phases) : kind_(k), a_(a), b_(b), phases_(phases) {}

  kind kind_;
  double a_;      // constant value, mean, lo, or the first hyperexponential phase's mean
  double b_;      // hi, or the second phase's mean
  int phases_;    // erlang phases
  double p_ = 1;  // hyperexponential: probability of the first phase
};

}  // namespace pollscale::sim
