#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/probes/thread_crew.hpp"
#include "calibrate/probes/work_gate.hpp"
#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate::probes {

/// T threads passing K <= T one-byte tokens around a ring of T pipes through epoll: one
/// instance shared by all (variant lt) or one per thread over every pipe with
/// EPOLLEXCLUSIVE (variant exclusive), or one edge-triggered one-shot instance re-armed
/// after every token (variant oneshot). shared_epoll.cpp holds the essay.
class shared_epoll_driver {
 public:
  /// The most threads one point may start (a --n beyond it is left out of the plan).
  static constexpr std::int64_t max_threads = 256;

  /// Builds the pipes (K = key.n_active tokens, T when absent, spread evenly) and the epoll
  /// instance(s), starts T = key.n_fds threads pinned as key.pinning says, and passes T
  /// tokens, untimed. probe_skipped: a CPU outside the mask, too few descriptors, too many
  /// threads; std::invalid_argument: a malformed key (K outside 1..T among them). Every
  /// thread started is joined before the constructor throws.
  shared_epoll_driver(const datasets::key& key, const selection& sel);
  ~shared_epoll_driver();
  shared_epoll_driver(const shared_epoll_driver&) = delete;
  shared_epoll_driver& operator=(const shared_epoll_driver&) = delete;

  /// Lets the threads pass `passes` more tokens and returns the nanoseconds until the
  /// last of them was passed. probe_failure on a stall (no pass for 10 s), a lost or
  /// duplicated token (checked once the threads are quiet), or a thread's error.
  std::uint64_t pass(std::size_t passes);

  std::size_t threads() const { return n_; }
  std::size_t tokens() const { return tokens_; }
  /// Tokens passed so far (each counted once, when its reader wrote it on).
  std::uint64_t passed() const { return passed_.load(std::memory_order_acquire); }
  /// Waits that reported a pipe another thread had already emptied, so far.
  std::uint64_t futile() const { return futile_.load(std::memory_order_acquire); }
  /// Times the threads slept (in epoll_wait, between being let go and parking) and were
  /// woken, so far; complete for every batch once quiesce() has returned.
  std::uint64_t sleeps() const { return gate_.sleeps(); }
  /// Ends the batch in progress and returns once every thread is parked (its counts in).
  /// probe_failure when they do not park in 10 s.
  void quiesce();
  /// The tokens in the ring, counted from the pipes (and put back) after quiesce().
  std::uint64_t tokens_in_ring();
  int max_watched_fd() const { return fds_.back().get(); }

 private:
  struct alignas(64) worker {
    int cpu = -1;
    int epfd = -1;  // the instance this thread waits on
  };

  void serve(std::size_t i);
  bool move_one(worker& me);  // waits for one event and passes its tokens on; false: none came
  void count(std::uint64_t tokens);
  void rearm(int epfd, std::uint32_t i);  // oneshot: pipe i's item enabled again (EPOLL_CTL_MOD)

  std::size_t n_;
  std::size_t tokens_;
  bool exclusive_ = false;
  std::uint32_t mode_ = 0;            // the pipes' flags beside EPOLLIN: 0, EPOLLEXCLUSIVE or EPOLLET | EPOLLONESHOT
  std::vector<sys::unique_fd> fds_;   // the ring's read ends, watched: pipe i passes to i + 1
  std::vector<sys::unique_fd> ends_;  // their write ends
  std::vector<sys::unique_fd> epfds_;
  sys::unique_fd kick_;  // an eventfd in every instance, written to wake idle waiters (quiesce)
  std::unique_ptr<worker[]> workers_;
  std::atomic<std::uint64_t> passed_{0};
  std::atomic<std::uint64_t> futile_{0};
  work_gate gate_;  // the batch's budget of passes, and where the threads park between batches
  std::mutex done_mutex_;
  std::condition_variable done_;  // the pass that reaches the target notifies the caller
  thread_crew crew_;              // last: joins before the rest goes
};

}  // namespace pollscale::calibrate::probes
