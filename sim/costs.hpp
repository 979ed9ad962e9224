// The simulator's only window on what things cost: callables giving seconds, filled from a
// fitted model (app/ wires model/ in), from a costs file, or from flags. sim/ never
// includes model/; anything that can answer these questions can drive a simulation.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace pollscale::sim {

class call_variation;

/// One wait call as the cost model sees it.
struct wait_query {
  std::int64_t registered = 0;  ///< descriptors in the interest set the call covers, >= 0
  std::int64_t ready = 0;       ///< of those, ready when the call starts, 0..registered
  bool blocking = false;        ///< the call may sleep (timeout != 0)
  /// Descriptors scanned before the first ready one: a blocking poll/select registers a
  /// wait entry on each of them. Negative: unknown, ready ones at random positions
  /// (fds_before_first_ready() then gives registered / (ready + 1)).
  double before_first_ready = -1;
  /// Threads of the process making the call (the server's threads): from two on, the kernel
  /// takes a reference on every file it looks up, where a single-threaded process borrows
  /// it (docs/calibrate.md, "One thread or two"), so a scan costs more. >= 1.
  std::int64_t process_threads = 1;
};

/// The registration count of `q`: all registered fds when none is ready, else
/// q.before_first_ready, or registered / (ready + 1) when that is unknown.
double fds_before_first_ready(const wait_query& q);

/// What each CPU of a machine wider than the one the costs were measured on delivers
/// (docs/sim.md, "Wider machines than the costs' own"): the corpus's capacity efficiency, a
/// factor exp(log_mean) a doubling of the CPUs with a log sd log_sd between machines, and the
/// replication's own standard normal z (0 for costs that are not drawn). measured_cpus 0:
/// nothing known, every width runs at the measured speed.
struct cpu_width_pricing {
  int measured_cpus = 0;  ///< the CPUs of the machine the costs were measured on, >= 0
  double log_mean = 0;    ///< μ per doubling (model::capacity_efficiency), in [-1, 1]
  double log_sd = 0;      ///< τ per doubling, >= 0
  double z = 0;           ///< this replication's draw

  /// What every CPU burst takes on `cpus` CPUs, as a multiple of its measured cost:
  /// exp(−(μ·d + τ·√d·z)), d = log₂(cpus / measured_cpus) doublings past the measured width;
  /// 1 at or below it, or with nothing known.
  double time_factor(int cpus) const;
};

