// The mechanism seam: one interface over select, pselect, poll, ppoll, epoll, realtime
// signals and io_uring poll, so that every probe (find_active, token_ring, wakeup, server)
// drives each mechanism the same way and only the mechanism differs.
//
// Contract: a waiter watches descriptors for readability. add() and wait() must be called
// from the same thread (realtime signals are directed at that thread). wait() reports
// each ready descriptor's tag; what "ready" means follows the mechanism: level-triggered
// ones report readiness that persists on every call; edge-triggered, one-shot and
// signal-based ones report an event once, and need rearm() after the data is consumed.
// A waiter leaves the descriptors as it found them when it goes — an epoll instance's items
// go with it; poll and select hold nothing; rtsig clears O_ASYNC, the owner and the signal
// it set; io_uring removes every poll it armed and reaps the removals before its ring goes
// — so that the next waiter may watch the same ones (shared set-ups, shared_setup.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "calibrate/mechanism.hpp"

namespace pollscale::calibrate {

class waiter {
 public:
  virtual ~waiter() = default;

  /// Starts watching `fd` for readability; `tag` (< 2^32) comes back with its events.
  virtual void add(int fd, std::uint32_t tag) = 0;
  /// Stops watching `fd`.
  virtual void remove(int fd, std::uint32_t tag) = 0;
  /// Waits up to `timeout_ms` (0: return at once, -1: until something is ready), replaces
  /// the contents of `out` with the tags of ready descriptors, returns out.size().
  virtual std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) = 0;
  /// Makes `fd` able to report again after its event was consumed (epoll one-shot:
  /// EPOLL_CTL_MOD; io_uring one-shot: a new POLL_ADD). A no-op for the others.
  virtual void rearm(int fd, std::uint32_t tag) {
    (void)fd;
    (void)tag;
  }
  /// True when data left unread is reported again by every wait() (no rearm needed).
  virtual bool level_triggered() const = 0;
  /// True when a report may be stale: the mechanism hands back the event mask of the
  /// wake-up that fired instead of asking the file again, so a wake-up that arrives late
  /// (its writer's CPU stalled between writing and waking) can report a descriptor whose
  /// data was already read. The reader then finds nothing, as a server's read finds
  /// EAGAIN, re-arms and waits again. io_uring poll (io_poll_check_events keeps the mask
  /// stashed by the wake-up); select, poll and epoll poll the file before reporting it.
  virtual bool may_report_stale() const { return false; }
  /// Descriptors the mechanism itself holds open (an epoll fd, a ring fd).
  virtual std::size_t own_fds() const { return 0; }
};

/// Creates a waiter for `f` able to watch up to `capacity` descriptors.
/// Throws probe_skipped (probe.hpp) when the kernel refuses the mechanism here.
std::unique_ptr<waiter> make_waiter(const flavour& f, std::size_t capacity);

}  // namespace pollscale::calibrate
