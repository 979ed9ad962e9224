// The gate of a threaded probe whose workers share one budget of operations per batch
// (shared_epoll's token passes, accept_herd's connections). The measuring thread raises a
// target and opens the gate; each worker waits and works while the operations done are
// below the target, and parks (a futex) once they reach it; stop() ends every worker's loop.
// Between two batches every worker is parked, so a quiet moment (every worker parked) ends
// a batch for good, and what the workers counted in it — their sleeps, for the wakeups
// metric (thread_series.hpp's sleep_tally) — is complete.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "calibrate/probes/thread_crew.hpp"
#include "calibrate/probes/thread_series.hpp"

namespace pollscale::calibrate::probes {

class work_gate {
 public:
  /// A worker's loop, until stop(): `step()` (one wait, and the work it finds) while `done`
  /// is below the target, parked otherwise. The worker's sleeps over each stretch between
  /// being let go and parking are added to sleeps() before it counts itself parked.
  template <class Step>
  void work(const std::atomic<std::uint64_t>& done, Step step) {
    sleep_tally tally;
    for (;;) {
      // gen_ before the target: a raise after these loads changes gen_, so the wait returns.
      const std::uint32_t gen = gen_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_acquire)) return;
      if (done.load(std::memory_order_acquire) >= target_.load(std::memory_order_acquire)) {
        tally.end(sleeps_);
        parked_.fetch_add(1, std::memory_order_acq_rel);
        gen_.wait(gen, std::memory_order_acquire);
        parked_.fetch_sub(1, std::memory_order_acq_rel);
        continue;
      }
      tally.begin();
      step();
    }
  }

  /// Lets the workers work until `target` operations are done.
  void raise(std::uint64_t target);
  /// Tells working workers the batch is over: the target becomes what is done now.
  void close(std::uint64_t done) { target_.store(done, std::memory_order_release); }
  /// Ends every worker's loop (the crew's stop function). noexcept.
  void stop() noexcept;
  /// Waits until `workers` workers are parked, rethrowing a worker's error; probe_failure
  /// naming `who` when they have not after 10 s.
  void wait_parked(std::size_t workers, const thread_crew& crew, std::string_view who) const;
  /// The operations the workers may have done by the end of this batch.
  std::uint64_t target() const { return target_.load(std::memory_order_acquire); }
  /// The workers' sleeps so far (complete once wait_parked has returned).
  std::uint64_t sleeps() const { return sleeps_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::uint64_t> target_{0};  // operations allowed so far
  std::atomic<std::uint64_t> sleeps_{0};
  std::atomic<std::uint32_t> gen_{0};  // bumped to wake the parked workers (a raise or a stop)
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> parked_{0};
};

}  // namespace pollscale::calibrate::probes
