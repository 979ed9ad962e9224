// The event-loop server model: C CPUs, T threads (thread t on CPU t mod C), each looping
//   wait call -> handle every returned event -> wait call ...
// over an interest set whose cost comes from the cost model. Requests come from the
// workload's clients over connections registered in the sets.
//
// What is modelled:
// - a wait call with k ready costs wait_call_s(n, k, blocking); it returns the events
//   ready when it finishes (up to max_events_per_call), so threads sharing a set race for
//   them and a loser finds nothing and calls again;
// - with nothing ready the thread sleeps after paying the call's first pass; a request
//   that makes a connection ready wakes the set's sleepers (all of them: thundering herd;
//   or one: EPOLLEXCLUSIVE / a shared epoll instance). A woken thread runs after the
//   same-CPU or cross-CPU wake-up latency (network wake-ups start on `irq_cpu`), then pays
//   rescan_s for the pass after the wake-up;
// - each event costs handler_s + rearm_s + the workload's application work on the
//   thread's CPU, and its reply leaves at the end of that burst;
// - realtime signals: one signal queued per request into a queue of `signal_queue_limit`;
//   a thread dequeues one per call; when the queue overflows, the next call polls every
//   fd (overflow_poll_s), claims everything ready and flushes the queue;
// - threads sharing one set (interest shared) run the serial part of each pass over it
//   (cost_model::shared_set_hold_s: one epoll instance's ready list) one at a time, in
//   arrival order, waiting off their CPU (sim/serial_hold.hpp): the serial stage that
//   stops a shared instance scaling with CPUs (docs/scaling.md).
// Not modelled: preemption inside a burst, interrupts' own CPU time, NUMA, TCP.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/vocabulary.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/histogram.hpp"
#include "sim/costs.hpp"
#include "sim/record_field.hpp"
#include "sim/workload.hpp"

namespace pollscale::sim {

enum class interest_sharing {
  per_thread,  ///< connections partitioned: connection i in thread (i mod T)'s set
  shared,      ///< every thread waits on one set holding every connection
};
/// What the server's workers are: threads of one process, or processes of one thread each
/// (nginx's workers, a pre-fork server). A wait call of a thread in a process of several
/// takes a reference on each file it looks up; a process of one thread borrows it.
enum class worker_kind {
  threads,    ///< one process of `threads` threads (the default)
  processes,  ///< `threads` processes of one thread each, each its own descriptor table
};
enum class wake_policy {
  all,  ///< every sleeper of the set wakes (poll/select, level-triggered epoll per thread)
  one,  ///< one sleeper per readiness event (EPOLLEXCLUSIVE; edge-triggered shared epoll)
  /// one per readiness event, and one more sleeper each time a thread takes events from
  /// the set while others sleep: a level-triggered item stays on the ready list and the
  /// kernel wakes the next waiter for it (one shared level-triggered epoll instance: two
  /// wake-ups per connection measured, calibrate's accept_herd)
  level,
};
enum class notification {
  readiness,     ///< select, poll, epoll, io_uring: the call reports ready fds
  signal_queue,  ///< rtsig: one queued signal per event, bounded, overflow -> full poll
};

/// Where the active connections sit in each interest set's array, which decides how many
/// fds a blocking poll/select registers on before it meets the first ready one.
enum class ready_position {
  random,  ///< spread at random: n / (k + 1) registered on average
  first,   ///< at the start: none registered when one is ready
  last,    ///< at the end (opened after the idle ones, as in dphttpd's tests): n - k registered
};

interest_sharing parse_interest_sharing(const std::string& text);  ///< "per_thread" | "shared"
worker_kind parse_worker_kind(const std::string& text);            ///< "threads" | "processes"
std::string to_string(worker_kind w);
ready_position parse_ready_position(const std::string& text);  ///< "random" | "first" | "last"
std::string to_string(ready_position p);
wake_policy parse_wake_policy(const std::string& text);  ///< "all" | "one" | "level"
std::string to_string(interest_sharing s);
std::string to_string(wake_policy w);

struct server_config {
  std::string mechanism = "epoll";  ///< a name for reports; costs come from the cost model
  int cpus = 1;                     ///< >= 1
  int threads = 1;                  ///< >= 1: threads, or processes when workers says so
  worker_kind workers = worker_kind::threads;
  interest_sharing sharing = interest_sharing::per_thread;
  wake_policy wake = wake_policy::one;
  notification style = notification::readiness;
  std::int64_t max_events_per_call = 0;    ///< 0: no limit (poll reports every ready fd)
  std::int64_t signal_queue_limit = 1024;  ///< rtsig: RLIMIT_SIGPENDING-like bound, >= 1
  int irq_cpu = 0;                         ///< CPU where network arrivals wake sleepers
  ready_position active_pos = ready_position::random;

