// Descriptive statistics of repeated measurements, each named for exactly what it is:
// `stddev` is the sample standard deviation of the values, `stderr_mean` the standard
// error of their mean, and `ci95_lo/hi` a distribution-free 95% confidence interval of
// the *median* (order statistics, binomial), because medians are what pollscale reports.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace pollscale::datasets {

struct summary {
  std::size_t n = 0;
  double median = 0;
  double mean = 0;
  double stddev = 0;       ///< sample standard deviation (n-1 denominator); 0 when n < 2
  double stderr_mean = 0;  ///< stddev / sqrt(n)
  double ci95_lo = 0;      ///< lower end of the 95% confidence interval of the median
  double ci95_hi = 0;      ///< upper end; [min, max] when n is too small for 95%
  double min = 0;
  double max = 0;
};

/// Summarises `values` (any order). Precondition: non-empty and all finite.
summary summarise(std::span<const double> values);

/// Median of `values` (any order); the mean of the two middle values when n is even.
double median(std::span<const double> values);

/// Quantile q in [0,1] by linear interpolation between order statistics (Hyndman-Fan
/// type 7, the default of R and NumPy). Precondition: non-empty.
double quantile(std::span<const double> values, double q);

/// Zero-based order-statistic indices (lo, hi) of a sorted sample of size n whose interval
/// [x_lo, x_hi] covers the population median with probability >= `level`, the narrowest
/// symmetric such pair; (0, n-1) when even that cannot reach `level`. Precondition: n >= 1.
std::pair<std::size_t, std::size_t> median_ci_ranks(std::size_t n, double level);

/// The relative standard error of the median of R visit medians (R = visit_medians.size()),
/// on the log scale where costs drift by factors: sqrt(pi/2) x s / sqrt(R), s the sample
/// standard deviation of ln(visit median) (a median's standard error is about sqrt(pi/2) =
/// 1.25 times its mean's: 1.16 at R = 3, 1.20 at R = 5 for normal values; the limit is the
/// safe side). Dimensionless (0.05: the median is known to about 5%). 0 when it cannot be
/// said: fewer than two visits, or a median that is not finite and > 0.
double visit_median_log_se(std::span<const double> visit_medians);

/// A point measured in several visits, each with a fresh set-up at another moment of the run
/// (`visits[i]` holds visit i's per-operation values). On a shared machine the batches of one
/// visit agree with each other and say nothing about the next visit, which may meet the host
/// in another speed mode or land its kernel objects elsewhere in the caches; so the visit,
/// not the batch, is the unit of replication. Each visit is reduced to its median (robust to a
/// batch interrupted by another task); the point's `median` is the median of the visit
/// medians, and [ci95_lo, ci95_hi] is a 95% interval for it built from their spread: a
/// Student-t interval on the logarithms of the visit medians (costs drift by factors, not by
/// offsets) with the median's standard error (sqrt(pi/2) x the mean's), never narrower than the pooled samples' own
/// median interval, and kept inside [min, max]. n, mean, stddev, stderr_mean, min and max describe the pooled samples.
/// One visit (or one value in all) falls back to `summarise` of the pooled values. Precondition: at least one non-empty
/// visit; empty visits are ignored; all finite and >= 0. Where a visit's median is 0 (a count
/// that did not happen in it), the interval spans the visits' medians and the pooled interval.
summary summarise_visits(std::span<const std::vector<double>> visits);

/// Half-width of the 95% median interval relative to the median: max(med-lo, hi-med)/med.
/// Used as the runner's stopping rule. Returns +inf when n is tiny or the median is 0 with a
/// wider interval; 0 for a count that was 0 in every sample (median and interval all 0).
double relative_median_halfwidth(const summary& s);

}  // namespace pollscale::datasets
