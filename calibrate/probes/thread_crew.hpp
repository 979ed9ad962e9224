// The threads of a threaded probe (producers, private_sets, shared_epoll): started with their
// index, counted once they run, the first error any of them meets kept for the measuring
// thread to rethrow, and stopped and joined whatever happens — also when the driver's
// constructor throws after starting some. A driver declares its crew as its last member, so
// that the crew is destroyed first: it stops and joins the threads while everything they
// touch is still alive.
//
// What a thread does, and how it is woken to stop, stays the driver's: the crew calls the
// driver's stop function (set the stop flag, wake every sleeper) before it joins. Each body
// pins itself, calls running(), loops, and reports an error with failed() from its catch
// block; the measuring thread calls rethrow_if_failed() wherever it waits for them.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pollscale::calibrate::probes {

class thread_crew {
 public:
  /// `who` names the probe in messages; `stop` must make every body return soon and not
  /// throw (the destructor calls it before joining).
  thread_crew(std::string who, std::function<void()> stop);
  ~thread_crew();
  thread_crew(const thread_crew&) = delete;
  thread_crew& operator=(const thread_crew&) = delete;

  /// Starts body(i) for i = first .. last - 1. Those started are joined even when a later
  /// one fails to start (the std::system_error propagates).
  void start(std::size_t first, std::size_t last, const std::function<void(std::size_t)>& body);

  /// Called by a body once it runs (pinned, set up).
  void running() noexcept;
  /// Called by a body from its catch block: the crew keeps the first error.
  void failed(std::exception_ptr error) noexcept;
  /// Whether a body failed (cheap: one atomic load).
  bool any_failed() const noexcept { return failed_.load(std::memory_order_acquire); }
  /// Rethrows the first error a body met, if one did.
  void rethrow_if_failed() const;
  /// Waits until every started body runs, rethrowing an error; probe_failure naming how
  /// many ran when they have not after 10 s.
  void wait_until_running() const;

 private:
  std::string who_;
  std::function<void()> stop_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> running_{0};
  std::atomic<bool> failed_{false};  // set after first_error_ (release), read before it
  mutable std::mutex error_mutex_;
  std::exception_ptr first_error_;
};

}  // namespace pollscale::calibrate::probes
