// Threads or processes: where one calibration ran the same timeout-0 wait loop as threads
// of one process (private_sets) and as processes of one thread each (private_processes),
// what the second way gains — the ratio of their rates at every (C, N) both measured, and
// what it means per call on one CPU. A planner choosing between a threaded server and one of
// worker processes reads it in the report's CPU-scaling section (docs/scaling.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pollscale::app::study {

/// One flavour's comparison ("epoll/lt/pipe t0 throughput").
struct threads_or_processes_row {
  std::string flavour;
  std::size_t points = 0;   ///< (C, N) measured both ways
  double median_ratio = 0;  ///< processes' rate over threads', the median over `points`
  double lowest = 0, highest = 0;
  double ns_saved_per_call = 0;  ///< on one CPU: 1/threads - 1/processes, median, in ns (NaN: no one-CPU pair)
};

/// Every flavour of a `scale --format json` result (its "tables") measured both ways, in
/// the order the processes' tables come; empty when none was.
std::vector<threads_or_processes_row> threads_or_processes(const nlohmann::json& scale_result);

/// The report's paragraph for `rows` ("" when empty).
std::string threads_or_processes_markdown(const std::vector<threads_or_processes_row>& rows);

}  // namespace pollscale::app::study
