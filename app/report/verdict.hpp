// The report's first section: the answer before the evidence. From the measurements alone,
// which mechanism waits for one ready pipe among n most cheaply at each measured n, and from
// which n epoll is clearly cheaper than poll (where the 95% intervals stop overlapping).
// The study adds what only it knows (the model's accuracy here, predictions past the
// descriptor limit, the simulated server), as lines given to write_report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "datasets/dataset.hpp"

namespace pollscale::app::report {

/// At one n: the cheapest of the compared mechanisms and the next, by median. `clear` when
/// the cheapest's 95% interval lies wholly below the runner-up's.
struct choice_at_n {
  std::int64_t n = 0;
  std::string cheapest, runner_up;
  datasets::summary best, next;
  bool clear = false;
};

/// select, poll and epoll (level-triggered): the operation every mechanism does alike, one
/// wait call with timeout 0 finding 1 ready pipe in the middle of n (find_active,
/// time_per_call), at every n where at least two of them were measured.
std::vector<choice_at_n> measured_choices(const datasets::dataset& d);

/// Where `cheaper` (e.g. epoll) becomes clearly cheaper than `dearer` (poll): the smallest
/// measured n from which its interval lies below the other's at every larger common n, and
/// the common n just below it (absent when it is clear from the first). None when never.
struct crossover {
  std::int64_t from_n = 0;
  std::optional<std::int64_t> not_yet_at;
};
std::optional<crossover> measured_crossover(const datasets::dataset& d, std::string_view cheaper,
                                            std::string_view dearer);

/// The "## Verdict" section: the measured answer, then `study_lines` (Markdown) when given.
std::string verdict_markdown(const datasets::dataset& d, const std::string& study_lines);

}  // namespace pollscale::app::report
