#include "calibrate/probes/work_gate.hpp"

#include <chrono>
#include <string>
#include <thread>

#include "calibrate/probe.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::uint64_t park_limit_ns = 10'000'000'000;  // workers must park by then (10 s)

}  // namespace

void work_gate::raise(std::uint64_t target) {
  target_.store(target, std::memory_order_release);
  gen_.fetch_add(1, std::memory_order_release);
  gen_.notify_all();
}

void work_gate::stop() noexcept {
  stop_.store(true);
  gen_.fetch_add(1);
  gen_.notify_all();
}

void work_gate::wait_parked(std::size_t workers, const thread_crew& crew, std::string_view who) const {
  const std::uint64_t t0 = clock_ns();
  while (parked_.load(std::memory_order_acquire) < workers) {
    crew.rethrow_if_failed();
    if (clock_ns() - t0 > park_limit_ns)
      throw probe_failure(std::string(who) + ": threads still working after 10 s, " +
                          std::to_string(parked_.load(std::memory_order_acquire)) + " of " + std::to_string(workers) +
                          " parked");
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace pollscale::calibrate::probes
