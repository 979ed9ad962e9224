// Pieces every probe needs: where the active descriptors sit, whether enough descriptors
// are left, a pinned partner thread, and a checker that a wait returned exactly the
// expected descriptors.
#pragma once

#include <sys/resource.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/sys/unique_fd.hpp"
#include "calibrate/waiter.hpp"

namespace pollscale::calibrate {

/// Indices of the k active channels among n: "first" (0..k-1), "last" (n-k..n-1),
/// "middle" (centred), "spread" (evenly spaced), "random" (seeded, distinct). Sorted.
/// Throws std::invalid_argument for an unknown position or k > n.
std::vector<std::size_t> active_positions(std::string_view pos, std::size_t n, std::size_t k, std::uint64_t seed);

/// Throws probe_skipped naming the limit when `needed` descriptors exceed sel.max_fds.
void require_fds(std::size_t needed, const selection& sel);

/// The CPU a partner thread uses: sel.cpus[0] when same_cpu, else sel.cpus[1];
/// probe_skipped when the affinity mask holds a single CPU.
int partner_cpu(const selection& sel, bool same_cpu);

/// Reads the pinning column ("0+1") of a key: {waiter CPU, partner CPU}.
std::pair<int, int> parse_pinning_pair(const std::string& pinning);

/// A thread pinned to one CPU that runs `body(stop)` until stop is set. The destructor
/// sets stop, calls `wake` (to unblock the body) and joins. An exception in the body is
/// kept and rethrown by check().
class partner_thread {
 public:
  partner_thread(int cpu, std::function<void(const std::atomic<bool>& stop)> body, std::function<void()> wake);
  ~partner_thread();
  partner_thread(const partner_thread&) = delete;
  partner_thread& operator=(const partner_thread&) = delete;
  /// Rethrows the body's exception, if it threw.
  void check();

 private:
  std::atomic<bool> stop_{false};
  std::function<void()> wake_;
  std::exception_ptr error_;
  std::thread thread_;
};

/// A second thread of the process that never runs while a batch is timed: pinned to `cpu`
/// and blocked in a read of its own eventfd until the destructor wakes and joins it. Its
/// existence is its whole effect: the process's descriptor table has two users, so every
/// fd lookup (fdget) takes and drops a reference on the file instead of borrowing it —
/// what a multi-threaded server's calls pay (find_active.cpp, private_sets.cpp).
class parked_sibling {
 public:
  explicit parked_sibling(int cpu);
  parked_sibling(const parked_sibling&) = delete;
  parked_sibling& operator=(const parked_sibling&) = delete;
  /// Rethrows the thread's exception, if it threw (a failed read).
  void check() { thread_.check(); }

 private:
  sys::unique_fd go_;  // declared first: the thread reads it until it is joined
  partner_thread thread_;
};

/// Tells whether one thread of this process sleeps: /proc/self/task/TID/wchan, which the
/// kernel fills only for a task that is neither running nor waking and has left its run
/// queue (get_wchan), and reads "0" otherwise. One read costs about 0.6 us on this VM
/// (/proc/TID/stat: 2.6 us). A woken probe's writer waits on it until the waiter really
/// sleeps in its wait call.
class sleep_watch {
 public:
  explicit sleep_watch(pid_t tid);
  bool asleep();
  /// Returns once the thread sleeps; yields the CPU between reads when `same_cpu` (the
  /// thread to watch may need it to get to sleep). probe_failure after `limit_ns`.
  void wait_until_asleep(bool same_cpu, std::uint64_t limit_ns);

 private:
  sys::unique_fd fd_;
  char buf_[64] = {};
};

/// Checks that the tags a waiter reports are expected ones and that none repeats within
/// one operation. O(1) per tag (about a nanosecond), so it runs inside timed loops.
class answer_checker {
 public:
  answer_checker(std::size_t n, const std::vector<std::size_t>& active);
  /// Starts a new operation: every active tag may be reported once again.
  void reset() { ++generation_; }
  /// Accepts `tags` or throws probe_failure naming `what` and the offending tag.
  void accept(const std::vector<std::uint32_t>& tags, std::string_view what);
  /// Lets `tag` be reported once more in this operation (its report was stale).
  void forget(std::uint32_t tag) {
    if (tag < seen_.size()) seen_[tag] = 0;
  }

 private:
  std::vector<std::uint64_t> seen_;  // generation in which each tag was last reported
  std::vector<bool> active_;
  std::uint64_t generation_ = 1;
};

/// Waits with `timeout_ms` until `expected` distinct events were reported, consuming each
/// one's data and re-arming it. Throws probe_failure after `max_empty` empty waits in a row.
/// A report whose read finds nothing is an error (std::runtime_error from consume), except
/// from a waiter that may report stale wake-ups (waiter::may_report_stale): that report is
/// re-armed and not counted, up to max_stale_reports of them in one call; an endless wait
/// (timeout -1) then waits at most stale_wait_ms, so that a token really lost fails the
/// probe instead of hanging it.
std::size_t harvest(waiter& w, const channel_set& ch, answer_checker& check, std::size_t expected, int timeout_ms,
                    std::vector<std::uint32_t>& scratch, int max_empty = 100000);

/// Stale reports one harvest() call tolerates before it fails (one report over an empty
/// pipe in about fifteen cross-CPU wake-up runs was seen on a 2-vCPU KVM guest; a thousand
/// in one wait is a broken mechanism).
inline constexpr int max_stale_reports = 1000;
/// How long an endless wait lasts after a stale report (ms).
inline constexpr int stale_wait_ms = 10'000;

/// Involuntary context switches of the calling thread so far (getrusage RUSAGE_THREAD).
inline long involuntary_switches() {
  rusage u{};
  sys::call("getrusage(RUSAGE_THREAD)", [&] { return ::getrusage(RUSAGE_THREAD, &u); });
  return u.ru_nivcsw;
}

/// Runs `timed()` (which returns nanoseconds) again while the thread was preempted during
/// it, up to `max_retries` more times, calling `before_retry()` between tries; returns the
/// last run's nanoseconds. A preempted run timed another task too (and on a loaded machine
/// that task may evict the caches the probe relies on: before_retry can re-warm them).
template <class Timed, class Before>
std::uint64_t time_unpreempted(Timed&& timed, Before&& before_retry, int max_retries = 8) {
  for (int attempt = 0;; ++attempt) {
    const long switches = involuntary_switches();
    const std::uint64_t ns = timed();
    if (involuntary_switches() == switches || attempt >= max_retries) return ns;
    before_retry();
  }
}

}  // namespace pollscale::calibrate
