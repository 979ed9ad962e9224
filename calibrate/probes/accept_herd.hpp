#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/probes/thread_crew.hpp"
#include "calibrate/probes/work_gate.hpp"
#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate::probes {

/// T threads waiting to accept loopback tcp connections on one listening socket, with poll
/// (every waiter woken: the herd), one shared epoll instance (variant lt) or one epoll
/// instance each with EPOLLEXCLUSIVE; the measuring thread connects, one connection at a
/// time. accept_herd.cpp holds the essay.
class accept_herd_driver {
 public:
  /// The most threads one point may start (a --n beyond it is left out of the plan).
  static constexpr std::int64_t max_threads = 256;

  /// Builds the listener, the kick eventfd and the instance(s), starts T = key.n_fds
  /// threads pinned as key.pinning says, and accepts T connections, untimed.
  /// probe_skipped: a CPU outside the mask, too few descriptors, too many threads;
  /// std::invalid_argument: a malformed key. Every thread started is joined before the
  /// constructor throws.
  accept_herd_driver(const datasets::key& key, const selection& sel);
  ~accept_herd_driver();
  accept_herd_driver(const accept_herd_driver&) = delete;
  accept_herd_driver& operator=(const accept_herd_driver&) = delete;

  /// Connects `connections` times, each once the one before was accepted, and returns the
  /// nanoseconds until the last was accepted. probe_failure on a stall (no accept for 10 s)
  /// or a thread's error.
  std::uint64_t connect(std::size_t connections);
  /// Ends the batch: returns once every thread is parked (its counts in). probe_failure
  /// when they do not park in 10 s.
  void quiesce();

  std::size_t threads() const { return n_; }
  /// Connections accepted so far.
  std::uint64_t accepted() const { return accepted_.load(std::memory_order_acquire); }
  /// Accepts that found the queue already emptied by another thread (EAGAIN), so far.
  std::uint64_t futile() const { return futile_.load(std::memory_order_acquire); }
  /// Times the threads slept in their wait and were woken, so far; complete for every
  /// batch once quiesce() has returned.
  std::uint64_t sleeps() const { return gate_.sleeps(); }
  /// The listening socket: the one descriptor every worker watches (key column max_fd).
  int max_watched_fd() const { return listener_.get(); }

 private:
  enum class wait_kind { poll, shared_epoll, exclusive_epoll };
  struct alignas(64) worker {
    int cpu = -1;
    int epfd = -1;  // the instance this thread waits on (epoll only)
  };

  static wait_kind kind_of(const datasets::key& key);  // std::invalid_argument for another mechanism
  static void watch(int epfd, int fd, std::uint32_t tag, std::uint32_t mode);
  void serve(std::size_t i);
  bool wait_ready(const worker& me);  // false: timed out or kicked
  void accept_one();
  void wait_accepted(std::uint64_t count);  // the client's wait; probe_failure on a stall

  std::size_t n_;
  wait_kind kind_;
  sys::unique_fd listener_;  // non-blocking: a thread that lost the race gets EAGAIN
  sys::unique_fd kick_;      // an eventfd every thread watches, written to wake idle waiters (quiesce)
  std::vector<sys::unique_fd> epfds_;
  std::unique_ptr<worker[]> workers_;
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> futile_{0};
  work_gate gate_;  // the batch's budget of connections, and where the threads park between batches
  std::mutex accepted_mutex_;
  std::condition_variable accepted_cv_;  // each accept notifies the client
  std::size_t next_client_ = 0;          // spreads the clients' source addresses
  thread_crew crew_;                     // last: joins before the rest goes
};

}  // namespace pollscale::calibrate::probes
