// The CPU-scaling grids share one shape (producers_points.cpp, private_sets_points.cpp):
// series of C CPUs — C = 1, a one-CPU machine, and C = Cmax, the widest the mask allows
// up to a profile's cap, with the powers of two between them in the full profile — each
// measured at the thread counts T = 1, 2, 3, 4, 6, 8, 12, 16, ... up to a multiple of Cmax.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/probe.hpp"

namespace pollscale::calibrate::probes {

/// 1, 2, 3, 4, 6, 8, 12, 16, 24, ... up to t_max, then t_max (t_max >= 1).
std::vector<std::int64_t> thread_counts(std::int64_t t_max);

/// Cmax: min(CPUs in the mask, cap), at least 2 (where the mask holds one CPU the wider
/// series is listed and its points are skipped, as wakeup's cross-CPU points are).
std::int64_t widest_series(const selection& sel, std::int64_t cap);

/// The series widths: 1, then (full profile) every power of two below Cmax, then Cmax.
std::vector<std::int64_t> series_widths(const selection& sel, std::int64_t c_max);

/// The first `count` CPUs of the mask; where it holds fewer, numbers above its last CPU
/// (not in the mask: a probe's make() skips the points that use them).
std::vector<int> first_cpus(const selection& sel, std::int64_t count);

/// The thread counts of a series grid: thread_counts(per_cpu x Cmax), or --n's values from 1
/// to max_threads when it is given.
std::vector<std::int64_t> series_thread_counts(const selection& sel, std::int64_t c_max, std::int64_t per_cpu,
                                               std::int64_t max_threads);

/// "c0+c1+...": thread i on cpus[i % C].
std::string round_robin_pinning(const std::vector<int>& cpus, std::int64_t threads);

/// The grid private_sets and shared_epoll share: for each key of `bases` (scenario,
/// flavour, fd kind, metric, unit, blocking filled in), the series C = 1 .. min(CPUs, 4
/// quick / 16 full) at T = 1 .. 2 x Cmax (full 4 x Cmax) threads, or --n's T up to
/// max_threads; n_fds = n_active = threads = T, thread i on the (i mod C)-th CPU, cpus =
/// min(C, T). A point two series share (T = 1) is listed once; bases in the order given.
std::vector<datasets::key> round_robin_grid(const selection& sel, const std::vector<datasets::key>& bases,
                                            std::int64_t max_threads);

/// A probe instance that owns one threaded driver: run(ops) is one batch of the driver's
/// `Batch`, at least `MinBatch` operations, and max_fd the driver's highest watched
/// descriptor. The drivers build everything in their constructors from (key, sel).
template <class Driver, std::uint64_t (Driver::*Batch)(std::size_t), std::size_t MinBatch>
class driver_instance final : public probe_instance {
 public:
  driver_instance(const datasets::key& key, const selection& sel) : d_(key, sel) {}
  std::uint64_t run(std::size_t ops) override { return (d_.*Batch)(ops); }
  std::size_t min_batch() const override { return MinBatch; }
  void annotate(datasets::key& k) const override { k.max_fd = d_.max_watched_fd(); }

  /// For probe_def::make.
  static std::unique_ptr<probe_instance> make(const datasets::key& key, const selection& sel) {
    return std::make_unique<driver_instance>(key, sel);
  }

 private:
  Driver d_;
};

/// Whether a point of a probe whose threads wait for shared events (shared_epoll,
/// accept_herd) counts its threads' wake-ups (metric wakeups, unit 1) rather than timing its
/// rate (metric throughput, 1/s); std::invalid_argument naming `scenario` for another.
bool counts_wakeups(std::string_view scenario, const datasets::key& key);

/// The sleeps of one thread's active stretch (let go by a batch .. parked again): its
/// voluntary context switches between begin() and end(), added to a driver's total at
/// end() — before the thread counts itself parked, so that a quiesce sees them. The park's
/// own sleep falls outside.
class sleep_tally {
 public:
  /// At the stretch's first wait; later calls keep the first reading.
  void begin();
  /// When the thread is about to park; nothing when no stretch began.
  void end(std::atomic<std::uint64_t>& total);

 private:
  std::optional<std::uint64_t> start_;
};

/// A point of a driver whose threads wait for shared events: its rate (the driver's `Batch`
/// timed) or, where the key counts wake-ups (counts_wakeups), the threads' sleeps per
/// operation: counted between two quiet moments (Driver::quiesce), so that the operations
/// threads add after a batch's target and their sleeps fall in the same batch, over the
/// operations done (`Done`), scaled to the ops the runner divides by.
template <class Driver, std::uint64_t (Driver::*Batch)(std::size_t), std::uint64_t (Driver::*Done)() const,
          std::size_t MinBatch>
class wakeup_counting_instance final : public probe_instance {
 public:
  wakeup_counting_instance(const datasets::key& key, const selection& sel)
      : counting_(counts_wakeups(key.scenario, key)), d_(key, sel) {}
  std::uint64_t run(std::size_t ops) override {
    if (!counting_) return (d_.*Batch)(ops);
    const std::uint64_t done = (d_.*Done)(), sleeps = d_.sleeps();
    (d_.*Batch)(ops);
    d_.quiesce();
    const auto operations = static_cast<double>((d_.*Done)() - done);
    const auto woken = static_cast<double>(d_.sleeps() - sleeps);
    return static_cast<std::uint64_t>(std::llround(woken / operations * static_cast<double>(ops)));
  }
  std::size_t min_batch() const override { return MinBatch; }
  bool counts() const override { return counting_; }
  void annotate(datasets::key& k) const override { k.max_fd = d_.max_watched_fd(); }

  /// For probe_def::make.
  static std::unique_ptr<probe_instance> make(const datasets::key& key, const selection& sel) {
    return std::make_unique<wakeup_counting_instance>(key, sel);
  }

 private:
  bool counting_;
  Driver d_;
};

/// T = key.n_fds of a point whose threads each take one descriptor: std::invalid_argument
/// below 1, probe_skipped above max_threads (the message names `scenario`).
std::size_t point_threads(std::string_view scenario, const datasets::key& key, std::int64_t max_threads);

/// The CPU of each of a point's `threads` threads, from key.pinning: std::invalid_argument
/// when it names another number of CPUs, probe_skipped when one is outside the mask.
std::vector<int> point_thread_cpus(std::string_view scenario, const datasets::key& key, std::size_t threads,
                                   const selection& sel);

}  // namespace pollscale::calibrate::probes
