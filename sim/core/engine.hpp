// The simulation core: a clock and a queue of events ordered by (time, sequence). It knows
// nothing of servers or clients; domain models are processes that schedule events for
// themselves and for each other (simcpp20's shape, without coroutines, so that an event
// costs 32 bytes and a virtual call).
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/core/binary_heap_queue.hpp"
#include "sim/core/calendar_queue.hpp"
#include "sim/core/event.hpp"
#include "sim/core/invariant.hpp"
#include "sim/core/stop.hpp"

namespace pollscale::sim {

/// Which data structure holds the pending events. Both give the same (time, sequence)
/// order, so a model's results do not depend on the choice, only its speed does.
enum class scheduler_kind {
  binary_heap,     ///< O(log n); best up to ~10^5 pending events
  calendar_queue,  ///< O(1) average; for very large pending sets (a million idle clients)
};

/// "heap" or "calendar"; throws std::invalid_argument naming the text otherwise.
scheduler_kind parse_scheduler_kind(std::string_view text);
std::string_view to_string(scheduler_kind kind);

class engine {
 public:
  explicit engine(scheduler_kind kind = scheduler_kind::binary_heap) : kind_(kind) {}
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// The simulated time of the event being handled (or where run_until stopped), s.
  sim_time now() const { return now_; }

  /// Schedules `target.on_event(*this, tag)` at absolute time `t`.
  /// Precondition: t is finite and t >= now() (aborts otherwise: a model bug).
  void schedule_at(sim_time t, process& target, std::uint64_t tag = 0) {
    POLLSCALE_SIM_EXPECT(t >= now_ && std::isfinite(t), "event scheduled in the past or at NaN/inf");
    const event e{t, next_seq_++, &target, tag};
    if (kind_ == scheduler_kind::binary_heap)
      heap_.push(e);
    else
      calendar_.push(e);
  }

  /// Schedules after `delay` seconds. Precondition: delay >= 0 and finite.
  void schedule_in(sim_time delay, process& target, std::uint64_t tag = 0) { schedule_at(now_ + delay, target, tag); }

  /// Fires the next event. Returns false when none is pending.
  bool step() {
    if (pending() == 0) return false;
    const event e = kind_ == scheduler_kind::binary_heap ? heap_.pop() : calendar_.pop();
    now_ = e.time;
    ++fired_;
    e.target->on_event(*this, e.tag);
    return true;
  }

  /// Fires every event with time <= `end` (unless stop() is called), then sets the clock
  /// to `end`. Precondition: end is finite and end >= now(). Throws `stopped` when the
  /// watched stop flag is set (stop.hpp).
  void run_until(sim_time end);

  /// Fires events until none is pending or stop() is called; throws `stopped` as run_until.
  void run();

  /// The flag run() and run_until() look at every stop_check_events events (null: none).
  void watch(const std::atomic<bool>* stop_request) { stop_request_ = stop_request; }

  /// At most about `max_events` events (0: no limit): run() and run_until() throw
  /// event_budget_exceeded at the first look past it (stop.hpp).
  void limit_events(std::uint64_t max_events) { max_events_ = max_events; }

  /// Makes the running run()/run_until() return after the current event.
  void stop() { stopped_ = true; }

  std::uint64_t events_fired() const { return fired_; }
  std::size_t pending() const { return kind_ == scheduler_kind::binary_heap ? heap_.size() : calendar_.size(); }
  /// Bytes the scheduler holds for pending events (spare capacity included).
  std::size_t queue_memory_bytes() const {
    return kind_ == scheduler_kind::binary_heap ? heap_.memory_bytes() : calendar_.memory_bytes();
  }
  scheduler_kind scheduler() const { return kind_; }

 private:
  sim_time next_time() { return kind_ == scheduler_kind::binary_heap ? heap_.top().time : calendar_.top().time; }

  scheduler_kind kind_;
  binary_heap_queue heap_;
  calendar_queue calendar_;
  sim_time now_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t fired_ = 0;
  bool stopped_ = false;
  const std::atomic<bool>* stop_request_ = nullptr;
  std::uint64_t max_events_ = 0;

  void check_stop_request() const {
    if (fired_ % stop_check_events != 0) return;
    if (stop_request_ && stop_request_->load(std::memory_order_relaxed)) throw stopped();
    if (max_events_ && fired_ >= max_events_) throw event_budget_exceeded(fired_, now_);
  }
};

}  // namespace pollscale::sim
