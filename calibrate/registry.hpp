// The one table of probes: scenario names are defined here once, and the CLI, the
// calibration session and the tests all read them from it.
#pragma once

#include <span>
#include <string_view>

#include "calibrate/probe.hpp"

namespace pollscale::calibrate {

/// Every probe, in the order calibration runs them.
std::span<const probe_def> all_probes();

/// The probe for `scenario`, or nullptr.
const probe_def* find_probe(std::string_view scenario);

}  // namespace pollscale::calibrate
