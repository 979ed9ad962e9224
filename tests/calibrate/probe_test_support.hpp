// What the probe tests share: a small selection (few descriptors, this machine's CPUs).
#pragma once

#include <cstdint>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/sys/process.hpp"

namespace pollscale::calibrate::test {

/// A selection for small-n tests: `max_fds` descriptors, the affinity mask's CPUs, and
/// `n_override` replacing the probes' n grids when not empty.
inline selection small_selection(std::vector<std::int64_t> n_override = {}, std::size_t max_fds = 2000) {
  selection s;
  s.max_fds = max_fds;
  s.cpus = sys::allowed_cpus();
  s.n_override = std::move(n_override);
  return s;
}

}  // namespace pollscale::calibrate::test
