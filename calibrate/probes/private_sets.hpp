#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "calibrate/channel.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/probes/own_pipe.hpp"
#include "calibrate/probes/thread_crew.hpp"
#include "calibrate/waiter.hpp"

namespace pollscale::calibrate::probes {

/// T threads, each calling its own waiter over its own readable pipe (private_sets.cpp
/// holds the essay). Thread 0 is the calling thread; 1..T-1 are started here.
class private_sets_driver {
 public:
  /// The most threads one point may start (a --n beyond it is left out of the plan).
  static constexpr std::int64_t max_threads = 256;

  /// Builds T = key.n_fds set-ups (a pipe left readable and a waiter of key's mechanism
  /// over it), starts threads 1..T-1 pinned as key.pinning says (thread 0's CPU first; the
  /// calling thread is not moved) — at T = 1 a parked sibling on thread 0's CPU instead, so
  /// that every point runs in a process of several threads — waits until every one runs,
  /// and calls once per thread untimed. probe_skipped: a CPU outside the mask, too few descriptors, too many threads,
  /// a mechanism refused here; std::invalid_argument: a malformed key. Every thread started
  /// is joined before the constructor throws.
  private_sets_driver(const datasets::key& key, const selection& sel);
  ~private_sets_driver();
  private_sets_driver(const private_sets_driver&) = delete;
  private_sets_driver& operator=(const private_sets_driver&) = delete;

  /// Lets the threads make `calls` more wait calls between them (the calling thread takes
  /// its share) and returns once all are done: the nanoseconds from raising the budget to
  /// the last call's end. Each call must report exactly its thread's descriptor; a wrong
  /// answer or a thread's error is a probe_failure (rethrown here).
  std::uint64_t calls(std::size_t calls);

  std::size_t threads() const { return n_; }
  /// Calls each thread has made so far (exact between calls() calls).
  std::vector<std::uint64_t> calls_per_thread() const;
  /// Calls made in all.
  std::uint64_t total() const { return done_.load(std::memory_order_acquire); }
  /// The highest watched descriptor.
  int max_watched_fd() const { return max_fd_; }

 private:
  /// One thread's set-up and counters, on its own cache lines: only its thread writes them.
  struct alignas(64) worker {
    std::optional<own_pipe> set;
    std::atomic<std::uint64_t> made{0};
    int cpu = -1;
  };

  void serve(std::size_t i);           // a started thread's loop
  bool claim_and_call(std::size_t i);  // one chunk of the budget; false when none is left
  void call_once(worker& me, std::uint32_t tag);
  void fail() noexcept;
  void stop_all() noexcept;

  std::size_t n_;
  int max_fd_ = -1;
  std::unique_ptr<worker[]> workers_;
  std::atomic<std::uint64_t> target_{0};   // calls allowed so far, in all
  std::atomic<std::uint64_t> claimed_{0};  // calls claimed by some thread
  std::atomic<std::uint64_t> done_{0};     // calls finished; the caller sleeps on it
  std::atomic<std::uint32_t> gen_{0};      // bumped to wake the threads (budget or stop)
  std::atomic<bool> stop_{false};
  std::optional<parked_sibling> sibling_;  // T = 1: the process still has two threads
  thread_crew crew_;                       // threads 1..T-1; last: joins before the rest goes
};

}  // namespace pollscale::calibrate::probes
