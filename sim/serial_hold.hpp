// One structure that one thread at a time may hold: the serial stage of docs/scaling.md,
// here the part of each pass over a shared interest set that the kernel runs under the
// set's own lock (one epoll instance that every thread waits on: its ready list and wait
// queue). A thread that finds it held waits, off its CPU, in arrival order; the holder's
// time runs on the holder's CPU (the server model runs it as a burst), and the structure
// passes to the next waiter when that burst ends.
//
// Kept apart from the CPUs (cpu_pool.hpp) because it is a resource of its own: with it
// held, C CPUs cannot pass more than 1/hold operations per second whatever C is, which
// is what makes a shared instance stop scaling (model/serial_stage.hpp solves the same
// network in closed form).
#pragma once

#include <cstdint>
#include <optional>

#include "sim/core/accumulators.hpp"
#include "sim/core/ring_fifo.hpp"

namespace pollscale::sim {

class serial_hold {
 public:
  /// `who` asks for the structure at `now` (seconds): true when it holds it now, false
  /// when it waits behind the holder and the earlier waiters.
  bool take(std::uint32_t who, double now);

  /// The holder gives it back at `now`: the next waiter, who holds it from now on, or
  /// none. Precondition: it is held.
  std::optional<std::uint32_t> release(double now);

  /// Restarts the statistics at `now` (end of warm-up); a holder or waiters keep their place.
  void reset_statistics(double now);

  /// Fraction of [reset, now] the structure was held.
  double busy_fraction(double now) const { return busy_.mean(now); }
  /// Passes that were granted since the reset, and the mean time they waited for it (s).
  std::uint64_t passes() const { return passes_; }
  double mean_wait_s() const { return passes_ ? wait_sum_s_ / static_cast<double>(passes_) : 0; }

 private:
  struct waiter {
    std::uint32_t who = 0;
    double since = 0;  ///< when it asked, s
  };
  void granted(double asked, double now);

  bool held_ = false;
  ring_fifo<waiter> waiting_;
  time_weighted busy_;
  std::uint64_t passes_ = 0;
  double wait_sum_s_ = 0;
};

}  // namespace pollscale::sim
