// A calibration brought to its machine's fast mode: every sample scaled by how much faster
// the machine ran in its fast mode than at the sample's visit, as the drift sentinel saw it.
//
// Why: a shared host flips between speed modes for seconds at a time, and two runs that met
// them in different shares differ in every syscall-bound point by the mix, while the point's
// cost over the sentinel's (poll over 64 pipes, read just before each visit) does not move.
// Comparing by ratios measured in the same run removes the mix: a time is multiplied by the
// run's sentinel p10 over the reading at its visit (fast_mode_factor, below), a rate
// divided by it, a count (wake-ups per event) left as measured. The run's own p10 is the
// reference, so a run on a slower kernel or machine stays slower: only the moments of one
// run are brought together. What it cannot follow: costs that do not move with one CPU's
// speed (cross-CPU wake-ups, working sets past the caches); docs/calibrate.md, "Adjusted to
// the fast mode", measures both sides of it.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/dataset.hpp"

namespace pollscale::datasets {

/// How much faster the machine ran in its fast mode than at one moment of a run, as the drift
/// sentinel saw it: `fast_ns` (the run's sentinel p10, context.json stability.p10_ns) over the
/// sentinel's reading at that moment. A cost measured then, times this factor, is the cost
/// at the fast mode; a rate, divided by it. Ratios measured in the same run, one CPU's
/// speed: a host that flips between speed modes moves a syscall-bound cost and the
/// sentinel's poll over 64 pipes alike (docs/calibrate.md, "Adjusted to the fast mode").
/// 1 where there is no usable reading (none, NaN, zero or negative) or no usable fast_ns.
double fast_mode_factor(double fast_ns, std::optional<double> reading_ns);

/// The run's fast mode as its drift sentinel saw it: context.json stability.p10_ns, in ns;
/// nullopt when absent, not finite or not positive.
std::optional<double> fast_mode_ns(const nlohmann::json& context);

/// Each sample of a time or a rate scaled to the fast mode `fast_ns` by the reading of its
/// visit; samples without a reading, and counts, as they were.
void adjust_samples_to_fast_mode(std::vector<sample_row>& samples, double fast_ns);

/// The dataset read at `dir` with its samples brought to its fast mode and each summary
/// re-summarised from them (summarise_samples: the median of the visits' medians, the
/// interval from their spread); a summary without samples is kept as measured. Throws
/// input_error naming dir/context.json when the run has no drift sentinel.
dataset adjusted_to_fast_mode(dataset d, const std::filesystem::path& dir);

}  // namespace pollscale::datasets
