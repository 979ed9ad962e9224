// The kernel side of a simulated server: which connections are registered in which
// interest set, which are ready, who sleeps on each set, and (for realtime signals) the
// bounded signal queue. Pure bookkeeping with no notion of time or cost; the event-loop
// server decides when things happen and what they cost.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/ring_fifo.hpp"

namespace pollscale::sim {

class readiness_state {
 public:
  /// How connections are spread over the sets.
  enum class partition {
    interleaved,  ///< connection i in set i % sets (clients spread over threads)
    blocks,       ///< contiguous runs of ceil(n / sets) (a token ring's segments)
  };

  /// `connections` registered, spread over `sets` interest sets. `signal_limit` > 0
  /// bounds the signal queue (rtsig); 0 means no signal queue.
  readiness_state(std::uint32_t connections, std::uint32_t sets, std::int64_t signal_limit,
                  partition how = partition::interleaved);

  std::uint32_t set_of(std::uint32_t conn) const {
    return how_ == partition::interleaved ? static_cast<std::uint32_t>(conn % sets_.size()) : conn / block_;
  }
  std::int64_t registered(std::uint32_t set) const { return sets_[set].registered; }
  std::int64_t ready(std::uint32_t set) const { return sets_[set].ready_count; }
  std::int64_t registered_total() const { return static_cast<std::int64_t>(conns_.size()); }
  std::int64_t ready_total() const { return ready_total_; }
  /// Requests received on `conn` and not yet handled.
  std::uint32_t pending(std::uint32_t conn) const { return conns_[conn].pending; }

  /// A request reached `conn`. Returns true when the connection became ready (it was
  /// not), which is when sleepers must be woken. With a signal queue, queues one signal
  /// per request (no coalescing) or, when the queue is full, raises the overflow flag.
  bool request_arrived(std::uint32_t conn);

  /// One request of `conn` was handled. Returns true when requests remain, in which case
  /// the connection is ready again (level-triggered) and queued at the back of its set.
  bool request_handled(std::uint32_t conn);

  /// Takes up to `limit` (0: no limit) ready connections of `set` in readiness order,
  /// marking them not ready while they are handled. Appends them to `out`.
  void claim(std::uint32_t set, std::int64_t limit, std::vector<std::uint32_t>& out);

  // --- the signal queue (rtsig) ---
  bool has_signal_queue() const { return signal_limit_ > 0; }
  bool overflowed() const { return overflow_; }
  std::size_t signals_queued() const { return signals_.size(); }
  std::uint64_t overflows() const { return overflows_; }
  /// Dequeues one signal; returns its connection if it is still ready (and claims it),
  /// or UINT32_MAX for a stale signal whose data an earlier call already consumed.
  /// Precondition: signals_queued() > 0.
  std::uint32_t take_signal();
  /// Recovery after an overflow: drops every queued signal and clears the flag (the
  /// caller then polls every fd and claims all ready ones with claim_all()).
  void flush_signals();
  /// Claims every ready connection of every set, in set order then readiness order.
  void claim_all(std::vector<std::uint32_t>& out);
  /// Claims `conn` alone if it is ready (a handler that keeps reading the same fd until
  /// EAGAIN, as rtsig servers do). Returns whether it was ready.
  bool claim_connection(std::uint32_t conn);

  // --- sleepers ---
  void add_sleeper(std::uint32_t set, std::uint32_t thread) { sets_[set].sleepers.push(thread); }
  bool has_sleeper(std::uint32_t set) const { return !sets_[set].sleepers.empty(); }
  /// Removes and returns the longest-sleeping thread of `set` (the kernel's FIFO order of
  /// exclusive waiters). Precondition: has_sleeper(set).
  std::uint32_t pop_sleeper(std::uint32_t set) { return sets_[set].sleepers.pop(); }

  std::size_t memory_bytes() const;

 private:
  struct connection {
    std::uint32_t epoch = 0;    // bumped each time it becomes ready: stale queue entries differ
    std::uint32_t pending = 0;  // requests not yet handled
    bool ready = false;
  };
  struct entry {
    std::uint32_t conn;
    std::uint32_t epoch;
  };
  struct interest_set {
    std::int64_t registered = 0;
    std::int64_t ready_count = 0;
    ring_fifo<entry> ready;
    ring_fifo<std::uint32_t> sleepers;
  };

  void make_ready(std::uint32_t conn);

  std::vector<connection> conns_;
  std::vector<interest_set> sets_;
  partition how_;
  std::uint32_t block_ = 1;
  std::int64_t ready_total_ = 0;
  std::int64_t signal_limit_ = 0;
  ring_fifo<std::uint32_t> signals_;
  bool overflow_ = false;
  std::uint64_t overflows_ = 0;
};

}  // namespace pollscale::sim
