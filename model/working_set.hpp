// The working-set term: a mechanism that touches every registered fd on every call
// (select, poll, Linux /dev/poll) pays extra per fd once n x (kernel bytes per fd)
// outgrows a cache level. The knee comes from the cache geometry in the dataset's
// context ("caches": [{level, type, size_bytes}]), moved to the memory-latency probe's
// cliff where the probe shows a capacity ending elsewhere; the height from a measured
// memory-latency curve when the dataset has one, else from typical latencies. How many
// of each fd's loads pay that latency is a prior (the dependent pointer chain per fd),
// refined by the data when they reach beyond the knee.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/schema.hpp"
#include "model/basis.hpp"

namespace pollscale::model {

struct cache_level {
  int level = 0;
  double size_bytes = 0;
};

/// The data/unified caches listed in a context block, one per level, sorted by level.
/// Entries without a positive size or level are ignored; none gives an empty list.
std::vector<cache_level> caches_from_context(const nlohmann::json& context);

/// Extra latency per dependent load (ns) as a function of working-set bytes.
struct latency_curve {
  std::vector<std::pair<double, double>> knots;  ///< see basis::latency
  bool interpolated = false;                     ///< knots are a curve to interpolate, not (size, δ) per level
  bool measured = false;                         ///< the δ's come from this machine's memory_latency probe
  std::string source;                            ///< where the figures came from, for model.json
};

/// A measured (bytes, ns per dependent load) point of a memory-latency probe.
struct latency_point {
  double bytes = 0;
  double ns = 0;
};

/// The latency curve for these caches: Δlat(W) = Σ_{L≥2} δ_L (1 - S_L/W)⁺, the sizes S_L
/// from the context. δ_L is priced by a memory_latency probe when the dataset has one
/// (scenario memory_latency, working set 64 x n_fds bytes; or the context's
/// "memory_latency": [{size_bytes, ns}]): the probe's latency resident in the next level
/// minus resident in L. Otherwise typical figures. L1 misses are left out: the
/// out-of-order core hides L2 hits (poll's per-fd cost on this machine does not change
/// when n x footprint crosses L1). Returns nullopt when there are no caches at L2 or above.
/// Where the knees S_L sit when a probe measured the latencies: at the context's listed
/// sizes, or at the probe's cliffs (the capacity a cyclic walk really gets: the levels take
/// the cliffs from the last one down, the last level the step to DRAM, each a cliff within
/// twice its listed size; a level left without one keeps its listed size). Or,
/// probe_shape, for a walk that cannot stream (scan_streams): no knees, the probe's own
/// curve interpolated in log size above its L2-resident latency — from a grid with
/// neighbours at most 2x apart; a coarser one falls back to probe_cliffs.
enum class knee_placement { listed, probe_cliffs, probe_shape };

std::optional<latency_curve> make_latency_curve(const std::vector<cache_level>& caches,
                                                const std::vector<latency_point>& measured,
                                                knee_placement knees = knee_placement::listed);

/// Measured points from the context's "memory_latency" list (empty when absent).
std::vector<latency_point> latency_points_from_context(const nlohmann::json& context);

/// The prior on the per-fd footprint of one mechanism over one fd kind, from the kernel
/// structures a readiness query walks (struct file, the fd kind's private state).
struct footprint_prior {
  double bytes_per_fd = 0;  ///< cache lines touched per fd per call, in bytes
  double chain = 0;         ///< dependent misses per fd (fd -> file -> private state)
  double loads_mean = 0;    ///< prior mean of the loads per fd that pay Δlat (see below)
  double loads_sd = 0;      ///< prior standard deviation of that count
  std::string why;
};

/// True when every call walks all n registered fds (so the working set grows with n).
bool scans_every_fd(std::string_view mechanism);

/// True when a scan's walk over the fds is a stream the prefetchers follow: a timeout-0
/// scan over pipes, eventfds or files. A blocking scan locks and writes each fd's wait
/// queue, and a socket's state (struct socket, then a 1-2 KiB sock in its protocol's slab)
/// lies scattered: past a capacity those pay their chain of misses, as the probe's chase
/// does (on full2 and full3 a timeout-0 poll over socketpairs cost 22-30% more per fd from
/// 2727 fds, 1.1 MB, on, which a streaming prior put at a few percent).
bool scan_streams(std::string_view fd_kind, bool blocking);

/// Bytes and dependent chain per fd for an fd kind (loads_mean/sd left 0).
footprint_prior footprint_for(std::string_view fd_kind);

/// A blocking call also registers a 64-byte wait-queue entry per fd it scans.
inline constexpr double wait_entry_bytes = 64;

/// Bytes per second a core streams from beyond L2 when the hardware prefetchers follow
/// the walk (typical of current x86-64 servers; an assumption, stated in model.json).
inline constexpr double stream_bytes_per_s = 15e9;

/// What one descriptor of a timeout-0 poll paid past L2 on this machine: the cold_scan
/// probe's slope between its two n after a buffer of evict_bytes was read before each call,
/// minus the slope of the same calls back to back (calibrate/probes/cold_scan.cpp).
struct cold_exposure {
  double excess_ns = 0;    ///< ns per descriptor (may be <= 0: nothing exposed, or noise)
  double evict_bytes = 0;  ///< the buffer read before each cold call (0: not recorded)
  std::int64_t n_lo = 0, n_hi = 0;
};

/// The full prior for a cell: footprint_for(fd_kind) (+ a wait entry when blocking), and
/// loads per fd. fds created together lie in sequence in their slabs, so a walk in fd
/// order is a stream the prefetchers follow: its expected cost per fd well past the first
/// knee (at four times it) is what the cold_scan probe measured for this fd kind (`cold`),
/// or without one the streaming time bytes/stream_bytes_per_s; that sets the mean (in units
/// of the curve's Δlat there). The standard deviation, half the dependent chain, lets
/// anything from no miss to the whole chain exposed fall within the 95% interval.
footprint_prior working_set_prior(std::string_view fd_kind, bool blocking, const latency_curve& curve,
                                  const cold_exposure* cold = nullptr);

/// The prior for a token ring's per-pass memory term (cycle_set): each pass writes one
/// pipe and reads it on the other side, and a lap visits all n pipes. Per pipe: struct
/// pipe_inode_info (192 B), its pipe_buffer array (16 x 40 B, a 1 KiB allocation), the
/// two files' lines and the data line: about 1 KiB. The chain file -> pipe -> buffer ->
/// page on each side is about 8 dependent misses a pass; nothing makes them a stream
/// (the pass crosses syscalls and a wake-up), so the prior is half of them, sd as large.
footprint_prior ring_prior(std::string_view fd_kind);

/// True for a cell whose every operation visits one of the n watched fds and a lap of
/// operations all of them: interest_churn's epoll `mod`, which cycles EPOLL_CTL_MOD through
/// the registered eventfds. Its memory term is a cycle_set, as a token ring's is.
bool cycles_watched_set(const datasets::key& k);

/// The prior for epoll_ctl(MOD)'s per-operation memory term (cycle_set): per watched
/// eventfd the line of its struct file (f_op, private_data), the epitem's two lines (its
/// tree node and file/fd key, read by ep_find; its event, written by ep_modify) and the
/// line of eventfd_ctx that eventfd_poll reads, plus the 8-byte fd-table slot: 264 B. The
/// chain fd -> file, tree -> epitem, file -> eventfd_ctx is 3 dependent misses (the tree's
/// upper nodes are shared with the previous fd's lookup); nothing streams them (each MOD
/// is a system call of its own), so as for the scans that cannot stream the prior mean is
/// the chain and its sd half of it.
footprint_prior churn_prior();

/// The prior on the loads per wait entry a blocking call registers (and removes on return)
/// that pay Δlat: the queue head the entry is linked into and the entry itself. Its
/// bytes_per_fd is `scan`'s: the entries live in the same working set as the scan.
footprint_prior entry_prior(const footprint_prior& scan);

/// ns -> the response unit of a cell ("ns", "us", "ms", "s"); 0 for other units.
double ns_to_unit(std::string_view unit);

/// The working-set basis for a cell whose response is in `response_unit`.
basis working_set_basis(const latency_curve& curve, const footprint_prior& prior, std::string_view response_unit);

}  // namespace pollscale::model