/// Every cost a server simulation needs, in seconds. The callables must be pure (same
/// query, same answer) and return finite values >= 0; the simulator checks every answer
/// and aborts on NaN or a negative cost, naming the query.
struct cost_model {
  /// One wait call's first pass: the kernel work and the user-space scan of its result.
  /// With blocking and nothing ready this is what is paid before going to sleep (for
  /// poll/select: copying, querying and registering a wait entry on every fd).
  std::function<double(const wait_query&)> wait_call_s;
  /// The pass after a wake-up inside the same call (poll/select re-query every fd; epoll
  /// collects the ready list). Called with blocking = false.
  std::function<double(const wait_query&)> rescan_s;
  /// Re-arming one fd after its event (EPOLLONESHOT's epoll_ctl MOD, an io_uring one-shot
  /// POLL_ADD), given the fds registered; empty or 0 when the mechanism needs none.
  std::function<double(std::int64_t registered)> rearm_s;
  /// rtsig only: the full poll() over every fd after the signal queue overflowed.
  std::function<double(const wait_query&)> overflow_poll_s;
  double handler_s = 0;           ///< handling one event: read the request, write the reply
  double wakeup_same_cpu_s = 0;   ///< from the waker's write to the sleeper running, same CPU
  double wakeup_cross_cpu_s = 0;  ///< the same when waker and sleeper are on different CPUs
  /// The part of each pass over a shared interest set (a wait call or the pass after a
  /// wake-up, when every thread waits on one set) that one thread at a time may run: one
  /// epoll instance's ready list and wait queue, the serial stage of docs/scaling.md. Taken
  /// out of the pass's cost, not added to it (one thread alone pays what it paid), and at
  /// most all of it. 0: the threads never wait for each other inside the kernel.
  double shared_set_hold_s = 0;
  /// Where this replication's host keeps the two CPUs, as a factor on what crosses them,
  /// relative to where the costs above were measured (studies/model_costs.hpp draws it when
  /// the model knows the host's placements; docs/sim.md, "Where the host puts the two CPUs").
  /// The cross-CPU costs above already carry it; the load generator, a process on the other
  /// CPU whose costs the workload gives, pays its costs times it. 1: none drawn.
  double cross_cpu_factor = 1;
  /// Where this replication's machine is, as a factor on everything it runs, relative to the
  /// run the costs were measured in: another run of a shared host meets it in another state
  /// (studies/model_costs.hpp draws it when the model carries the corpus's between-runs
  /// spread; docs/sim.md, "Between runs"). The costs above already carry it; the load
  /// generator, on the same machine, pays its given costs times it. 1: none drawn.
  double machine_factor = 1;
  /// What each CPU delivers on a wider machine than the costs' own (cpu_width_pricing): every
  /// CPU burst and wake-up of a server on more CPUs than measured_cpus, and the load
  /// generator's given costs, take width.time_factor(cpus) times their cost. The costs above
  /// do not carry it (the width is the server's, not the model's).
  cpu_width_pricing width;
  /// How single calls spread around the costs above (sim/call_variation.hpp); null: every
  /// call costs exactly its mean.
  std::shared_ptr<const call_variation> variation;
};

/// A wait call's cost as a linear function of its arguments (docs/model.md §2's terms):
/// per_call + per_registered * n + per_ready * k, plus, for a blocking call, a wait-queue
/// registration per fd scanned before the first ready one (fds_before_first_ready: all n
/// when none is ready; n / (k + 1) on average when k are ready at random positions). All in
/// seconds, >= 0.
struct linear_wait_cost {
  double per_call_s = 0;
  double per_registered_s = 0;
  double per_ready_s = 0;
  double per_registered_blocking_s = 0;

  /// The first pass of a call (cost_model::wait_call_s).
  double call_s(const wait_query& q) const;
  /// The pass after a wake-up: no registration (cost_model::rescan_s).
  double rescan_s(const wait_query& q) const;
};

/// A costs file: the wait cost of each mechanism plus the shared costs.
///
/// JSON (every number in nanoseconds, every field optional, 0 when absent):
/// { "mechanisms": { "poll": {"per_call_ns": 150, "per_registered_ns": 31,
///                            "per_ready_ns": 0, "per_registered_blocking_ns": 96,
///                            "rearm_ns": 0}, "epoll": {...}, ... },
///   "handler_ns": 2000, "wakeup_same_cpu_ns": 3000, "wakeup_cross_cpu_ns": 60000 }
struct cost_table {
  std::map<std::string, linear_wait_cost> wait;  ///< by mechanism name
  std::map<std::string, double> rearm_s;         ///< by mechanism name
  double handler_s = 0;
  double wakeup_same_cpu_s = 0;
  double wakeup_cross_cpu_s = 0;
};

/// Parses a costs document. `origin` (a file name) starts every error message. Throws
/// datasets::input_error (bad input: exit 2) for unknown keys, non-numbers, negative or
/// non-finite values.
cost_table parse_cost_table(const nlohmann::json& doc, const std::string& origin);

/// Reads and parses a costs file; throws datasets::input_error naming the file.
cost_table read_cost_table(const std::string& path);

/// The cost model of `mechanism` from the table. rtsig's overflow poll uses the table's
/// "poll" entry. Throws std::invalid_argument when the mechanism (or, for rtsig, poll) is
/// not in the table.
cost_model make_cost_model(const cost_table& table, const std::string& mechanism);

}  // namespace pollscale::sim
