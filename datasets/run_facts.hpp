// The facts about a calibration run that say how far to trust it, typed: how steady the
// machine was (each sentinel's series judged: calibrate/sentinel.hpp, wake_sentinel.hpp),
// how pollscale agreed with independent references measured at the same moments
// (calibrate/reference_check.hpp), and what went wrong (warnings, failures, points skipped
// with their reason). calibrate writes the stability with write_stability; the report reads
// all of them by field through read_run_facts, never by key (machine_facts.hpp holds the
// machine's own facts the same way).
//
// JSON, inside context.json (docs/datasets.md):
//   "stability": {"sentinel": "...", "readings": 2349, "median_ns": 2820.5, "p10_ns": ...,
//                 "p90_ns": ..., "spread_p90_p10": 1.07, "max_over_median": 1.30,
//                 "slow_share": 0.005, "worst_episode": "t = 13.7-13.8 s at 1.18x p10",
//                 "worst_episode_s": 0.1, "stable": true,
//                 "cross_cpu": { the same for the wake sentinel },
//                 "placement": {"sentinel": "...", "readings": 118, "median_ns": 455.2,
//                               "moved": true, "near_ns": 66.1, "far_ns": 461.0,
//                               "near_share": 0.33, "moves": 2}}
//   "reference":  {"poll_loop": {"median_ratio": 1.004, "point": "...", "tool": "...",
//                                "readings": [...]} or {"missing": "why"}, "perf_pipe": ...}
//   "warnings": ["..."], "failures": ["..."], "skipped": [{"point": "...", "reason": "..."}]
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pollscale::datasets {

/// A sentinel reading at least this many times its p10 met the machine's slow mode (what
/// slow_share counts and a worst episode is made of); two runs whose sentinel levels are
/// this far apart met different speed modes (studies::sentinel_shift).
inline constexpr double slow_reading_factor = 1.15;

/// One sentinel's series, judged: its level, its spread and its worst slow stretch.
struct stability_facts {
  std::string sentinel;  ///< what one operation is
  std::size_t readings = 0;
  /// Absent without readings (then no verdict either).
  std::optional<double> median_ns, p10_ns, p90_ns, spread_p90_p10, max_over_median, slow_share;
  std::string worst_episode;  ///< "t = 0-54.8 s at 1.35x p10", or "none"
  double worst_episode_s = 0;
  std::optional<bool> stable;  ///< nullopt: no verdict (no readings)
};

/// An independent reference run beside its twin point.
struct reference_facts {
  std::string name;                    ///< "poll_loop", "perf_pipe"
  std::optional<double> median_ratio;  ///< pollscale / reference, median of the pairs
  std::string point;                   ///< the twin point
  std::string missing;                 ///< why it did not run; empty when it did
};

/// Where the host kept the first two CPUs relative to each other (the placement sentinel:
/// a cache line's round trip between them). A guest's vCPUs sit on cores of one core complex
/// or of two, and the host moves them: the round trip then steps between two levels several
/// times apart (about 65 and 460 ns on the AMD EPYC guests of the machine corpus), and every
/// cost that crosses the two CPUs steps with it.
struct placement_facts {
  std::string sentinel;  ///< what one operation is
  std::size_t readings = 0;
  std::optional<double> median_ns;  ///< absent without readings
  /// True when the readings fell on two levels (the longest at least twice the shortest:
  /// split at the geometric middle of p5 and p95); then the levels, the share of readings
  /// on the near (fast) one and how often consecutive readings changed level.
  bool moved = false;
  std::optional<double> near_ns, far_ns, near_share;
  std::size_t moves = 0;
};

struct run_facts {
  std::optional<stability_facts> drift;      ///< one CPU's speed (the drift sentinel)
  std::optional<stability_facts> cross_cpu;  ///< wake-ups across CPUs (the wake sentinel)
  std::optional<placement_facts> placement;  ///< the first two CPUs' placement (absent on one CPU)
  std::vector<reference_facts> references;
  std::vector<std::string> warnings, failures;
  std::vector<std::pair<std::string, std::string>> skipped;  ///< point, reason
};

/// The stability block as JSON (the keys above, without cross_cpu).
nlohmann::json to_json(const stability_facts& s);

/// Writes the stability block: "stability" = drift, with "cross_cpu" inside when given.
void write_stability(nlohmann::json& context, const stability_facts& drift,
                     const std::optional<stability_facts>& cross_cpu);

/// The placement block as JSON (the keys above).
nlohmann::json to_json(const placement_facts& p);

/// Writes "stability"."placement" (the stability block must be written first).
void write_placement(nlohmann::json& context, const placement_facts& p);

/// Reads the run facts from a context block. Tolerant like read_machine_facts: a context
/// from an older pollscale or a hand edit keeps what is readable, and a field of the wrong
/// type is left out.
run_facts read_run_facts(const nlohmann::json& context);

}  // namespace pollscale::datasets
