// How steady the machine was while it was measured: the report's answer to "can I trust
// these numbers here". A shared VM moves between speeds for seconds to minutes — one CPU's
// speed (the drift sentinel, calibrate/sentinel.hpp) and, separately, the cost of waking a
// thread on the other CPU (the cross-CPU wake sentinel, calibrate/wake_sentinel.hpp). The
// section tables each sentinel's verdict (median, p90/p10, share of slow readings, worst
// episode), the in-run references (pollscale against a plain poll loop and `perf bench
// sched pipe` at the same moments), and draws both series over the run, each reading over
// its series' p10, so that a regime shows as a step and both fit one axis.
#pragma once

#include <optional>
#include <string>

#include "app/report/plot.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app::report {

struct conditions {
  std::string markdown;          ///< "## How steady the machine was" and its table
  std::optional<figure> series;  ///< the sentinels over the run; none without readings
};

/// The section for `d`; a dataset without sentinels (written before 2026-12-01, or a
/// historical table) says it has no record of the machine's stability.
conditions conditions_section(const datasets::dataset& d);

}  // namespace pollscale::app::report
