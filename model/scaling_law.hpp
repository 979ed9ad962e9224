// How throughput grows with threads or CPUs: Gunther's Universal Scalability Law,
//
//   X(N) = γ·N / (1 + σ·(N − 1) + κ·N·(N − 1)),
//
// fitted to throughput measured at a few N and asked about N nobody measured. Each
// coefficient is a kernel mechanism: γ is what one thread delivers alone; σ (contention)
// the share of each operation that waits for a resource only one CPU holds at a time (the
// epoll ready-list lock, a wait-queue lock); κ (coherency) a cost every pair of CPUs pays,
// as when a cache line (a file's refcount, a shared counter) moves between them, which
// makes throughput fall past the peak N* = √((1 − σ)/κ). Amdahl's law is κ = 0, linear
// scaling σ = κ = 0 (docs/scaling.md).
//
// The three laws are nested, and a table of three or four N fits all of them, so the
// choice follows the model's rule for curvature (docs/model.md §5): the coherency term must
// earn its place against Amdahl by a margin in leave-one-out error and needs four distinct
// N; among the rest the fewest coefficients within 10% of the best leave-one-out error win.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

namespace pollscale::model {

enum class scaling_law { linear, amdahl, usl };

std::string_view name(scaling_law law);

/// One measured point: throughput (operations per unit time, > 0) at n threads or CPUs (>= 1).
struct scaling_point {
  double n = 0;
  double throughput = 0;
  /// Where the point was measured in several visits (each a fresh set-up at another moment
  /// of the run): their count, and the relative standard error of the point's value that
  /// their spread gives (datasets::visit_median_log_se); 0 and 0 where unknown (published
  /// tables).
  std::size_t visits = 0;
  double rel_se = 0;
};

struct scaling_options {
  /// relative: least squares on relative residuals (a measurement's error scales with its
  /// size, as drift does); absolute: plain least squares, as R's usl package fits.
  enum class weighting { relative, absolute } weights = weighting::relative;
  /// Distinct N the coherency term (κ) needs before it may compete.
  std::size_t coherency_min_points = 4;
  /// How far (fraction) its leave-one-out error must lie below Amdahl's.
  double coherency_margin = 0.2;
  /// Fit this law and no other (selection off); its rivals are then empty.
  bool force = false;
  scaling_law forced = scaling_law::usl;
};

/// A law that competed and lost, with its leave-one-out error and why.
struct scaling_rival {
  scaling_law law = scaling_law::linear;
  double loo = 0;  ///< leave-one-out mean |relative error|; NaN when it could not be scored
  std::string why;
};

struct scaling_fit {
  scaling_law law = scaling_law::amdahl;
  double gamma = 0;  ///< throughput of one (N = 1) without contention, in the data's unit
  double sigma = 0;  ///< contention, >= 0
  double kappa = 0;  ///< coherency, >= 0
  /// Covariance of (γ, σ, κ); rows and columns of coefficients the law fixes at 0 are 0.
  /// NaN-filled when df = 0.
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
  /// points − coefficients; where the law passes through every point (none left over) but
  /// each was visited several times, the fewest visits − 1, with the covariance and the
  /// residual scatter from the visits' spread (interval_from_visits).
  double df = 0;
  /// Scatter of a new point around the law: relative (fraction of X) with relative
  /// weights, absolute (in the data's unit) otherwise; NaN when df = 0.
  double residual_sd = 0;
  scaling_options::weighting weights = scaling_options::weighting::relative;
  double loo = 0;  ///< the chosen law's leave-one-out error (NaN when it could not be scored)
  std::vector<scaling_rival> rivals;
  std::size_t points = 0;
  double n_min = 0, n_max = 0;  ///< the measured range of N

  /// X(n) at these coefficients.
  double at(double n) const;
  /// N at which throughput peaks, √((1 − σ)/κ); +inf without coherency.
  double peak_n() const;
  /// "γ·N / (1 + σ·(N−1) + κ·N·(N−1))" with the terms the law keeps.
  std::string formula() const;
};

/// Fits the scalability law to `points` (at least two distinct N). Throws
/// std::invalid_argument naming the culprit for a non-finite or non-positive N or
/// throughput, or fewer than two distinct N (one N says nothing about scaling).
scaling_fit fit_scaling(std::span<const scaling_point> points, const scaling_options& options = {});

/// Where `f` passes through every one of `points` (as many as its law has coefficients,
/// df = 0) and each was visited at least twice: its covariance, residual scatter and df from
/// the points' visits (their relative standard errors carried through the law, t on the
/// fewest visits − 1); otherwise `f` is left as it is. fit_scaling applies it to the law it
/// chooses; a line drawn through one point by hand can take it too.
void interval_from_visits(scaling_fit& f, std::span<const scaling_point> points);

struct scaling_prediction {
  double value = 0;
  /// 95% prediction interval for a new measurement at n (delta method on the fitted
  /// coefficients plus the residual scatter, Student t with df); NaN and has_interval
  /// false when df = 0, with no_interval saying so.
  double lo = 0, hi = 0;
  bool has_interval = false;
  std::string no_interval;
  double extrapolation = 1;  ///< n / the largest measured N (>= 1 beyond it)
  /// Only a ceiling (cpu_scaling.hpp, upper_bound_only): the measurement may lie anywhere
  /// below value, so the interval, where there is one, is [0, hi] — or [floor, hi] where the
  /// one-in-flight chain says how far down it can go (one_in_flight.hpp).
  bool upper_bound = false;
};

/// What the fitted law says at n >= 1 (throws std::invalid_argument otherwise).
scaling_prediction predict_scaling(const scaling_fit& fit, double n);

}  // namespace pollscale::model
