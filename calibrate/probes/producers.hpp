// The threads behind the producers probe (producers.cpp holds the essay): T producer
// threads, each writing 1 to its own eventfd within a budget the consumer publishes, and
// the consumer (the calling thread) draining them through one level-triggered epoll set.
// Declared here so that tests can compare what each producer wrote with what the consumer
// read from its eventfd.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "calibrate/channel.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/probes/thread_crew.hpp"
#include "calibrate/waiter.hpp"

namespace pollscale::calibrate::probes {

class producers_driver {
 public:
  /// The most producer threads one point may start (a --n beyond it is left out of the plan).
  static constexpr std::int64_t max_producers = 256;

  /// Starts key.n_fds producers pinned as key.pinning says (the consumer's CPU first, then
  /// one per producer), waits until every one runs, and delivers one untimed batch.
  /// probe_skipped: a CPU outside the affinity mask, too few descriptors, too many threads;
  /// std::invalid_argument: a malformed key (pinning not T + 1 CPUs). Every thread started
  /// is joined before the constructor throws.
  producers_driver(const datasets::key& key, const selection& sel);
  /// Stops and joins every producer.
  ~producers_driver();
  producers_driver(const producers_driver&) = delete;
  producers_driver& operator=(const producers_driver&) = delete;

  /// Lets the producers write `events` more and consumes exactly those: returns once the
  /// consumer has read them all. Checks that the consumer never reads more than the budget
  /// and, at the end, that each eventfd gave exactly what its producer wrote. probe_failure
  /// on a wrong count or on a stall (no event for 10 s); a producer's own error is rethrown.
  /// Returns the nanoseconds from raising the budget to the last read (the checks after it
  /// not included).
  std::uint64_t deliver(std::size_t events);

  std::size_t producers() const { return n_; }
  /// Events each producer has written so far (exact between deliver() calls).
  std::vector<std::uint64_t> written() const;
  /// Events the consumer has read from each producer's eventfd so far.
  const std::vector<std::uint64_t>& consumed() const { return consumed_; }
  /// Events consumed in all (the sum of consumed()).
  std::uint64_t delivered() const { return delivered_; }
  /// The highest eventfd watched.
  int max_watched_fd() const { return max_fd_; }
  /// The times the consumer slept in epoll_wait and was woken, over every deliver() so far
  /// (its voluntary context switches inside them); complete once deliver() has returned.
  std::uint64_t sleeps() const { return sleeps_; }
  /// Nothing to wait for: deliver() returns with every claimed write read and the producers
  /// going back to their park, whose sleeps are theirs, not the consumer's.
  void quiesce() const {}

 private:
  /// One producer's state, on its own cache line: only its thread writes `written`.
  struct alignas(64) slot {
    std::atomic<std::uint64_t> written{0};
    int cpu = -1;
  };

  void produce(std::size_t i);
  void stop_all() noexcept;
  std::uint64_t drain(std::uint32_t tag);

  std::size_t n_;
  std::unique_ptr<channel_set> ch_;
  std::unique_ptr<waiter> w_;
  std::unique_ptr<slot[]> slots_;
  int max_fd_ = -1;
  // The budget: producers claim events (in chunks) until claimed_ reaches target_; the
  // consumer raises target_ and bumps gen_ to wake them.
  alignas(64) std::atomic<std::uint64_t> target_{0};
  alignas(64) std::atomic<std::uint64_t> claimed_{0};
  alignas(64) std::atomic<std::uint32_t> gen_{0};
  std::atomic<bool> stop_{false};
  // The consumer's own bookkeeping.
  std::vector<std::uint64_t> consumed_;
  std::uint64_t delivered_ = 0;
  std::uint64_t sleeps_ = 0;
  std::vector<std::uint32_t> scratch_;
  thread_crew crew_;  // the producers; last: joins them before the rest goes
};

}  // namespace pollscale::calibrate::probes
