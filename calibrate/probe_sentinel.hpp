// A sentinel that is one probe's point. Some drift is not the CPU's speed (sentinel.hpp) but
// the road between two CPUs: a wake-up that crosses them (wake_sentinel.hpp), a cache line
// handed over (placement_sentinel.hpp). Each of those is watched by running one fixed point of
// the probe that measures it — the same operation, in the same instance, as the points it
// watches — at most once every `min_interval_s` through the whole run.
//
// One reading: build the probe's instance for that point (its partner thread and
// descriptors, well under a millisecond), run one warm-up batch, time `batches` batches of
// `round_trips_per_batch` operations and report their median, ns per operation. The
// instance is dropped after the reading, so the sentinel holds nothing between visits.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "calibrate/probe.hpp"
#include "datasets/dataset.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {

class probe_sentinel {
 public:
  /// Which point of which probe, and how one reading runs.
  struct spec {
    datasets::scenario probe;  ///< the probe whose point is the sentinel
    /// True for the sentinel's point among the probe's quick grid over the run's mask.
    std::function<bool(const datasets::key&, const selection&)> is_the_point;
    int batches = 0;                        ///< timed batches in one reading
    std::size_t round_trips_per_batch = 0;  ///< operations in one batch
    double min_interval_s = 1.0;            ///< at most one reading this often (s)
  };

  /// Finds the point in the probe's quick grid over `sel`'s mask (whatever the run's profile
  /// or --n: the same point in every calibration); with fewer than two CPUs in the mask, or
  /// without the probe or the point, the sentinel is off and every read() gives nullopt.
  probe_sentinel(const selection& sel, spec what);

  bool on() const { return key_.has_value(); }
  double min_interval_s() const { return spec_.min_interval_s; }

  /// A reading at `t_s` seconds into the run when the last one is at least min_interval_s
  /// old; nullopt otherwise, when off, or when the probe cannot run now (descriptors held by
  /// a probe's shared set-up). A wrong answer of the operation is probe_failure.
  std::optional<datasets::sentinel_reading> read(double t_s);

 private:
  selection sel_;
  spec spec_;
  std::optional<datasets::key> key_;
  const probe_def* probe_ = nullptr;
  std::optional<double> last_t_s_;
};

}  // namespace pollscale::calibrate
