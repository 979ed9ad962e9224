// One worker's set-up in the probes whose workers share nothing (private_sets as threads,
// private_processes as processes): a pipe whose one byte is never read, so it stays
// readable, and a waiter of the point's flavour over that pipe alone. Both probes build and
// call it through this one piece of code, so that what differs between them is the process
// around the loop, not the loop (private_processes.cpp's essay).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "calibrate/channel.hpp"
#include "calibrate/mechanism.hpp"
#include "calibrate/waiter.hpp"

namespace pollscale::calibrate::probes {

struct own_pipe {
  /// The pipe (readable from the start) and a waiter of `f` over its read end, tagged `tag`,
  /// with room for one answer. Throws what channel_set and make_waiter throw (probe_skipped
  /// for a mechanism refused here).
  own_pipe(const flavour& f, std::uint32_t tag);

  /// One wait call with timeout 0: true when it reported exactly this pipe, which a one-shot
  /// waiter then re-arms. Allocates nothing (the answer's room is kept); a failed system call
  /// throws, as the waiters do.
  bool call(std::uint32_t tag);

  int fd() const { return ch->watched(0); }

  std::unique_ptr<channel_set> ch;
  std::unique_ptr<waiter> w;
  std::vector<std::uint32_t> scratch;  ///< the last call's answer
};

}  // namespace pollscale::calibrate::probes
