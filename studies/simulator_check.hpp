// The simulator checked against the machine's own live server. A calibration's `server`
// scenario (calibrate/probes/server.cpp) measures a real event-loop server: one thread on
// CPU 0 serving `n_active` closed-loop clients of a load-generator process on CPU 1, with
// `n_fds` idle tcp connections registered beside them. Each such row is simulated here the
// same way, with costs from the model fitted to the same calibration (2 CPUs, one server
// thread, requests waking it from CPU 1, the active connections last in the interest set,
// the generator as one process whose message and wake-up costs come from the model's
// handler and wakeup cells), each replication on its own draw of the model's costs. The
// rows' log errors against the measurements give the simulator's discrepancy
// (model/simulator_discrepancy.hpp), which `pollscale fit` stores in model.json and every
// drawn simulation then carries. bench/sim_vs_server.py makes the same check from outside
// and judges a model against another calibration's rows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model_set.hpp"
#include "model/observations.hpp"
#include "sim/server_experiment.hpp"

namespace pollscale::studies {

struct simulator_check_options {
  /// Mechanisms whose rows are checked (epoll level-triggered): those whose server the
  /// simulator models as the probe runs it, one thread on readiness.
  std::vector<std::string> mechanisms;
  double duration_s = 0.1;  ///< simulated seconds per replication (after a tenth as warm-up)
  std::uint64_t seed = 1;
};

/// poll and epoll.
simulator_check_options default_simulator_check_options();

struct simulator_check_row {
  std::string mechanism;
  std::int64_t idle = 0;    ///< idle connections (the row's n_fds)
  std::int64_t active = 0;  ///< closed-loop clients (n_active)
  double measured = 0;      ///< replies per second
  sim::estimate simulated;  ///< mean and 95% interval of one drawn replication, replies/s
  std::string where;        ///< the row's file:line
};

struct simulator_check {
  std::vector<simulator_check_row> rows;
  model::simulator_discrepancy discrepancy;
  double generator_per_message_s = 0;  ///< the load generator's cost per reply
  double generator_wakeup_s = 0;       ///< ... and its wake-up after a pause
  /// Mechanisms with server rows the model could not simulate, each with why.
  std::vector<std::string> skipped;
};

/// Checks the simulator against `data`'s server throughput rows at pinning 0+1 (variant
/// empty or lt) with costs from `models` (its own simulator_check, if any, left out).
/// nullopt when there is no such row, or when the model lacks the generator's costs (no
/// handler or ipc tcp cell, no cross-CPU epoll wakeup cell) — `why` says which.
/// Throws sim::stopped on a stop request.
std::optional<simulator_check> check_simulator(const model::observation_set& data,
                                               std::shared_ptr<const model::model_set> models,
                                               const simulator_check_options& options, std::string* why = nullptr);

}  // namespace pollscale::studies
