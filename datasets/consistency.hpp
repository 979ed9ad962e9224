// Physics self-consistency of a calibration's find_active and cold_scan summaries.
//
// Why: a calibration runs on a shared VM. A point measured while a neighbour was busy (or
// while the host was migrating pages, or the hypervisor was descheduling us) can come out
// slower than it really is, and its neighbours then look cheaper than physics allows. Such
// a point does not look wrong by itself: its interval is tight, its samples agree. It only
// shows up next to the points it must be ordered against. This checker compares those
// pairs and names each one that breaks the order, so that the summary can carry a mark and
// a reader (or the model fit) knows which medians not to trust.
//
// The rules, each over rows of scenario "find_active" only:
//   op_below_call           With timeout 0 (blocking 0), one operation is write + wait +
//                           read; it cannot cost less than the wait call alone. The
//                           time_per_op row is compared with the time_per_call row of the
//                           same set-up.
//   decreasing_in_n         A scan over more registered descriptors cannot be cheaper than
//                           one over fewer: along a series in n_fds, time_per_call and
//                           time_per_op do not decrease. Flat series (epoll) cross by noise,
//                           so only a decrease beyond both intervals is flagged.
//   blocking_below_timeout0 A time_per_op whose wait may sleep (blocking 1) cannot be cheaper
//                           than the same operation with timeout 0, which never sleeps.
//
// And over rows of scenario "cold_scan" (calibrate/probes/cold_scan.cpp):
//   cold_below_warm         A call timed after its descriptors' state was pushed past L2
//                           (variant cold) cannot cost less than the same call back to back
//                           (variant empty) at the same n.
//   decreasing_in_n         As above, along each of its series.
//
// "The same set-up" means every key column equal except the one the rule varies and
// max_fd: max_fd is the highest descriptor number, which depends on what else the set-up
// had open (the op's extra pipe, a parked range) and is not part of the physics compared.
// An absent blocking is read as 0, as the probes read it.
//
// Units: values are summary medians with their distribution-free 95% intervals
// (ci95_lo, ci95_hi), in the row's own unit. Rows are compared only when their units are
// equal (the unit is part of the matched key); nothing is converted.
//
// Each issue says whether the order is broken by the medians only (a hint, could be noise)
// or even allowing both 95% intervals (beyond_intervals: the pair cannot both be right).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "datasets/dataset.hpp"
#include "datasets/schema.hpp"

namespace pollscale::datasets {

inline constexpr std::string_view rule_op_below_call = "op_below_call";
inline constexpr std::string_view rule_decreasing_in_n = "decreasing_in_n";
inline constexpr std::string_view rule_blocking_below_timeout0 = "blocking_below_timeout0";
inline constexpr std::string_view rule_cold_below_warm = "cold_below_warm";

/// Separator of the rule names in consistency_marks (a summary.csv column).
inline constexpr char consistency_marks_separator = ';';

struct consistency_issue {
  key k;                  ///< the point that breaks the rule (the cheaper / later one)
  key other;              ///< the point it is compared with
  std::string_view rule;  ///< one of the rule_* constants above
  bool beyond_intervals;  ///< true: broken even allowing both 95% intervals; false: medians only
  std::string detail;     ///< one line, e.g. "time_per_op 9.6 us < time_per_call 15.8 us at n=1168 ..."
};

/// Every rule broken among the find_active and cold_scan rows of `rows`, sorted by k, then
/// rule, then other. O(rows log rows). Rows of other scenarios are ignored.
std::vector<consistency_issue> check_consistency(const std::vector<summary_row>& rows);

/// The rule names flagged on `k` in `issues`, each once, sorted, joined by ';'; "" when none.
std::string consistency_marks(const std::vector<consistency_issue>& issues, const key& k);

}  // namespace pollscale::datasets
