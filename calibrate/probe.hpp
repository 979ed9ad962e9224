// What a probe is. A probe measures one scenario (find_active, token_ring, ...): it lists
// the points it can measure for a profile, and for one point builds an *instance* whose
// run(ops) performs `ops` operations back to back, checks every answer, and returns the
// nanoseconds spent in the part its essay says is timed. The runner (runner.hpp) decides
// batch sizes, warm-up and repetitions; the probe decides what one operation is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/channel.hpp"
#include "calibrate/mechanism.hpp"
#include "datasets/schema.hpp"

namespace pollscale::calibrate {

/// The point cannot run on this machine (mechanism refused, descriptor limit, one CPU...);
/// the runner records it as skipped with this reason and goes on.
class probe_skipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A call returned a wrong answer (not exactly the expected descriptors ready). Fatal for
/// the run: a probe that measures the wrong thing must fail loudly.
class probe_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class probe_instance {
 public:
  virtual ~probe_instance() = default;
  /// Performs `ops` >= 1 operations; returns the timed nanoseconds for all of them.
  virtual std::uint64_t run(std::size_t ops) = 0;
  /// Fills key columns known only once set up (e.g. max_fd, the highest descriptor).
  virtual void annotate(datasets::key& k) const { (void)k; }
  /// The fewest operations one sample may hold (>= 1). A closed loop needs many rounds of
  /// its clients per sample to be in a steady state; the runner sizes batches from here.
  virtual std::size_t min_batch() const { return 1; }
  /// 0 (the default): samples are batches sized to the timer and repeated until the median
  /// is known (runner.hpp). > 0: every sample is one operation timed alone, and a visit takes
  /// this many — a probe that wants the spread of single operations, not their median.
  virtual std::size_t single_op_samples() const { return 0; }
  /// false (the default): run() returns nanoseconds. true: run() returns how many times an
  /// event the point counts happened in its batch (shared_epoll's wake-ups), the point's
  /// unit is "1" and a sample is that count per operation; the runner then sizes batches
  /// by the wall time it reads around run().
  virtual bool counts() const { return false; }
};

/// How much work a calibration may do.
enum class profile_kind { quick, full };

/// What the user asked for, as probes need it to list their points.
struct selection {
  profile_kind profile = profile_kind::quick;
  std::vector<std::int64_t> n_override;  ///< --n: replaces each probe's grid of n when set
  std::size_t max_fds = 0;               ///< descriptors this process may open (soft limit - reserve)
  std::vector<int> cpus;                 ///< CPUs in the affinity mask
  std::uint64_t seed = 1;
};

struct probe_def {
  std::string_view scenario;
  std::string_view essay;  ///< one line: what one operation is (for --list)
  /// The points this probe would measure, for the mechanisms in `mechs`.
  std::function<std::vector<datasets::key>(const selection&, std::span<const flavour> mechs)> points;
  /// Builds the instance for one point; throws probe_skipped when it cannot run here.
  std::function<std::unique_ptr<probe_instance>(const datasets::key&, const selection&)> make;
  /// Optional: frees what make() keeps for the probe's later points (e.g. idle connections
  /// shared by points with the same n, which take seconds to set up). A session calls it
  /// whenever it moves to a point with another set-up (setup_of), at the end of every
  /// round and at its end; so must any other caller of make() when done. Idempotent.
  std::function<void()> release = {};
  /// Optional, with release: the name of the set-up a point's instance takes from what
  /// make() keeps ("" = a set-up of its own). Points with one name are visited together
  /// (visit_plan.hpp) and share one set-up per visit of the group, built by the first of
  /// them and freed by release when the session moves on.
  std::function<std::string(const datasets::key&)> setup_of = {};
  /// Optional: what the probe's points rest on that no key column holds (cold_scan's
  /// eviction size), written to context.json under the scenario's name when the plan holds
  /// any of its points.
  std::function<nlohmann::json(const selection&)> context_facts = {};
  /// Which definition of the operation the probe measures: raised whenever a change makes its
  /// points measure something else under the same keys (private_sets 2: T = 1 in a process of
  /// two threads since 2026-12-07), so that compare never sets the two against each other.
  /// context.json calibration.probe_revisions records it per scenario; absent there: 1.
  int revision = 1;
};

/// Log-spaced integer grid from lo to hi (both included), `count` points, duplicates removed.
std::vector<std::int64_t> log_grid(std::int64_t lo, std::int64_t hi, int count);

/// The flavour a key names; throws std::invalid_argument for an unknown one.
flavour flavour_of(const datasets::key& k);

/// The fd kind a key names; throws std::invalid_argument for an unknown one.
fd_kind fd_kind_of(const datasets::key& k);

}  // namespace pollscale::calibrate
