// The budget of a batch that workers making calls of their own share (private_sets' threads,
// private_processes' processes): the measuring side raises `target`, the calls allowed so
// far; each worker claims a chunk of what is left with one compare-and-swap on `claimed`,
// makes it, and counts it in its own `made` and in `done`. The counters may live in one
// process's memory or in a page shared by several (lock-free atomics work across processes).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>

namespace pollscale::calibrate::probes {

/// One chunk of at most `chunk` calls, made by `call()` one at a time: nullopt when nothing
/// was left to claim; else whether this chunk finished the budget (done reached target), so
/// that its worker wakes whoever waits for the batch.
template <class Call>
std::optional<bool> claim_and_call(std::atomic<std::uint64_t>& target, std::atomic<std::uint64_t>& claimed,
                                   std::atomic<std::uint64_t>& done, std::atomic<std::uint64_t>& made,
                                   std::uint64_t chunk, Call&& call) {
  const std::uint64_t goal = target.load(std::memory_order_acquire);
  std::uint64_t seen = claimed.load(std::memory_order_relaxed);
  for (;;) {
    if (seen >= goal) return std::nullopt;
    const std::uint64_t take = std::min(chunk, goal - seen);
    if (!claimed.compare_exchange_weak(seen, seen + take, std::memory_order_acq_rel, std::memory_order_relaxed))
      continue;
    for (std::uint64_t k = 0; k < take; ++k) call();
    made.store(made.load(std::memory_order_relaxed) + take, std::memory_order_release);
    return done.fetch_add(take, std::memory_order_acq_rel) + take == goal;
  }
}

}  // namespace pollscale::calibrate::probes
