#include "sim/event_loop_server.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/cost_cache.hpp"
#include "sim/cpu_pool.hpp"
#include "sim/readiness_state.hpp"
#include "sim/ring_fifo.hpp"

namespace pollscale::sim {

namespace {

// What an event means to the server model; the low 56 bits of the tag carry an index
// (thread, connection, slice) or an epoch.
enum kind : std::uint64_t {
  k_burst = 1,       // a thread's CPU burst ended
  k_woken,           // a woken thread's wake-up latency elapsed
  k_request_arrives, // a request reached the server's connection
  k_reply_arrives,   // a reply reached its client
  k_client_sends,    // a closed-loop client finished thinking
  k_open_arrival,    // the next open-loop request (index: on/off epoch)
  k_switch,          // on/off workload changes phase
  k_keepalive,       // an idle connection speaks
  k_warmup_end,
  k_slice_end,
  k_generator_reads,  // the load generator starts on a reply (after waking if it slept)
  k_generator_done,   // ... and has written the connection's next request
};
constexpr std::uint64_t index_mask = (std::uint64_t{1} << 56) - 1;
std::uint64_t tag_of(kind k, std::uint64_t index) { return static_cast<std::uint64_t>(k) << 56 | index; }

enum class phase { calling, rescanning, overflow_polling, sleeping, waking, handling };

struct thread_state {
  int cpu = 0;
  std::uint32_t set = 0;
  phase now = phase::calling;
  std::vector<std::uint32_t> batch;  // events returned by the last call, being handled
  std::size_t next = 0;
  std::uint32_t current = 0;         // connection whose event is being handled
};

class server_model final : public process {
 public:
  server_model(const server_config& c, const workload& w, const cost_model& m, const run_options& o, engine& e)
      : config_(c), load_(w), options_(o), e_(e), g_(o.seed), costs_(m), cpus_(c.cpus),
        state_(static_cast<std::uint32_t>(w.active + w.idle), set_count(c),
               c.style == notification::signal_queue ? c.signal_queue_limit : 0),
        threads_(static_cast<std::size_t>(c.threads)), clients_(static_cast<std::size_t>(w.active)) {
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

  void run_burst(std::uint32_t t, phase p, double cost) {
    threads_[t].now = p;
    cpus_.run(e_, threads_[t].cpu, cost, *this, tag_of(k_burst, t));
  }

  void start_call(std::uint32_t t);
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
  void open_arrival(std::uint64_t epoch);
  void switch_phase();
  void warmup_end();

  const server_config& config_;
  const workload& load_;
  const run_options& options_;
  engine& e_;
  rng g_;
  cost_cache costs_;
  cpu_pool cpus_;
  readiness_state state_;
  std::vector<thread_state> threads_;
  std::vector<ring_fifo<double>> clients_;  // send times of each active connection's requests
  bool generator_busy_ = false;             // the load generator is awake and working
  ring_fifo<std::uint32_t> generator_queue_;  // replies waiting for it
  bool on_ = true;                          // on/off workload phase
  std::uint64_t epoch_ = 0;                 // bumped at each on/off switch

  bool measuring_ = false;
  std::uint64_t replies_ = 0, calls_ = 0, handled_ = 0, wakeups_ = 0, futile_ = 0, keepalives_ = 0;
  std::uint64_t overflows_at_start_ = 0;
  double latency_sum_ = 0;
  latency_histogram latency_;
  std::vector<std::uint64_t> slice_replies_;
};

void server_model::start() {
  const auto active = static_cast<std::uint32_t>(load_.active);
  if (options_.warmup_s > 0) e_.schedule_at(options_.warmup_s, *this, tag_of(k_warmup_end, 0));
  const double span = options_.duration_s / options_.slices;
  for (int s = 0; s < options_.slices; ++s)
    e_.schedule_at(options_.warmup_s + span * (s + 1), *this, tag_of(k_slice_end, static_cast<std::uint64_t>(s)));
  for (std::uint32_t t = 0; t < threads_.size(); ++t) start_call(t);
  switch (load_.arrivals) {
    case arrival_kind::closed:
      for (std::uint32_t c = 0; c < active; ++c) e_.schedule_in(load_.think.sample(g_), *this, tag_of(k_client_sends, c));
      break;
    case arrival_kind::on_off:
      e_.schedule_in(load_.on_period.sample(g_), *this, tag_of(k_switch, 0));
      [[fallthrough]];
    case arrival_kind::poisson:
      e_.schedule_in(exponential(g_, 1 / load_.rate_per_s), *this, tag_of(k_open_arrival, epoch_));
      break;
  }
  if (load_.idle_activity)
    for (std::uint32_t c = active; c < active + static_cast<std::uint32_t>(load_.idle); ++c)
      e_.schedule_in(load_.idle_activity->sample(g_), *this, tag_of(k_keepalive, c));
}

void server_model::on_event(engine&, std::uint64_t tag) {
  const auto index = tag & index_mask;
  const auto i32 = static_cast<std::uint32_t>(index);
  switch (static_cast<kind>(tag >> 56)) {
    case k_burst: burst_done(i32); break;
    case k_woken: woken(i32); break;
    case k_request_arrives: request_arrives(i32); break;
    case k_reply_arrives: reply_arrives(i32); break;
    case k_client_sends: client_sends(i32); break;
    case k_open_arrival: open_arrival(index); break;
    case k_switch: switch_phase(); break;
    case k_keepalive:
      e_.schedule_in(load_.network.sample(g_), *this, tag_of(k_request_arrives, index));
      break;
    case k_warmup_end: warmup_end(); break;
    case k_slice_end: slice_replies_.push_back(replies_); break;
    case k_generator_reads: client_reads(i32); break;
    case k_generator_done: generator_done(i32); break;
  }
}

// --- the server's threads ---

void server_model::start_call(std::uint32_t t) {
  thread_state& th = threads_[t];
  ++calls_;
  if (signals() && state_.overflowed()) {
    const wait_query q{state_.registered_total(), state_.ready_total(), false};
    run_burst(t, phase::overflow_polling, costs_.overflow_poll_s(q));
    return;
  }
  const std::int64_t ready = signals() ? (state_.signals_queued() > 0 ? 1 : 0) : state_.ready(th.set);
  const wait_query q{state_.registered(th.set), ready, true};
  run_burst(t, phase::calling, costs_.wait_call_s(q));
}

void server_model::burst_done(std::uint32_t t) {
  thread_state& th = threads_[t];
  switch (th.now) {
    case phase::calling:
    case phase::rescanning:
      if (signals())
        after_signal_call(t);
      else
        after_call(t);
      break;
    case phase::overflow_polling:
      state_.flush_signals();
      th.batch.clear();
      th.next = 0;
      state_.claim_all(th.batch);
      handled_ += th.batch.size();
      handle_next(t);
      break;
    case phase::handling: finish_request(t, th.current); break;
    case phase::sleeping:
    case phase::waking: POLLSCALE_SIM_EXPECT(false, "a sleeping thread finished a CPU burst"); break;
  }
}

void server_model::after_call(std::uint32_t t) {
  thread_state& th = threads_[t];
  th.batch.clear();
  th.next = 0;
  state_.claim(th.set, config_.max_events_per_call, th.batch);
  if (!th.batch.empty()) {
    handled_ += th.batch.size();
    handle_next(t);
  } else if (th.now == phase::rescanning) {
    // Another thread took the events first: this call returns and the loop calls again.
    ++futile_;
    start_call(t);
  } else {
    th.now = phase::sleeping;
    state_.add_sleeper(th.set, t);
  }
}

void server_model::after_signal_call(std::uint32_t t) {
  thread_state& th = threads_[t];
  if (state_.overflowed()) {
    start_call(t);  // SIGIO: the next call is the full poll
    return;
  }
  if (state_.signals_queued() == 0) {
    if (th.now == phase::rescanning) ++futile_;
    th.now = phase::sleeping;
    state_.add_sleeper(0, t);
    return;
  }
  const std::uint32_t conn = state_.take_signal();
  th.batch.clear();
  th.next = 0;
  if (conn == UINT32_MAX) {
    ++futile_;  // a stale signal: its data was read already
    start_call(t);
    return;
  }
  th.batch.push_back(conn);
  ++handled_;
  handle_next(t);
}

void server_model::wake_sleepers(std::uint32_t set, int waker_cpu) {
  do {
    if (!state_.has_sleeper(set)) return;
    const std::uint32_t t = state_.pop_sleeper(set);
    threads_[t].now = phase::waking;
    ++wakeups_;
    e_.schedule_in(costs_.wakeup_s(threads_[t].cpu == waker_cpu), *this, tag_of(k_woken, t));
  } while (config_.wake == wake_policy::all);
}

void server_model::woken(std::uint32_t t) {
  const thread_state& th = threads_[t];
  const std::int64_t ready = signals() ? (state_.signals_queued() > 0 ? 1 : 0) : state_.ready(th.set);
  run_burst(t, phase::rescanning, costs_.rescan_s({state_.registered(th.set), ready, false}));
}

void server_model::handle_next(std::uint32_t t) {
  thread_state& th = threads_[t];
  if (th.next == th.batch.size()) {
    start_call(t);
    return;
  }
  th.current = th.batch[th.next++];
  const double cost = costs_.handler_s() + costs_.rearm_s(state_.registered(th.set)) + load_.app_work.sample(g_);
  run_burst(t, phase::handling, cost);
}

void server_model::finish_request(std::uint32_t t, std::uint32_t conn) {
  thread_state& th = threads_[t];
  if (conn < clients_.size()) {
    e_.schedule_in(load_.network.sample(g_), *this, tag_of(k_reply_arrives, conn));
  } else {
    if (measuring_) ++keepalives_;
    e_.schedule_in(load_.idle_activity->sample(g_), *this, tag_of(k_keepalive, conn));
  }
  if (state_.request_handled(conn)) {
    if (signals()) {
      // rtsig servers read a signalled fd until EAGAIN: handle the next request now.
      if (state_.claim_connection(conn)) th.batch.push_back(conn);
    } else {
      wake_sleepers(state_.set_of(conn), th.cpu);
    }
  }
  handle_next(t);
}

// --- the clients ---

void server_model::client_sends(std::uint32_t conn) {
  clients_[conn].push(e_.now());
  e_.schedule_in(load_.network.sample(g_), *this, tag_of(k_request_arrives, conn));
}

void server_model::request_arrives(std::uint32_t conn) {
  const bool became_ready = state_.request_arrived(conn);
  if (signals())
    wake_sleepers(0, config_.irq_cpu);  // a queued signal (or SIGIO) wakes one waiter
  else if (became_ready)
    wake_sleepers(state_.set_of(conn), config_.irq_cpu);
}

void server_model::reply_arrives(std::uint32_t conn) {
  if (!load_.generator) {
    client_reads(conn);
    client_done(conn);
    return;
  }
  if (generator_busy_) {
    generator_queue_.push(conn);
    return;
  }
  generator_busy_ = true;
  e_.schedule_in(load_.generator->wakeup.sample(g_), *this, tag_of(k_generator_reads, conn));
}

// The client reads its reply: the request's round trip ends here.
void server_model::client_reads(std::uint32_t conn) {
  const double sent = clients_[conn].pop();
  if (measuring_) {
    const double latency = e_.now() - sent;
    ++replies_;
    latency_sum_ += latency;
    latency_.add(latency);
  }
  if (load_.generator) e_.schedule_in(load_.generator->per_message.sample(g_), *this, tag_of(k_generator_done, conn));
}

void server_model::client_done(std::uint32_t conn) {
  if (load_.arrivals == arrival_kind::closed)
    e_.schedule_in(load_.think.sample(g_), *this, tag_of(k_client_sends, conn));
}

void server_model::generator_done(std::uint32_t conn) {
  client_done(conn);
  if (generator_queue_.empty())
    generator_busy_ = false;
  else
    client_reads(generator_queue_.pop());
}

void server_model::open_arrival(std::uint64_t epoch) {
  if (epoch != epoch_ || !on_) return;  // scheduled before an off switch: void
  client_sends(static_cast<std::uint32_t>(uniform_index(g_, static_cast<std::uint64_t>(load_.active))));
  e_.schedule_in(exponential(g_, 1 / load_.rate_per_s), *this, tag_of(k_open_arrival, epoch_));
}

void server_model::switch_phase() {
  on_ = !on_;
  ++epoch_;
  e_.schedule_in((on_ ? load_.on_period : load_.off_period).sample(g_), *this, tag_of(k_switch, 0));
  if (on_) e_.schedule_in(exponential(g_, 1 / load_.rate_per_s), *this, tag_of(k_open_arrival, epoch_));
}

void server_model::warmup_end() {
  measuring_ = true;
  cpus_.reset_statistics(e_.now());
  replies_ = calls_ = handled_ = wakeups_ = futile_ = keepalives_ = 0;
  overflows_at_start_ = state_.overflows();
  latency_sum_ = 0;
  latency_.clear();
}

server_result server_model::finish() {
  server_result r;
  const double end = options_.warmup_s + options_.duration_s;
  r.measured_s = options_.duration_s;
  r.replies = replies_;
  r.throughput = static_cast<double>(replies_) / options_.duration_s;
  r.mean_latency_s = replies_ ? latency_sum_ / static_cast<double>(replies_) : 0;
  r.latency = std::move(latency_);
  for (int c = 0; c < cpus_.size(); ++c) r.cpu_utilisation.push_back(cpus_.utilisation(c, end));
  r.calls = calls_;
  r.calls_per_s = static_cast<double>(calls_) / options_.duration_s;
  r.events_per_call = calls_ ? static_cast<double>(handled_) / static_cast<double>(calls_) : 0;
  r.wakeups = wakeups_;
  r.futile_wakeups = futile_;
  r.overflows = state_.overflows() - overflows_at_start_;
  r.keepalives = keepalives_;
  const double span = options_.duration_s / options_.slices;
  std::uint64_t before = 0;
  for (std::uint64_t cumulative : slice_replies_) {
    r.slice_throughput.push_back(static_cast<double>(cumulative - before) / span);
    before = cumulative;
  }
  r.model_bytes = state_.memory_bytes() + e_.queue_memory_bytes();
  return r;
}

void validate(const run_options& o) {
  if (!std::isfinite(o.duration_s) || o.duration_s <= 0) throw std::invalid_argument("duration must be finite and > 0 s");
  if (!std::isfinite(o.warmup_s) || o.warmup_s < 0) throw std::invalid_argument("warm-up must be finite and >= 0 s");
  if (o.slices < 10 || o.slices > 100000) throw std::invalid_argument("slices must be in 10..100000");
}

}  // namespace

interest_sharing parse_interest_sharing(const std::string& text) {
  if (text == "per_thread") return interest_sharing::per_thread;
  if (text == "shared") return interest_sharing::shared;
  throw std::invalid_argument("interest '" + text + "' is not one of per_thread, shared");
}

wake_policy parse_wake_policy(const std::string& text) {
  if (text == "all") return wake_policy::all;
  if (text == "one") return wake_policy::one;
  throw std::invalid_argument("wake '" + text + "' is not one of all, one");
}

std::string to_string(interest_sharing s) { return s == interest_sharing::shared ? "shared" : "per_thread"; }
std::string to_string(wake_policy w) { return w == wake_policy::all ? "all" : "one"; }

void server_config::validate() const {
  if (cpus < 1 || cpus > 4096) throw std::invalid_argument("cpus must be in 1..4096");
  if (threads < 1 || threads > 65536) throw std::invalid_argument("threads must be in 1..65536");
  if (max_events_per_call < 0) throw std::invalid_argument("max events per call must be >= 0");
  if (style == notification::signal_queue && signal_queue_limit < 1)
    throw std::invalid_argument("signal queue limit must be >= 1");
  if (irq_cpu < 0 || irq_cpu >= cpus) throw std::invalid_argument("irq cpu must be one of the simulated CPUs");
}

server_config default_server_config(const std::string& mechanism) {
  server_config c;
  c.mechanism = mechanism;
  if (mechanism == "select" || mechanism == "pselect" || mechanism == "poll" || mechanism == "ppoll") {
    c.wake = wake_policy::all;
  } else if (mechanism == "epoll" || mechanism == "io_uring") {
    c.wake = wake_policy::one;
  } else if (mechanism == "rtsig") {
    c.style = notification::signal_queue;
    c.sharing = interest_sharing::shared;
    c.wake = wake_policy::one;
  } else {
    throw std::invalid_argument("mechanism '" + mechanism +
                                "' is not one of select, pselect, poll, ppoll, epoll, rtsig, io_uring");
  }
  return c;
}

server_result simulate_server(const server_config& config, const workload& load, const cost_model& costs,
                              const run_options& options) {
  config.validate();
  load.validate();
  validate(options);
  if (load.arrivals != arrival_kind::closed && !(load.rate_per_s > 0))
    throw std::invalid_argument("open arrivals need a rate > 0");
  cost_cache(costs).validate_constants();
  engine e(options.scheduler);
  server_model m(config, load, costs, options, e);
  m.start();
  e.run_until(options.warmup_s + options.duration_s);
  server_result r = m.finish();
  r.events = e.events_fired();
  return r;
}

}  // namespace pollscale::sim