  /// Throws field_error naming the field (its key below) when a value is out of range.
  void validate() const;

  /// The threads of the process a wait call is made in (wait_query::process_threads): all
  /// of them for threads, 1 for processes.
  std::int64_t process_threads() const { return workers == worker_kind::processes ? 1 : threads; }
};

/// A server configuration's field as users spell it (sim/record_field.hpp).
using server_field = record_field<server_config>;

/// The fields a user sets, in the order --help lists their flags: cpus, threads, workers, interest,
/// wake, max_events_per_call (--max-events), signal_queue_limit (--signal-queue), irq_cpu
/// (--irq-cpu), active_pos (--active-pos). A flag without a default leaves the mechanism's
/// own (default_server_config): interest and wake.
std::span<const server_field> server_fields();

/// The field of that key, or of that flag; nullptr when none.
const server_field* server_field_by_key(std::string_view key);
const server_field* server_field_by_flag(std::string_view flag);

/// The usual configuration of a mechanism (datasets::traits): rtsig uses the signal queue,
/// others readiness; select/poll wake every sleeper, epoll and io_uring one. Throws
/// std::invalid_argument for a mechanism that is not measured on Linux.
server_config default_server_config(datasets::mechanism mechanism);
/// The same by name; throws for an unknown name.
server_config default_server_config(const std::string& mechanism);

struct run_options {
  double duration_s = 10;  ///< simulated time measured, after the warm-up, > 0
  double warmup_s = 1;     ///< simulated time discarded first, >= 0
  std::uint64_t seed = 1;
  scheduler_kind scheduler = scheduler_kind::binary_heap;
  int slices = 200;  ///< equal time slices of the measured span (MSER-5 input), >= 10
  /// When set and true, the replication throws sim::stopped (stop.hpp); not part of the
  /// result: the same options with or without a flag give the same figures.
  const std::atomic<bool>* stop_request = nullptr;
  /// Events one replication may fire (0: no limit); past it, sim::event_budget_exceeded.
  std::uint64_t max_events = 0;
};

/// What a server's CPU time went to: the first pass of wait calls, the passes after a
/// wake-up, rtsig's full polls after an overflow, re-arming one-shot interest, and the
/// events' handling (handler + application work). The order of server_result::cpu_s.
enum class cpu_use : std::uint8_t { wait_calls, rescans, overflow_polls, rearms, handlers };
inline constexpr std::size_t cpu_use_count = 5;
/// The use's name in JSON and tables: "wait_calls", "rescans", "overflow_polls", "rearms",
/// "handlers".
std::string_view to_string(cpu_use u);
/// Every use, in order.
std::array<cpu_use, cpu_use_count> cpu_uses();

struct server_result {
  double measured_s = 0;      ///< simulated time the figures cover
  std::uint64_t replies = 0;  ///< replies received by active clients
  double throughput = 0;      ///< replies per second
  /// Requests unanswered when the run ended that were older than every answered one: they
  /// count in the latencies at their age then (a lower bound on theirs).
  std::uint64_t unanswered = 0;
  double mean_latency_s = 0;            ///< mean request-to-reply time, s (with the unanswered)
  latency_histogram latency;            ///< request-to-reply times, s (with the unanswered)
  std::vector<double> cpu_utilisation;  ///< busy fraction of each CPU
  /// CPU-seconds of bursts started in the measured span, summed over CPUs, by cpu_use:
  /// divided by (cpus x measured_s), the utilisation split by what it was spent on.
  std::array<double, cpu_use_count> cpu_s{};
  std::uint64_t calls = 0;  ///< wait calls entered (a sleep and wake-up inside one call counts once)
  double calls_per_s = 0;
  double events_per_call = 0;        ///< events handled per wait call
  std::uint64_t wakeups = 0;         ///< sleepers woken
  std::uint64_t futile_wakeups = 0;  ///< woken threads that found nothing left to handle
  std::uint64_t overflows = 0;       ///< rtsig signal-queue overflows
  std::uint64_t keepalives = 0;      ///< idle-connection messages handled
  /// Fraction of the measured span the shared set's serial part was held
  /// (cost_model::shared_set_hold_s; 0 without one), and the mean time a pass waited for it, s.
  double shared_set_busy = 0;
  double shared_set_wait_s = 0;
  std::vector<double> slice_throughput;  ///< replies/s in each equal slice of the measured span
  std::uint64_t events = 0;              ///< engine events fired (warm-up included)
  std::size_t model_bytes = 0;           ///< memory of the model's state and the event queue at the end
};

/// Simulates one replication. Throws std::invalid_argument for a bad configuration,
/// workload or run option, or when the cost model returns a negative or non-finite cost
/// (naming the query).
server_result simulate_server(const server_config& config, const workload& load, const cost_model& costs,
                              const run_options& options);

}  // namespace pollscale::sim
