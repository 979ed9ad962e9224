// "What runs out?" A server that misses its target at some load has run out of something:
// the CPU (and then: spent on which cost - the wait calls' scans, the handlers, re-arming
// one-shot interest), rtsig's signal queue (each overflow costs a full poll over every fd),
// or, with the CPUs not busy, the time requests spend waiting to be noticed (wake-ups, the
// calls' own duration). Read off one simulated run's figures: its utilisation, its split by
// use (sim::cpu_use), its overflow rate, and how busy the serial part of a set the threads
// share was (sim/serial_hold.hpp: one epoll instance held by one thread at a time, the
// serial stage of docs/scaling.md). No other lock or shared cache line is simulated.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/server_experiment.hpp"

namespace pollscale::studies {

enum class resource {
  cpu_wait_calls,  ///< CPUs busy, mostly in wait calls (first passes and rescans)
  cpu_handlers,    ///< CPUs busy, mostly handling events (handler + application work)
  cpu_rearms,      ///< CPUs busy, mostly re-arming one-shot interest
  signal_queue,    ///< rtsig: the queue overflowed and full polls took the CPUs
  shared_set,      ///< the serial part of the set every thread shares, held nearly all the time
  latency,         ///< the CPUs had time left: requests waited to be noticed
};

/// Mean utilisation at or above which the CPUs count as the resource that ran out.
inline constexpr double busy_cpu_threshold = 0.9;

/// The resource that ran out in `r` (the first run past a capacity). `cpu_target_missed`: a
/// CPU utilisation target was missed there, so the CPU is the resource however busy.
resource binding_resource(const sim::experiment_result& r, bool cpu_target_missed = false);

/// Its JSON name: "cpu_wait_calls", "cpu_handlers", "cpu_rearms", "signal_queue",
/// "shared_set", "latency".
std::string to_string(resource x);

/// One phrase for a person: "the CPUs, 81% of their time in wait calls", "rtsig's signal
/// queue (1 200 overflows/s, each a full poll)", "latency: the CPUs are 40% busy".
std::string describe(resource x, const sim::experiment_result& r);

/// {"resource": ..., "cpu_by_use": {wait_calls, rescans, overflow_polls, rearms, handlers}}.
nlohmann::json binding_json(resource x, const sim::experiment_result& r);

}  // namespace pollscale::studies
