// Cache lines an operation moves between CPUs: what a wider machine adds to every operation
// of a ring whose threads share its pipes and its epoll instance (docs/scaling.md, "Cache
// lines that cross CPUs").
//
// One pass of shared_epoll's ring with a token for every thread is a write to a pipe by one
// thread and, in another, the epoll_wait that reports it and the read that takes the token.
// On one CPU every object the two touch stays in that CPU's cache. On two, the thread that
// takes the token sits on the other CPU about half the time (nothing ties a woken or waiting
// thread to its waker's CPU), and every line both of them write then moves across: counted
// from the kernel's code (fs/pipe.c pipe_write and pipe_read, fs/eventpoll.c ep_poll_callback
// and ep_send_events), about six — the pipe's mutex, its wait-queue heads and ring indices
// (struct pipe_inode_info, two lines), the pipe_buffer slot, the data's line in the pipe's
// page, the epitem's ready-list link, and the epoll instance's lock beside its ready list
// (for an EPOLLEXCLUSIVE ring: the woken waiter's own instance; for one-shot items the
// re-arm is the taker's, on its own CPU). The count is of the code, not a measurement, and
// struct layouts move it by one or two with the kernel's configuration.
//
// Each crossing costs what the cache_line probe's round trip between the first two CPUs
// costs, L, and stalls the CPU that waits for it, so it adds CPU time: an operation on C CPUs
// costs the one-CPU time plus m (C − 1)/C L, and C CPUs pass C / (1/X₁(T) + m (C − 1)/C L)
// where the capacity bound says C · X₁(T). What it leaves out is the wait for a lock another
// CPU holds (the serial stage, which one CPU cannot show), so on a machine whose kernel lines
// cost more than the probe's spinning pair it is still high — on the corpus's two hosts where
// two CPUs pass far less (docs/scaling.md) it lies 28-190% above the measurement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "datasets/placement_states.hpp"
#include "datasets/schema.hpp"
#include "model/producer_pipeline.hpp"

namespace pollscale::model {

struct crossing_charge {
  int lines = 0;      ///< m: the shared lines one operation writes from both threads' CPUs
  double line_s = 0;  ///< L: the cache line's round trip between two CPUs, seconds
  /// Where L was read: "the cache_line probe", or the placement sentinel in the run's usual
  /// state ("the placement sentinel, near state") where the host moved the two CPUs.
  std::string line_from;
  /// Seconds an operation adds on C >= 1 CPUs over one: m (C − 1)/C L.
  double added_s(std::int64_t cpus) const;
  /// A rate of C CPUs without crossings, in a unit that converts to 1/s by `to_per_s`,
  /// less them: C / (C/rate + added_s(C) · to_per_s). 0 and infinity map to themselves.
  double crossed(double rate, std::int64_t cpus, double to_per_s) const;
};

/// m for experiment k: six for shared_epoll's rings with a token for every thread (every
/// variant: level-triggered, one-shot, EPOLLEXCLUSIVE), whose passes hand a pipe and an epoll
/// item between threads; 0 for every other experiment (private_sets shares nothing; the
/// producers' consumer takes many writes a read; one operation in flight has its chain).
int shared_lines(const datasets::key& k);

/// The crossings of experiment k (its unit a rate) where shared_lines is > 0 and the data
/// measured the cache line; empty otherwise, `note` saying why where the experiment has
/// shared lines. Where the host moved the first two CPUs between placements through the run
/// (`placement`, datasets/placement_states.hpp), L is the placement sentinel's reading in the
/// state the run spent most of its time in — where its two-CPU points were mostly measured —
/// rather than the cache_line point's, whose three visits may have met the other: the two
/// levels lie 7x apart on the ninth host (about 55 and 380 ns), and one held-out run's
/// cache_line point read 364 ns while every visit of its rings met the near state.
std::optional<crossing_charge> crossings_of(const datasets::key& k, const std::optional<line_estimate>& line,
                                            const std::optional<datasets::placement_states>& placement,
                                            std::string& note);

}  // namespace pollscale::model
