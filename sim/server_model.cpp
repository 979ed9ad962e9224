#include "sim/server_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace pollscale::sim::detail {

void server_model::start() {
  const auto active = static_cast<std::uint32_t>(load_.active);
  if (options_.warmup_s > 0) e_.schedule_at(options_.warmup_s, *this, tag_of(k_warmup_end, 0));
  const double span = options_.duration_s / options_.slices;
  for (int s = 0; s < options_.slices; ++s)
    e_.schedule_at(options_.warmup_s + span * (s + 1), *this, tag_of(k_slice_end, static_cast<std::uint64_t>(s)));
  for (std::uint32_t t = 0; t < threads_.size(); ++t) start_call(t);
  switch (load_.arrivals) {
    case arrival_kind::closed:
      for (std::uint32_t c = 0; c < active; ++c)
        e_.schedule_in(load_.think.sample(g_), *this, tag_of(k_client_sends, c));
      break;
    case arrival_kind::on_off: e_.schedule_in(load_.on_period.sample(g_), *this, tag_of(k_switch, 0)); [[fallthrough]];
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
    case k_keepalive: e_.schedule_in(load_.network.sample(g_), *this, tag_of(k_request_arrives, index)); break;
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
    run_burst(t, phase::overflow_polling,
              varied_wait(costs_.overflow_poll_s(query(state_.registered_total(), state_.ready_total(), false))));
    return;
  }
  const std::int64_t ready = signals() ? (state_.signals_queued() > 0 ? 1 : 0) : state_.ready(th.set);
  wait_query q = query(state_.registered(th.set), ready, true);
  if (config_.active_pos == ready_position::first) q.before_first_ready = 0;
  if (config_.active_pos == ready_position::last) q.before_first_ready = static_cast<double>(q.registered - ready);
  run_pass(t, phase::calling, varied_wait(costs_.wait_call_s(q)));
}

// A wait call or a rescan: on a shared set whose passes hold its serial part, the rest of
// the pass first, on the thread's CPU, then the serial part in turn (queue_for_set).
void server_model::run_pass(std::uint32_t t, phase p, double cost) {
  thread_state& th = threads_[t];
  th.pass = p;
  th.hold_s = holds_ ? std::min(costs_.shared_set_hold_s(), cost) : 0;
  run_burst(t, p, cost - th.hold_s);
}

void server_model::queue_for_set(std::uint32_t t) {
  threads_[t].now = phase::queued;
  if (set_hold_.take(t, e_.now())) run_burst(t, phase::holding, threads_[t].hold_s);
}

// The pass is over: the set goes to the next waiter, and the thread reads what its pass found.
void server_model::finish_hold(std::uint32_t t) {
  thread_state& th = threads_[t];
  th.hold_s = 0;
  th.now = th.pass;
  if (const auto next = set_hold_.release(e_.now())) run_burst(*next, phase::holding, threads_[*next].hold_s);
  after_call(t);
}

void server_model::burst_done(std::uint32_t t) {
  thread_state& th = threads_[t];
  switch (th.now) {
    case phase::calling:
    case phase::rescanning:
      if (th.hold_s > 0)
        queue_for_set(t);
      else if (signals())
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
    case phase::holding: finish_hold(t); break;
    case phase::sleeping:
    case phase::waking:
    case phase::queued: POLLSCALE_SIM_EXPECT(false, "a thread off its CPU finished a CPU burst"); break;
  }
}

void server_model::after_call(std::uint32_t t) {
  thread_state& th = threads_[t];
  th.batch.clear();
  th.next = 0;
  state_.claim(th.set, config_.max_events_per_call, th.batch);
  if (!th.batch.empty()) {
    handled_ += th.batch.size();
    // Level-triggered: what was handed out stays on the ready list until it is rechecked,
    // and the kernel wakes the next waiter for it (who finds it taken: a futile wake-up).
    if (config_.wake == wake_policy::level) wake_sleepers(th.set, th.cpu);
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
    const bool same = threads_[t].cpu == waker_cpu;
    e_.schedule_in(varied_wakeup(same, costs_.wakeup_s(same)) * width_, *this, tag_of(k_woken, t));
  } while (config_.wake == wake_policy::all);
}

