// The event-loop server model's internals (sim/event_loop_server.hpp describes what it
// models): one process that receives every event of a replication. Its methods live in
// server_model.cpp (the server's threads, warm-up, results) and server_clients.cpp (the
// workload's clients and the load generator). Not part of sim/'s public interface.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/call_variation.hpp"
#include "sim/core/ring_fifo.hpp"
#include "sim/cost_cache.hpp"
#include "sim/cpu_pool.hpp"
#include "sim/event_loop_server.hpp"
#include "sim/readiness_state.hpp"
#include "sim/serial_hold.hpp"

namespace pollscale::sim::detail {

// What an event means to the server model; the low 56 bits of the tag carry an index
// (thread, connection, slice) or an epoch.
enum kind : std::uint64_t {
  k_burst = 1,        // a thread's CPU burst ended
  k_woken,            // a woken thread's wake-up latency elapsed
  k_request_arrives,  // a request reached the server's connection
  k_reply_arrives,    // a reply reached its client
  k_client_sends,     // a closed-loop client finished thinking
  k_open_arrival,     // the next open-loop request (index: on/off epoch)
  k_switch,           // on/off workload changes phase
  k_keepalive,        // an idle connection speaks
  k_warmup_end,
  k_slice_end,
  k_generator_reads,  // the load generator starts on a reply (after waking if it slept)
  k_generator_done,   // ... and has written the connection's next request
};
inline constexpr std::uint64_t index_mask = (std::uint64_t{1} << 56) - 1;
inline std::uint64_t tag_of(kind k, std::uint64_t index) { return static_cast<std::uint64_t>(k) << 56 | index; }

// queued: waiting, off its CPU, for the shared set's serial part; holding: running it.
enum class phase { calling, rescanning, overflow_polling, sleeping, waking, handling, queued, holding };

struct thread_state {
  int cpu = 0;
  std::uint32_t set = 0;
  phase now = phase::calling;
  std::vector<std::uint32_t> batch;  // events returned by the last call, being handled
  std::size_t next = 0;
  std::uint32_t current = 0;    // connection whose event is being handled
  double hold_s = 0;            // the serial part of the pass in progress, still to run (s)
  phase pass = phase::calling;  // the pass it belongs to: calling or rescanning
};

class server_model final : public process {
 public:
  server_model(const server_config& c, const workload& w, const cost_model& m, const run_options& o, engine& e)
      : config_(c),
        load_(w),
        options_(o),
        e_(e),
        g_(o.seed),
        spread_g_(o.seed ^ spread_stream),
        variation_(m.variation.get()),
        costs_(m),
        width_(m.width.time_factor(c.cpus)),
        cpus_(c.cpus),
        state_(static_cast<std::uint32_t>(w.active + w.idle), set_count(c),
               c.style == notification::signal_queue ? c.signal_queue_limit : 0),
        threads_(static_cast<std::size_t>(c.threads)),
        clients_(static_cast<std::size_t>(w.active)),
        holds_(c.sharing == interest_sharing::shared && c.style == notification::readiness && c.threads > 1 &&
               m.shared_set_hold_s > 0) {
    for (std::size_t t = 0; t < threads_.size(); ++t) {
      threads_[t].cpu = static_cast<int>(t % static_cast<std::size_t>(c.cpus));
      threads_[t].set = static_cast<std::uint32_t>(t % set_count(c));
    }
    measuring_ = o.warmup_s <= 0;
  }

  void start();
  void on_event(engine& e, std::uint64_t tag) override;
  server_result finish();

 private:
  static std::uint32_t set_count(const server_config& c) {
    return c.sharing == interest_sharing::shared || c.style == notification::signal_queue
               ? 1U
               : static_cast<std::uint32_t>(c.threads);
  }
  bool signals() const { return config_.style == notification::signal_queue; }
  // A call over `registered` fds with `ready` ready, made by a worker (a thread of the server's process, or a
  // process of one thread).
  wait_query query(std::int64_t registered, std::int64_t ready, bool blocking) const {
    wait_query q{registered, ready, blocking};
    q.process_threads = config_.process_threads();
    return q;
  }

