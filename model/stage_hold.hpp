// A serial stage's hold time as a machine fact: what `fit` keeps of a calibration's
// CPU-scaling series (model.json `serial_stages`) so that a simulation can charge it —
// the one epoll instance every thread waits on holds each pass for this long, one thread
// at a time (sim::cost_model::shared_set_hold_s, docs/sim.md).
//
// The hold is the serial stage's (serial_stage.hpp), fitted as `pollscale scale
// --from-cpus C0` fits it with C0 the widest series the calibration measured: on the
// widest series of 2..C0 CPUs, with the demand p + s of each T from the one-CPU law. A
// calibration without a series of two CPUs or more has none (one CPU shows no hand-off).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/schema.hpp"
#include "model/cpu_scaling.hpp"

namespace pollscale::model {

struct observation_set;

struct stage_hold {
  /// The experiment (scenario, mechanism, variant, fd kind, metric, unit; n_active when a
  /// series kept one token for every T), N, threads, CPUs and pinning cleared.
  datasets::key experiment;
  std::string structure;   ///< serial_structure(experiment): what is held
  double hold_s = 0;       ///< s, seconds per operation, >= 0
  double hold_sd_s = 0;    ///< its standard error, s; NaN when not identified
  double residual_sd = 0;  ///< of log(measured / fitted) on the series; NaN when df = 0
  int df = 0;
  int points = 0;
  std::int64_t cpus = 0;   ///< the width of the series it was fitted on (>= 2)
  double max_threads = 0;  ///< the largest T fitted
};

/// Every serial stage the data's CPU-scaling series can fit, in the experiments' order;
/// empty when it has none (no scaling rows, none wider than one CPU, or no experiment with
/// a serial structure). Rates only: a series in a unit that is not a rate is left out.
std::vector<stage_hold> fit_stage_holds(const observation_set& data);

/// The serial stages among `laws` (fit_cpu_scaling), their holds in seconds.
std::vector<stage_hold> stage_holds_of(const std::vector<cpu_scaling_laws>& laws);

/// The hold of the one epoll instance that `mechanism`'s threads share (the shared_epoll
/// experiment of that mechanism and variant, "" = level-triggered, a token for every
/// thread preferred), or nullptr.
const stage_hold* shared_instance_hold(const std::vector<stage_hold>& holds, const std::string& mechanism,
                                       const std::string& variant);

}  // namespace pollscale::model
