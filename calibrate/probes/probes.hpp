// Every probe, one per scenario; the registry (calibrate/registry.cpp) lists them.
#pragma once

#include <span>
#include <vector>

#include "calibrate/probe.hpp"
#include "datasets/machine_facts.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate::probes {

probe_def find_active();

/// find_active's grid for a profile (find_active_points.cpp).
std::vector<datasets::key> find_active_points(const selection& sel, std::span<const flavour> mechs);

probe_def fd_range();

/// fd_range's grid for a profile (fd_range_points.cpp).
std::vector<datasets::key> fd_range_points(const selection& sel, std::span<const flavour> mechs);

probe_def token_ring();

/// token_ring's grid for a profile (token_ring_points.cpp).
std::vector<datasets::key> token_ring_points(const selection& sel, std::span<const flavour> mechs);

probe_def memory_latency();

/// memory_latency's grid: working sets of 16 KiB..256 MiB (memory_latency.cpp).
std::vector<datasets::key> memory_latency_points(const selection& sel, std::span<const flavour> mechs);

/// server: a loopback server with c idle tcp connections and a closed-loop load generator.
probe_def server();

/// server's grid for a profile (server_points.cpp).
std::vector<datasets::key> server_points(const selection& sel, std::span<const flavour> mechs);

/// interest_churn: epoll_ctl ADD/MOD/DEL, rtsig set-up, io_uring arm, pollfd array build.
probe_def interest_churn();

/// wakeup: a token round trip between two pinned threads, blocking in each mechanism.
probe_def wakeup();

/// The partner's CPU from a pinning column "A+B" (B), checked against the affinity mask:
/// probe_skipped when B is not in it or the mask holds one CPU and B != A (wakeup.cpp).
int checked_partner_cpu(const datasets::key& k, const selection& sel);

/// ipc: one message through pipe, fifo, unix stream/dgram, tcp or udp loopback (AIM9).
probe_def ipc();

/// handler: one request read and its reply written on an established connection.
probe_def handler();

/// producers: T pinned threads write eventfds that one epoll consumer drains (events/s).
probe_def producers();

/// producers' grid: T = 1..4 x C producers at C = 1 and C = min(CPUs, 4 quick / 16 full)
/// (producers_points.cpp).
std::vector<datasets::key> producers_points(const selection& sel, std::span<const flavour> mechs);

/// cache_line: one cache line handed to another CPU and back by two spinning threads (ns).
probe_def cache_line();

/// cold_scan: a timeout-0 poll over n pipes or eventfds, warm or after reading a buffer 4x L2
/// (what one descriptor of a scan pays past L2, measured at n <= 1000).
probe_def cold_scan();

/// cold_scan's eviction size: 4 x the largest L2 in `caches`, from 2 MiB to 64 MiB; 4 MiB when
/// none is listed.
std::uint64_t cold_evict_bytes(const std::vector<datasets::cache_facts>& caches);

/// call_spread: single wait calls and handler operations, each timed alone (call_spread.cpp).
probe_def call_spread();

/// private_sets: T pinned threads each make timeout-0 wait calls on a pipe of their own (calls/s).
probe_def private_sets();

/// private_sets' grid: T = 1..2 x C (full 4 x C) threads at C = 1 and C = min(CPUs, 4 quick /
/// 16 full), for epoll/lt (full: and poll, io_uring/oneshot) (private_sets_points.cpp).
std::vector<datasets::key> private_sets_points(const selection& sel, std::span<const flavour> mechs);

/// private_processes: T pinned one-thread processes each make timeout-0 wait calls on a pipe
/// of their own (calls/s): private_sets as processes (private_processes.cpp).
probe_def private_processes();

/// private_processes' grid: private_sets' series and mechanisms (private_processes_points.cpp).
std::vector<datasets::key> private_processes_points(const selection& sel, std::span<const flavour> mechs);

/// shared_epoll: T pinned threads pass T tokens around a ring of pipes through epoll (passes/s).
probe_def shared_epoll();

/// shared_epoll's grid: T = 1..2 x C (full 4 x C) threads at C = 1 and C = min(CPUs, 4 quick /
/// 16 full), variant lt (full: and exclusive) (shared_epoll_points.cpp).
std::vector<datasets::key> shared_epoll_points(const selection& sel, std::span<const flavour> mechs);

/// accept_herd: T pinned threads wait on one listening socket; the client connects one at a
/// time (connections/s, and the threads' wake-ups per connection).
probe_def accept_herd();

/// accept_herd's grid: T = 1..2 x C (full 4 x C) threads at C = 1 and C = min(CPUs, 4 quick /
/// 16 full), for poll and epoll/exclusive (full: and epoll/lt) (accept_herd_points.cpp).
std::vector<datasets::key> accept_herd_points(const selection& sel, std::span<const flavour> mechs);

/// The largest n of `kind` that fits in sel.max_fds with `kept` trigger ends kept and
/// `extra` other descriptors open.
std::int64_t max_channels(fd_kind kind, std::size_t kept, std::size_t extra, const selection& sel);

/// The n grid of a profile up to n_max (or sel.n_override when given).
std::vector<std::int64_t> n_grid(const selection& sel, std::int64_t n_max, int quick_points, int full_points);

/// Number of distinct CPUs named in a pinning column ("0+0" -> 1, "0+1" -> 2, "" -> 0).
std::int64_t distinct_cpus(const std::string& pinning);

/// A key with the columns every probe fills the same way.
datasets::key base_key(datasets::scenario scenario, const flavour& f, fd_kind kind, datasets::metric metric,
                       std::string_view unit);

}  // namespace pollscale::calibrate::probes
