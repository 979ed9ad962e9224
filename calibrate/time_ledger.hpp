// Where a calibration's wall-clock time went. The quick profile has a budget (3 minutes
// on a 2-vCPU machine) and the same plan took 125 s and 259 s on one host in two states:
// whether the extra time went into the timed batches (which the runner's caps bound), the
// set-ups (descriptors, connections, threads: system calls that slow down with the
// machine), the batch sizing and warm-ups, or the sentinels read between visits decides
// what a budget can act on. So every visit's parts are added up per probe, the run's own
// work between visits beside them, and the sum goes into context.json
// (`calibration.time`, seconds; docs/datasets.md).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "calibrate/runner.hpp"

namespace pollscale::calibrate {

/// The run's own work outside a probe's visits.
enum class overhead {
  sentinels,  ///< the drift and cross-CPU wake sentinels read before each visit
  release,    ///< freeing a shared set-up (closing its descriptors, joining threads)
  writes,     ///< the dataset written part-way (every ~30 s) — not the final write
  references  ///< the in-run reference tools (poll loop, perf bench) run beside the points
};

class time_ledger {
 public:
  /// One visit's parts (point_result's setup_s, prepare_s, measure_s), under its probe.
  void add_visit(std::string_view scenario, const point_result& r);
  void add(overhead what, double seconds);
  /// {"probes": {scenario: {visits, setup_s, prepare_s, measure_s}}, "sentinels_s",
  /// "release_s", "writes_s", "references_s", "unaccounted_s": wall_s less all of them}.
  nlohmann::json to_json(double wall_s) const;

 private:
  struct probe_time {
    std::size_t visits = 0;
    double setup_s = 0, prepare_s = 0, measure_s = 0;
  };
  std::map<std::string, probe_time> probes_;
  std::map<overhead, double> overheads_;
};

}  // namespace pollscale::calibrate
