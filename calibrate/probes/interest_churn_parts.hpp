// Pieces shared by interest_churn's files (interest_churn.cpp holds the essay): the pool
// size, a batch loop that times only the middle step, and the rtsig and io_uring instances.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "calibrate/probe.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes::churn {

/// Fresh descriptors kept for ADD/DEL/arm batches (epoll, io_uring): at most this many
/// operations are timed between two clock reads.
inline constexpr std::size_t pool_size = 128;
/// Fresh pipes created per rtsig batch (two descriptors each while the batch lasts).
inline constexpr std::size_t rtsig_batch = 64;

/// n_fds of a key; std::invalid_argument when absent or below 1.
inline std::size_t n_of(const datasets::key& k) {
  if (!k.n_fds || *k.n_fds < 1) throw std::invalid_argument("interest_churn needs n_fds >= 1");
  return static_cast<std::size_t>(*k.n_fds);
}

/// n channels with every trigger end parked, after checking that they and `extra` more
/// descriptors fit (probe_skipped otherwise).
inline std::unique_ptr<channel_set> checked_channels(fd_kind kind, std::size_t n, std::size_t extra,
                                                     const selection& sel) {
  require_fds(channel_set::fds_needed(kind, n, 0) + extra, sel);
  channel_options opts;
  opts.keep_trigger = [](std::size_t) { return false; };
  return std::make_unique<channel_set>(kind, n, opts);
}

/// Runs `ops` operations in batches of at most `batch`: before(c) and after(c) untimed,
/// timed(c) between two clock reads. A batch the thread was preempted in is run again
/// (time_unpreempted: it timed another task too). Returns the sum of the timed parts in ns.
template <class Before, class Timed, class After>
std::uint64_t chunked(std::size_t ops, std::size_t batch, Before&& before, Timed&& timed, After&& after) {
  std::uint64_t total = 0;
  for (std::size_t done = 0; done < ops;) {
    const std::size_t c = std::min(batch, ops - done);
    total += time_unpreempted(
        [&] {
          before(c);
          const std::uint64_t t0 = clock_ns();
          timed(c);
          const std::uint64_t t = clock_ns() - t0;
          after(c);
          return t;
        },
        [] {});
    done += c;
  }
  return total;
}

/// rtsig `setup` (interest_churn_rtsig.cpp).
std::unique_ptr<probe_instance> make_rtsig_setup(const datasets::key& key, const selection& sel);
/// io_uring `arm` (interest_churn_uring.cpp).
std::unique_ptr<probe_instance> make_uring_arm(const datasets::key& key, const selection& sel);

}  // namespace pollscale::calibrate::probes::churn
