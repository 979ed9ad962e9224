// The order in which a calibration visits its points. A shared VM's speed moves for seconds
// at a time; measured in plan order (each series in n order) one slow phase bends a whole
// stretch of a curve — bias that no interval shows. So each point is visited once per round,
// every visit with a fresh set-up, and each round walks the points in a new seeded random
// order: a slow phase then lands on scattered points of every series, and on different
// points in every round, and the spread between a point's visits shows it (drift becomes
// noise, and noise is what intervals measure).
//
// What stays together: the points of one probe (a probe may keep a shared set-up until the
// session moves past its points, probe_def::release), and, for such probes, the points with
// the same n_fds (the server's thousands of idle connections are shared by every point with
// the same count and take seconds to create). Probes are shuffled, groups within a probe are
// shuffled, and points within a group are shuffled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "calibrate/calibration.hpp"

namespace pollscale::calibrate {

/// Indices into `once` (the plan, in plan() order) for round `round` (0-based). The same
/// (seed, round) gives the same order on every machine (own Fisher-Yates over mt19937_64).
std::vector<std::size_t> round_order(const std::vector<planned_point>& once, std::uint64_t seed, int round);

/// A seeded in-place Fisher-Yates shuffle of `v` (the standard library's std::shuffle may
/// differ between implementations; this one does not).
void seeded_shuffle(std::vector<std::size_t>& v, std::uint64_t seed);

}  // namespace pollscale::calibrate
