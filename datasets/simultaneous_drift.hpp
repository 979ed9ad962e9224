// How much of a point's movement between visits the whole machine shares at that moment.
//
// Every point is visited several times through a run (statistics.hpp, summarise_visits), and
// its interval is built from how its visits disagree. On a shared host part of that
// disagreement is the host itself — a neighbour's burst, a frequency or cache-sharing mode
// lasting seconds — which slows every operation measured while it lasts; the rest is the
// point's own (where its kernel objects landed, a batch cut by a tick). The two parts
// matter differently downstream: when a simulation draws its costs from the model's
// intervals (studies/model_costs.hpp), costs that the machine moves together should be
// drawn together, or a server paying several of them looks surer than it is.
//
// The statistic: every visit's deviation from its point's centre (the logarithm of the
// visit's median minus the mean of the point's log visit medians; a rate's sign flipped, so
// that "dearer" is positive for every metric), paired with the deviation of the next visit
// of a *different* point that started within `window_s` seconds after it; the correlation of
// the pairs. Only the deviations' *signs* are used: two normal variates of correlation r
// agree in sign with probability 1/2 + asin(r)/π (Sheppard), so r = sin(π·(agree − 1/2)).
// Signs need no scale for each point — with three visits a point's own standard deviation
// is too rough to divide by (a product-moment version of this estimate came out a third low
// on planted data) — and a visit cut by a 10× stall counts once, not a hundred times.
//
// What r is: how much two costs measured at one moment move together, seen as their
// deviations from their own centres. If a point's visits met independent moments and the
// machine moved every point by a share ρ of its variance, r would be ρ·(1 − 1/V) for points
// of V visits (the centre includes the visit) and r/(1 − 1/V) would estimate ρ; on the corpus
// that correction passes 1 on five runs of fifteen (docs/sim.md), because the plan's rounds
// differ as wholes (the first round of every point meets a colder machine), so no correction
// is applied and r is used as it is observed. Measured on the corpus: docs/sim.md.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "datasets/dataset.hpp"

namespace pollscale::datasets {

struct simultaneous_drift {
  /// r as above, clamped to [0, 1] (a negative estimate, which a shared cause cannot
  /// produce, reads as none).
  double correlation = 0;
  double raw_correlation = 0;  ///< the same before clamping, for the record
  std::size_t pairs = 0;       ///< visit pairs it was computed from
  std::size_t points = 0;      ///< points with enough visits to take part
  double window_s = 0;         ///< the most seconds between the two visits of a pair
};

/// The window pairs are taken in by default: one second, shorter than the host's speed
/// modes (several seconds, docs/calibrate.md) and long enough for the quick plan's visits
/// (a few hundred milliseconds each) to find a partner.
inline constexpr double simultaneous_window_s = 1.0;

/// Fewest pairs an estimate is given from: below it (a run of few points, or samples
/// without visit times) the correlation would be mostly noise (its standard error is
/// about 1/sqrt(pairs)), and the caller treats the points as independent.
inline constexpr std::size_t simultaneous_min_pairs = 30;

/// The statistic above over `samples` (any order). A point takes part when it has at least
/// two visits with times whose log medians are not all equal; samples with a value of 0 are
/// ignored, and so is a visit exactly at its point's centre (it has no sign).
/// nullopt when fewer than simultaneous_min_pairs pairs are found. Precondition:
/// window_s > 0.
std::optional<simultaneous_drift> estimate_simultaneous_drift(std::span<const sample_row> samples,
                                                              double window_s = simultaneous_window_s);

}  // namespace pollscale::datasets
