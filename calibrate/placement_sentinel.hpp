// The placement sentinel. A guest's vCPUs are threads of the host, which places them on its
// cores and moves them: two vCPUs may share a core complex (and its L3) for a while, then sit
// in two. Everything that crosses the guest's CPUs — a cache line handed over, a wake-up, a
// token passed around a ring — costs what that distance costs now. Measured on the 2-vCPU
// AMD EPYC guests of the machine corpus (2026-12-06): the cache_line probe's round trip
// between the two CPUs read about 65 ns in some visits and 420-490 ns in others, nothing
// between, changing within a run from one visit to the next; the runs whose visits met the
// near placement were also the ones whose cross-CPU wake sentinel fell from 20-23 µs to
// 15-16 µs, and their points on two CPUs cost about 10% less (docs/calibrate.md).
//
// One operation: the cache_line probe's round trip (probes/cache_line.cpp) between the first
// two CPUs of the mask — the line moves to the second CPU and back, no system call, no sleep.
// A reading (probe_sentinel.hpp) builds the probe's instance (its partner thread, woken per
// batch) and times `batches` batches of `round_trips_per_batch` round trips: well under a
// millisecond. At most one reading every
// `min_interval_s`, taken beside the wake sentinel's. A record and a warning, like the other
// sentinels, never a correction: which costs move with the placement, and by how much, differs
// from point to point.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "calibrate/probe_sentinel.hpp"
#include "datasets/dataset.hpp"
#include "datasets/placement_states.hpp"
#include "datasets/run_facts.hpp"

namespace pollscale::calibrate {

class placement_sentinel : public probe_sentinel {
 public:
  static constexpr int batches = 5;
  static constexpr std::size_t round_trips_per_batch = 200;
  static constexpr double min_interval_s = 1.0;

  /// The cache_line probe's point between the first two CPUs of `sel`'s mask; off with fewer
  /// than two CPUs (or without that probe).
  explicit placement_sentinel(const selection& sel);

  /// What one operation is, for the context block.
  static std::string description();
};

/// The placement over a run, from the sentinel's series: the readings' median, and whether
/// they fell on two levels (datasets::placement_split_ns: the p95 at least placement_step
/// times the p5, split at the geometric middle of those two): then each level's median
/// (near = the lower), the share of readings on the near one, and the moves (consecutive
/// readings, in time order, on different levels). No readings: readings 0 and nothing else.
datasets::placement_facts placement_of(const std::vector<datasets::sentinel_reading>& series,
                                       const std::string& description = placement_sentinel::description());

/// The warning a run whose CPUs moved asks for (empty when they did not).
std::string placement_warning(const datasets::placement_facts& placement);

}  // namespace pollscale::calibrate
