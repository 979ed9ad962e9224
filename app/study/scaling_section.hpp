// The report's CPU-scaling section: what `pollscale scale` found (its JSON), per table the
// law chosen and what limits scaling (σ, κ), the held-out thread counts against their
// predictions and 95% intervals, the counts nobody measured, and one figure per source of
// throughput against N, measured and predicted (docs/scaling.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/report/report.hpp"

namespace pollscale::app::study {

/// One `scale --format json` result (a single source) under a heading of its own.
struct scaling_run {
  std::string title;     ///< "This machine", "Published stress-epoll tables"
  std::string protocol;  ///< one sentence: what trained, what was predicted
  nlohmann::json result;
  std::string figure_name;  ///< file stem of its figure
};

/// "## CPU scaling" with one sub-section per run and, where `wider` is a `scale --from-cpus 1
/// --format json` result, one on the wider series predicted from the one-CPU series (per
/// family: C, N, measured, predicted with its interval, what limited it, error); an empty
/// `runs` and no `wider` give a section saying nothing was measured.
report::extra_section scaling_section(const std::vector<scaling_run>& runs,
                                      const nlohmann::json& wider = nlohmann::json());

}  // namespace pollscale::app::study
