// The drift sentinel. A shared 2-vCPU VM does not run at one speed: a neighbour on the same
// physical core or its caches slows every operation by tens of percent, for seconds at a
// time, and the guest cannot see it (lscpu shows one thread per core). A point measured in
// a quarter second reports whichever speed it met. The sentinel is one fixed, cheap
// operation, measured again just before each visit of a point through the whole run, so
// that the speed of every moment is on record: each sample row carries the reading taken
// before its visit (samples.csv `sentinel_ns`), the series goes to sentinel.csv, and the
// context summarises the machine's stability (stability_of).
//
// One operation: poll(2) with timeout 0 over 64 pipes' read ends, the middle one holding a
// byte that is never read, plus the check of the answer — find_active's time_per_call at
// n = 64, about a microsecond: a kernel entry, 64 f_op->poll calls and the copy back, the
// same kind of work the scans it watches do. Each reading sets the pipes up afresh (0.2 ms),
// so the sentinel holds no descriptor between readings (the probes may need them all),
// times one warm-up batch and then `batches` batches of a fixed number of calls (fixed for
// the run, so readings compare), and reports their median in ns per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/dataset.hpp"
#include "datasets/run_facts.hpp"

namespace pollscale::calibrate {

class sentinel {
 public:
  static constexpr std::size_t pipes = 64;
  static constexpr int batches = 9;

  /// `min_batch_ns`: a batch lasts at least this long (the runner's min_sample_ns).
  explicit sentinel(double min_batch_ns) : min_batch_ns_(min_batch_ns) {}

  /// One reading at `t_s` seconds into the run. nullopt when the pipes cannot be set up
  /// now (a probe's shared resources hold the descriptors); the run goes on without it.
  std::optional<datasets::sentinel_reading> read(double t_s);

  /// What one operation is, for the context block.
  static std::string description();

 private:
  double min_batch_ns_;
  std::size_t calls_per_batch_ = 0;  // sized at the first reading, then fixed
};

/// The machine's stability over a run, from its sentinel series: the median, p10 and p90
/// of the readings (ns per call), spread = p90 / p10, the slowest reading over the median,
/// and the worst episode — the longest stretch of consecutive readings at least 1.15x the
/// series' p10 (the fast mode), with its duration and its median over p10. `stable` is false
/// when spread > 1.15 or the worst episode lasted 5 s or more. `description` says what one
/// operation of the series is (the cross-CPU wake sentinel's series is judged the same way).
datasets::stability_facts stability_of(const std::vector<datasets::sentinel_reading>& series,
                                       const std::string& description = sentinel::description());

/// What a user can do about a drifted machine's speed: compare and fit the points brought to
/// the run's fast mode by this sentinel (model/observations.hpp, point_statistic::adjusted).
inline constexpr const char* fast_mode_remedy =
    "points measured in the slow spells can be brought to the fast mode by this sentinel: "
    "`pollscale fit|validate|compare --statistic adjusted` (docs/calibrate.md, \"Adjusted to the fast mode\")";

/// The warning stability_of's verdict asks for (empty when stable or without readings);
/// `subject` is what drifted ("the machine's speed", "cross-CPU wake-ups"); `remedy`, when
/// given, is appended as what to do about it.
std::string stability_warning(const datasets::stability_facts& stability,
                              const std::string& subject = "the machine's speed", const std::string& remedy = "");

}  // namespace pollscale::calibrate
