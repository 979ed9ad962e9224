// Visits until the visits agree. Three visits per point, each with a fresh set-up at
// another moment of the run, are enough for most points: their medians agree to a percent
// or two. Some do not. Scans over 10,000-20,000 sockets read 1.4 ms after one set-up and
// 4.4 ms after the next (where the kernel's socket objects land decides how much of them
// the guest's share of the last-level cache holds; the batches of one set-up agree with each
// other), and points whose threads run on two CPUs meet either placement of the vCPUs. Three
// draws from such a spread give a median that the next run does not repeat: in a
// back-to-back pair of quick runs on the ninth corpus host, 56 of the 62 points that moved
// by more than 10% had visits whose median was uncertain by more than 5% (one standard
// error) in one run or the other. More visits are the only cure the guest has (it has no
// cache-miss counters), and they cost time, so they go where they are needed: after the
// rounds, a point whose visit medians' relative standard error (statistics.hpp,
// visit_median_log_se) is above a target is visited again, sweep after sweep, until it is
// under the target or has its maximum of visits, within a share of the time the rounds
// took. A sweep is a round of those points alone (the same seeded order, set-ups kept
// together and made afresh), so settling visits spread over time like the rounds' visits.
#pragma once

#include <cstddef>
#include <vector>

#include "calibrate/calibration.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::calibrate {

/// The visits' relative standard error of each planned point (visit_median_log_se of its
/// visits' medians) and how many visits it has. `sample_keys[i]` is the key planned point
/// i's samples carry (the planned key as its probe annotated it: max_fd, a variant), empty
/// (no scenario) for a point not measured; such a point has 0 visits.
struct visit_agreement {
  double se = 0;
  std::size_t visits = 0;
};
std::vector<visit_agreement> agreement_of(const std::vector<datasets::key>& sample_keys,
                                          const std::vector<datasets::sample_row>& samples);

/// The points of `order` (plan indices, as round_order gives) that a sweep visits again,
/// in that order: those whose visits disagree (se above `o.target_se`) and have fewer than
/// `o.max_visits` visits.
std::vector<std::size_t> points_to_settle(const std::vector<visit_agreement>& agreement,
                                          const std::vector<std::size_t>& order, const settle_options& o);

/// How many points' visits disagree beyond `target_se`, whatever their number of visits.
std::size_t disagreeing(const std::vector<visit_agreement>& agreement, double target_se);

}  // namespace pollscale::calibrate
