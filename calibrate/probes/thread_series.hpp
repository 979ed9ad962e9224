// The CPU-scaling grids share one shape (producers_points.cpp, private_sets_points.cpp):
// series of C CPUs — C = 1, a one-CPU machine, and C = Cmax, the widest the mask allows
// up to a profile's cap, with the powers of two between them in the full profile — each
// measured at the thread counts T = 1, 2, 3, 4, 6, 8, 12, 16, ... up to a multiple of Cmax.
#pragma once

#include <cstdint>
#include <vector>

#include "calibrate/probe.hpp"

namespace pollscale::calibrate::probes {

/// 1, 2, 3, 4, 6, 8, 12, 16, 24, ... up to t_max, then t_max (t_max >= 1).
std::vector<std::int64_t> thread_counts(std::int64_t t_max);

/// Cmax: min(CPUs in the mask, cap), at least 2 (where the mask holds one CPU the wider
/// series is listed and its points are skipped, as wakeup's cross-CPU points are).
std::int64_t widest_series(const selection& sel, std::int64_t cap);

/// The series widths: 1, then (full profile) every power of two below Cmax, then Cmax.
std::vector<std::int64_t> series_widths(const selection& sel, std::int64_t c_max);

/// The first `count` CPUs of the mask; where it holds fewer, numbers above its last CPU
/// (not in the mask: a probe's make() skips the points that use them).
std::vector<int> first_cpus(const selection& sel, std::int64_t count);

}  // namespace pollscale::calibrate::probes