void server_model::woken(std::uint32_t t) {
  const thread_state& th = threads_[t];
  const std::int64_t ready = signals() ? (state_.signals_queued() > 0 ? 1 : 0) : state_.ready(th.set);
  run_pass(t, phase::rescanning, varied_wait(costs_.rescan_s(query(state_.registered(th.set), ready, false))));
}

void server_model::handle_next(std::uint32_t t) {
  thread_state& th = threads_[t];
  if (th.next == th.batch.size()) {
    start_call(t);
    return;
  }
  th.current = th.batch[th.next++];
  const double rearm = costs_.rearm_s(state_.registered(th.set));
  run_burst(t, phase::handling, varied_handler(costs_.handler_s()) + rearm + load_.app_work.sample(g_), rearm);
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

void server_model::account(phase p, double cost, double rearm) {
  const auto add = [this](cpu_use u, double s) { cpu_s_[static_cast<std::size_t>(u)] += s; };
  switch (p) {
    case phase::calling: add(cpu_use::wait_calls, cost); break;
    case phase::rescanning: add(cpu_use::rescans, cost); break;
    case phase::overflow_polling: add(cpu_use::overflow_polls, cost); break;
    case phase::handling:
      add(cpu_use::rearms, rearm);
      add(cpu_use::handlers, cost - rearm);
      break;
    case phase::sleeping:
    case phase::waking:
    case phase::queued:
    case phase::holding: break;  // no CPU burst (a hold is booked under its pass)
  }
}

void server_model::warmup_end() {
  measuring_ = true;
  cpus_.reset_statistics(e_.now());
  set_hold_.reset_statistics(e_.now());
  replies_ = calls_ = handled_ = wakeups_ = futile_ = keepalives_ = 0;
  overflows_at_start_ = state_.overflows();
  latency_sum_ = 0;
  cpu_s_ = {};
  latency_.clear();
}

server_result server_model::finish() {
  server_result r;
  const double end = options_.warmup_s + options_.duration_s;
  r.measured_s = options_.duration_s;
  r.replies = replies_;
  r.throughput = static_cast<double>(replies_) / options_.duration_s;
  // A request still unanswered at the end that is already older than every answered one
  // counts at its age then, a lower bound on its latency: an overloaded server's slowest
  // requests never finish inside the run, and the few that do would otherwise stand for
  // them (a run with no reply at all read p99 0 s). Younger ones are in flight, their
  // latency unknown; counting them at their age would pull the figures down.
  const double answered_max = latency_.count() ? latency_.max() : 0;
  for (const auto& sent : clients_)
    for (std::size_t i = 0; i < sent.size(); ++i)
      if (const double age = end - sent[i]; age > answered_max) {
        latency_sum_ += age;
        latency_.add(age);
        ++r.unanswered;
      }
  const std::uint64_t timed = replies_ + r.unanswered;
  r.mean_latency_s = timed ? latency_sum_ / static_cast<double>(timed) : 0;
  r.latency = std::move(latency_);
  for (int c = 0; c < cpus_.size(); ++c) r.cpu_utilisation.push_back(cpus_.utilisation(c, end));
  r.cpu_s = cpu_s_;
  r.calls = calls_;
  r.calls_per_s = static_cast<double>(calls_) / options_.duration_s;
  r.events_per_call = calls_ ? static_cast<double>(handled_) / static_cast<double>(calls_) : 0;
  r.wakeups = wakeups_;
  r.futile_wakeups = futile_;
  r.overflows = state_.overflows() - overflows_at_start_;
  r.keepalives = keepalives_;
  r.shared_set_busy = set_hold_.busy_fraction(end);
  r.shared_set_wait_s = set_hold_.mean_wait_s();
  const double span = options_.duration_s / options_.slices;
  std::uint64_t before = 0;
  for (std::uint64_t cumulative : slice_replies_) {
    r.slice_throughput.push_back(static_cast<double>(cumulative - before) / span);
    before = cumulative;
  }
  r.model_bytes = state_.memory_bytes() + e_.queue_memory_bytes();
  return r;
}

}  // namespace pollscale::sim::detail
