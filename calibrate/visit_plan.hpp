// The order in which a calibration visits its points. A shared VM's speed moves for seconds
// at a time; measured in plan order (each series in n order) one slow phase bends a whole
// stretch of a curve — bias that no interval shows. So each point is visited once per round,
// every visit with a fresh set-up, and each round walks the points in a new seeded random
// order: a slow phase then lands on scattered points of every series, and on different
// points in every round, and the spread between a point's visits shows it (drift becomes
// noise, and noise is what intervals measure).
//
// What stays together: the points of one probe, and within a probe the points that name one
// set-up (probe_def::setup_of): the server's thousands of idle connections, shared by every
// point with the same count, or find_active's n sockets, shared by select, poll and epoll at
// one n. Such a group's set-up is built once per visit of the group (19,700 loopback
// connections take about a second to open and close, a point a quarter of a second to
// measure), so every point of the group still meets a fresh set-up in every round, and the
// mechanisms of a group are compared on the same kernel objects. Probes are shuffled within
// thirds of the round, each probe moving one third earlier every round, so that its visits
// in consecutive rounds are never back to back (a slow spell of some seconds would meet two
// of its three visits); groups within a probe are shuffled, and points within a group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/calibration.hpp"

namespace pollscale::calibrate {

/// The name of the set-up a planned point takes (its probe's setup_of; "" = its own).
std::string setup_name(const planned_point& p);

/// Indices into `once` (the plan, in plan() order) for round `round` (0-based). The same
/// (seed, round) gives the same order on every machine (own Fisher-Yates over mt19937_64).
std::vector<std::size_t> round_order(const std::vector<planned_point>& once, std::uint64_t seed, int round);

/// A seeded in-place Fisher-Yates shuffle of `v` (the standard library's std::shuffle may
/// differ between implementations; this one does not).
void seeded_shuffle(std::vector<std::size_t>& v, std::uint64_t seed);

}  // namespace pollscale::calibrate
