// Where a run's host kept its first two CPUs, as two states every cross-CPU cost moves between.
//
// A guest's vCPUs are threads of the host, placed on cores of one core complex (near) or of
// two (far), and moved between them for tens of seconds at a time (docs/calibrate.md, "Where
// the host puts the two CPUs"). The placement sentinel (a cache line's round trip between the
// first two CPUs, placement_sentinel.csv) reads which state the run was in once a second; the
// cross-CPU wake sentinel (wake_sentinel.csv) is read beside it. Everything that crosses the
// two CPUs — a wake-up, a message whose peer runs on the other CPU, a server's clients — costs
// what the state costs: on the ninth corpus host the wake sentinel read 1.28-1.45 times as
// long in the far state as in the near one, the handler's tcp message with its peer on the
// other CPU 1.41-1.44 times, and a live server of ten clients delivered 165 000 replies/s in
// far visits and 225 000 in near ones (docs/sim.md, "Where the host puts the two CPUs").
//
// A run's points whose threads run on two CPUs were mostly measured in the state the run
// spent most of its time in; a new run may meet the other. This file turns the two sentinel
// series into what a simulation needs to say so: how often the host was in each state and
// how much dearer the far one makes a cross-CPU cost (studies/model_costs.hpp draws the state
// per replication). One factor for every cross-CPU cost, measured on the machine by its own
// sentinel rather than shaped on one host: the cells that met both states read 1.15-1.52
// (wake-ups) and 1.41-1.44 (the handler) on that host, around the sentinel's own ratio.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <span>

#include "datasets/dataset.hpp"

namespace pollscale::datasets {

/// A placement level at least this many times another is another placement: the two levels
/// seen are 7x apart; one placement's readings spread by well under 2x.
inline constexpr double placement_step = 2.0;

/// Where a placement series splits into its near and far level: the geometric middle of its
/// p5 and p95 when the p95 is at least placement_step times the p5 (the readings fell on two
/// levels); nullopt otherwise, and for an empty series or one with a non-positive p5.
std::optional<double> placement_split_ns(std::span<const sentinel_reading> placement);

/// Fewest wake-sentinel readings paired with each level for a far-over-near ratio: with fewer
/// a single slow reading would decide it.
inline constexpr std::size_t placement_min_readings = 3;

/// A wake reading is paired with the placement reading nearest in time when they lie at most
/// this far apart: the calibration takes the two beside each other, at most once a second.
inline constexpr double placement_pair_window_s = 0.5;

struct placement_states {
  double split_ns = 0;            ///< the placement sentinel's level boundary (placement_split_ns)
  double near_share = 1;          ///< share of the placement sentinel's readings below the split
  double far_over_near = 1;       ///< the wake sentinel's median over its far readings / over its near ones
  std::size_t near_readings = 0;  ///< wake readings paired with a near placement reading
  std::size_t far_readings = 0;   ///< the same, far
  /// The placement sentinel's own reading in each state — a cache line's round trip between
  /// the first two CPUs, ns (medians of its readings below and above the split); NaN where
  /// not known (a model.json's placement block does not keep them).
  double near_line_ns = NAN, far_line_ns = NAN;
  /// The line's round trip in the state the run spent most of its readings in (far_usual).
  double usual_line_ns() const { return far_usual() ? far_line_ns : near_line_ns; }
  /// Which state the run's cross-CPU points mostly read: the far one when the run spent more
  /// than half its placement readings there (their medians are medians over visits, most of
  /// which met the run's usual state).
  bool far_usual() const { return near_share < 0.5; }
};

/// The states of a run from its two sentinel series (any order), or nullopt when the
/// placement did not move (placement_split_ns), the wake sentinel was not read, or fewer
/// than placement_min_readings wake readings pair with either level. Readings that are not
/// finite and positive are ignored.
std::optional<placement_states> estimate_placement_states(std::span<const sentinel_reading> placement,
                                                          std::span<const sentinel_reading> wake);

}  // namespace pollscale::datasets