  // `rearm` of `cost` (a handling burst's re-arm) is accounted as cpu_use::rearms.
  // On a machine wider than the costs' own every CPU delivers less (cost_model::width).
  void run_burst(std::uint32_t t, phase p, double cost, double rearm = 0) {
    cost *= width_;
    rearm *= width_;
    threads_[t].now = p;
    if (measuring_) account(p == phase::holding ? threads_[t].pass : p, cost, rearm);
    cpus_.run(e_, threads_[t].cpu, cost, *this, tag_of(k_burst, t));
  }
  void account(phase p, double cost, double rearm);

  // A wait call's, a handler's or a wake-up's mean cost, varied as single calls vary when the cost model
  // carries a spread (sim/call_variation.hpp), from a stream of its own.
  double varied_wait(double mean_s) { return variation_ ? variation_->wait_call_s(mean_s, spread_g_) : mean_s; }
  double varied_handler(double mean_s) { return variation_ ? variation_->handler_s(mean_s, spread_g_) : mean_s; }
  double varied_wakeup(bool same_cpu, double mean_s) {
    return variation_ ? variation_->wakeup_s(same_cpu, mean_s, spread_g_) : mean_s;
  }
  // Any fixed odd constant: the spread's stream must differ from the workload's (same seed).
  static constexpr std::uint64_t spread_stream = 0x5851f42d4c957f2dULL;

  void start_call(std::uint32_t t);
  void run_pass(std::uint32_t t, phase p, double cost);
  void queue_for_set(std::uint32_t t);
  void finish_hold(std::uint32_t t);
  void after_call(std::uint32_t t);
  void after_signal_call(std::uint32_t t);
  void burst_done(std::uint32_t t);
  void wake_sleepers(std::uint32_t set, int waker_cpu);
  void woken(std::uint32_t t);
  void handle_next(std::uint32_t t);
  void finish_request(std::uint32_t t, std::uint32_t conn);

  void client_sends(std::uint32_t conn);
  void request_arrives(std::uint32_t conn);
  void reply_arrives(std::uint32_t conn);
  void client_reads(std::uint32_t conn);
  void client_done(std::uint32_t conn);
  void generator_done(std::uint32_t conn);
  /// What a cost the workload gives the load generator is multiplied by: the replication's
  /// placement of the CPUs (the generator is on the other one), its machine and its width.
  double given_cost_factor() const { return costs_.cross_cpu_factor() * costs_.machine_factor() * width_; }
  void open_arrival(std::uint64_t epoch);
  void switch_phase();
  void warmup_end();

  const server_config& config_;
  const workload& load_;
  const run_options& options_;
  engine& e_;
  rng g_;
  rng spread_g_;                     // the call spread's draws
  const call_variation* variation_;  // null: every call costs its mean
  cost_cache costs_;
  /// cost_model::width at this server's CPUs: what every CPU burst and wake-up takes, as a
  /// multiple of its cost (1 at or below the width the costs were measured on).
  double width_ = 1;
  cpu_pool cpus_;
  readiness_state state_;
  std::vector<thread_state> threads_;
  std::vector<ring_fifo<double>> clients_;  // send times of each active connection's requests
  // Threads share one set whose passes hold its serial part (cost_model::shared_set_hold_s);
  // one thread alone never waits for it, so it is kept out of one-thread runs entirely.
  bool holds_ = false;
  serial_hold set_hold_;
  bool generator_busy_ = false;               // the load generator is awake and working
  ring_fifo<std::uint32_t> generator_queue_;  // replies waiting for it
  bool on_ = true;                            // on/off workload phase
  std::uint64_t epoch_ = 0;                   // bumped at each on/off switch

  bool measuring_ = false;
  std::uint64_t replies_ = 0, calls_ = 0, handled_ = 0, wakeups_ = 0, futile_ = 0, keepalives_ = 0;
  std::uint64_t overflows_at_start_ = 0;
  double latency_sum_ = 0;
  std::array<double, cpu_use_count> cpu_s_{};  // CPU-seconds by cpu_use, measured span
  latency_histogram latency_;
  std::vector<std::uint64_t> slice_replies_;
};

}  // namespace pollscale::sim::detail
