// The one seam between pollscale and the kernel. Every system call a probe makes goes
// through sys::call(), which retries EINTR in exactly one place, turns a failure into a
// std::system_error whose message names the call, and lets tests inject faults (EINTR,
// EMFILE, ...) deterministically through a per-thread hook.
#pragma once

#include <atomic>
#include <cerrno>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>

namespace pollscale::calibrate::sys {

/// Thrown when a call is interrupted by a signal after stop was requested (Ctrl-C).
class interrupted : public std::runtime_error {
 public:
  interrupted() : std::runtime_error("interrupted") {}
};

/// Set from the SIGINT/SIGTERM handler; EINTR then aborts the current call instead of
/// retrying it. Async-signal-safe to store.
extern std::atomic<bool> stop_requested;

/// A test hook consulted before each call: return 0 to make the real call, or an errno
/// value to make the call fail with it instead. Per thread; empty by default.
using fault_hook = std::function<int(std::string_view call)>;
void set_fault_hook(fault_hook hook);
int injected_fault(std::string_view call);

[[noreturn]] void throw_errno(int err, std::string_view what);

/// Invokes `f` (a system call returning -1 with errno on failure) until it does not fail
/// with EINTR. Failures other than those listed in `tolerated` throw, naming `what`;
/// tolerated ones return -1 with errno set.
template <class F>
auto call(std::string_view what, F&& f, std::initializer_list<int> tolerated = {}) -> decltype(f()) {
  for (;;) {
    decltype(f()) rc;
    if (const int e = injected_fault(what)) {
      errno = e;
      rc = -1;
    } else {
      rc = f();
    }
    if (rc != -1) return rc;
    const int e = errno;
    if (e == EINTR) {
      if (stop_requested.load(std::memory_order_relaxed)) throw interrupted();
      continue;
    }
    for (int t : tolerated)
      if (t == e) return rc;
    throw_errno(e, what);
  }
}

}  // namespace pollscale::calibrate::sys
