#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate::sys {

std::atomic<bool> stop_requested{false};

namespace {
thread_local fault_hook current_hook;
}

void set_fault_hook(fault_hook hook) { current_hook = std::move(hook); }

int injected_fault(std::string_view call) { return current_hook ? current_hook(call) : 0; }

void throw_errno(int err, std::string_view what) {
  throw std::system_error(err, std::generic_category(), std::string(what));
}

}  // namespace pollscale::calibrate::sys
