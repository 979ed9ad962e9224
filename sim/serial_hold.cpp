#include "sim/serial_hold.hpp"

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

bool serial_hold::take(std::uint32_t who, double now) {
  if (held_) {
    waiting_.push({who, now});
    return false;
  }
  held_ = true;
  busy_.set(now, 1);
  granted(now, now);
  return true;
}

std::optional<std::uint32_t> serial_hold::release(double now) {
  POLLSCALE_SIM_EXPECT(held_, "a structure nobody held was given back");
  if (waiting_.empty()) {
    held_ = false;
    busy_.set(now, 0);
    return std::nullopt;
  }
  const waiter next = waiting_.pop();
  granted(next.since, now);
  return next.who;
}

void serial_hold::granted(double asked, double now) {
  ++passes_;
  wait_sum_s_ += now - asked;
}

void serial_hold::reset_statistics(double now) {
  busy_.reset(now);
  passes_ = 0;
  wait_sum_s_ = 0;
}

}  // namespace pollscale::sim
