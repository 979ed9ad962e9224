#include "calibrate/probes/thread_crew.hpp"

#include <chrono>
#include <cstdint>

#include "calibrate/probe.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::uint64_t start_limit_ns = 10'000'000'000;  // every thread must run by then
constexpr auto start_poll = std::chrono::microseconds(100);

}  // namespace

thread_crew::thread_crew(std::string who, std::function<void()> stop) : who_(std::move(who)), stop_(std::move(stop)) {}

thread_crew::~thread_crew() {
  if (threads_.empty()) return;
  stop_();
  for (auto& t : threads_) t.join();
}

void thread_crew::start(std::size_t first, std::size_t last, const std::function<void(std::size_t)>& body) {
  threads_.reserve(threads_.size() + (last > first ? last - first : 0));
  for (std::size_t i = first; i < last; ++i) threads_.emplace_back(body, i);
}

void thread_crew::running() noexcept { running_.fetch_add(1, std::memory_order_release); }

void thread_crew::failed(std::exception_ptr error) noexcept {
  {
    const std::lock_guard lock(error_mutex_);
    if (!first_error_) first_error_ = std::move(error);
  }
  failed_.store(true, std::memory_order_release);
}

void thread_crew::rethrow_if_failed() const {
  if (!any_failed()) return;
  const std::lock_guard lock(error_mutex_);
  if (first_error_) std::rethrow_exception(first_error_);
  throw probe_failure(who_ + ": a thread failed");
}

void thread_crew::wait_until_running() const {
  const std::uint64_t t0 = clock_ns();
  while (running_.load(std::memory_order_acquire) < threads_.size()) {
    rethrow_if_failed();
    if (clock_ns() - t0 > start_limit_ns)
      throw probe_failure(who_ + ": " + std::to_string(running_.load()) + " of " + std::to_string(threads_.size()) +
                          " threads were running after 10 s");
    std::this_thread::sleep_for(start_poll);
  }
  rethrow_if_failed();
}

}  // namespace pollscale::calibrate::probes
