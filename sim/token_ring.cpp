#include "sim/token_ring.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/cost_cache.hpp"
#include "sim/cpu_pool.hpp"
#include "sim/readiness_state.hpp"

namespace pollscale::sim {

namespace {

enum kind : std::uint64_t { k_burst = 1, k_woken, k_warmup_end };
constexpr std::uint64_t index_mask = (std::uint64_t{1} << 56) - 1;
std::uint64_t tag_of(kind k, std::uint64_t index) { return static_cast<std::uint64_t>(k) << 56 | index; }

enum class phase { calling, rescanning, sleeping, waking, handling };

struct ring_thread {
  int cpu = 0;
  phase now = phase::calling;
  std::vector<std::uint32_t> batch;
  std::size_t next = 0;
};

class ring_model final : public process {
 public:
  ring_model(const token_ring_config& c, const cost_model& m, const run_options& o, engine& e)
      : config_(c),
        e_(e),
        costs_(m),
        width_(m.width.time_factor(c.cpus)),
        cpus_(c.cpus),
        state_(static_cast<std::uint32_t>(c.pipes), static_cast<std::uint32_t>(c.threads), 0,
               readiness_state::partition::blocks),
        threads_(static_cast<std::size_t>(c.threads)) {
    for (std::size_t t = 0; t < threads_.size(); ++t)
      threads_[t].cpu = static_cast<int>(t % static_cast<std::size_t>(c.cpus));
    measuring_ = o.warmup_s <= 0;
    if (o.warmup_s > 0) e_.schedule_at(o.warmup_s, *this, tag_of(k_warmup_end, 0));
  }

  void start() {
    // Tokens first, so that the threads' first calls already see them.
    for (std::int64_t i = 0; i < config_.tokens; ++i)
      state_.request_arrived(static_cast<std::uint32_t>(i * config_.pipes / config_.tokens));
    for (std::uint32_t t = 0; t < threads_.size(); ++t) start_call(t);
  }

  void on_event(engine&, std::uint64_t tag) override {
    const auto t = static_cast<std::uint32_t>(tag & index_mask);
    switch (static_cast<kind>(tag >> 56)) {
      case k_burst: burst_done(t); break;
      case k_woken: run(t, phase::rescanning, costs_.rescan_s(query(t, false))); break;
      case k_warmup_end:
        measuring_ = true;
        passes_ = calls_ = handled_ = wakeups_ = 0;
        cpus_.reset_statistics(e_.now());
        break;
    }
  }

  token_ring_result finish(const run_options& o) const {
    token_ring_result r;
    r.passes = passes_;
    r.passes_per_s = static_cast<double>(passes_) / o.duration_s;
    r.calls = calls_;
    r.events_per_call = calls_ ? static_cast<double>(handled_) / static_cast<double>(calls_) : 0;
    r.wakeups = wakeups_;
    for (int c = 0; c < cpus_.size(); ++c) r.cpu_utilisation.push_back(cpus_.utilisation(c, o.warmup_s + o.duration_s));
    return r;
  }

 private:
  // Thread t's call over its pipes; the process has all the ring's threads.
  wait_query query(std::uint32_t t, bool blocking) const {
    wait_query q{state_.registered(t), state_.ready(t), blocking};
    q.process_threads = config_.threads;
    return q;
  }

  void run(std::uint32_t t, phase p, double cost) {
    threads_[t].now = p;
    cpus_.run(e_, threads_[t].cpu, cost * width_, *this, tag_of(k_burst, t));
  }

  void start_call(std::uint32_t t) {
    ++calls_;
    run(t, phase::calling, costs_.wait_call_s(query(t, true)));
  }

  void burst_done(std::uint32_t t) {
    ring_thread& th = threads_[t];
    if (th.now == phase::handling) {
      pass_token(t, th.batch[th.next - 1]);
      handle_next(t);
      return;
    }
    th.batch.clear();
    th.next = 0;
    state_.claim(t, 0, th.batch);
    handled_ += th.batch.size();
    if (!th.batch.empty()) {
      handle_next(t);
    } else if (th.now == phase::rescanning) {
      start_call(t);
    } else {
      th.now = phase::sleeping;
      state_.add_sleeper(t, t);
    }
  }

  void handle_next(std::uint32_t t) {
    ring_thread& th = threads_[t];
    if (th.next == th.batch.size()) {
      start_call(t);
      return;
    }
    ++th.next;
    run(t, phase::handling, costs_.handler_s());
  }

  void pass_token(std::uint32_t t, std::uint32_t pipe) {
    if (measuring_) ++passes_;
    state_.request_handled(pipe);
    const auto next = static_cast<std::uint32_t>((pipe + 1) % static_cast<std::uint64_t>(config_.pipes));
    if (!state_.request_arrived(next)) return;
    const std::uint32_t owner = state_.set_of(next);
    if (!state_.has_sleeper(owner)) return;
    const std::uint32_t sleeper = state_.pop_sleeper(owner);
    threads_[sleeper].now = phase::waking;
    if (measuring_) ++wakeups_;
    e_.schedule_in(costs_.wakeup_s(threads_[sleeper].cpu == threads_[t].cpu) * width_, *this, tag_of(k_woken, sleeper));
  }

  const token_ring_config& config_;
  engine& e_;
  cost_cache costs_;
  double width_ = 1;  ///< cost_model::width at the ring's CPUs (server_model's)
  cpu_pool cpus_;
  readiness_state state_;
  std::vector<ring_thread> threads_;
  bool measuring_ = false;
  std::uint64_t passes_ = 0, calls_ = 0, handled_ = 0, wakeups_ = 0;
};

}  // namespace

void token_ring_config::validate() const {
  if (pipes < 2 || pipes > (std::int64_t{1} << 31)) throw std::invalid_argument("pipes must be in 2..2^31");
  if (tokens < 1 || tokens > pipes) throw std::invalid_argument("tokens must be in 1..pipes");
  if (threads < 1 || threads > pipes) throw std::invalid_argument("threads must be in 1..pipes");
  if (cpus < 1 || cpus > 4096) throw std::invalid_argument("cpus must be in 1..4096");
}

token_ring_result simulate_token_ring(const token_ring_config& config, const cost_model& costs,
                                      const run_options& options) {
  config.validate();
  if (!std::isfinite(options.duration_s) || options.duration_s <= 0)
    throw std::invalid_argument("duration must be finite and > 0 s");
  if (!std::isfinite(options.warmup_s) || options.warmup_s < 0)
    throw std::invalid_argument("warm-up must be finite and >= 0 s");
  cost_cache(costs).validate_constants();
  engine e(options.scheduler);
  e.watch(options.stop_request);
  e.limit_events(options.max_events);
  ring_model m(config, costs, options, e);
  m.start();
  e.run_until(options.warmup_s + options.duration_s);
  token_ring_result r = m.finish(options);
  r.events = e.events_fired();
  return r;
}

}  // namespace pollscale::sim
