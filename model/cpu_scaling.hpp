// What a calibration's CPU-scaling series say about machines of any width, kept in the
// model: `pollscale fit` runs the wider-machines protocol (scaling_wider.hpp) with every
// series it measured training (C0 = the widest), and keeps per experiment only the laws
// that protocol predicts from — the dedicated law, the capacity law of the narrowest
// series, the serial stage — so that `pollscale predict --cpus C,.. --threads T,..`
// answers from model.json what `pollscale scale --from-cpus C0` answers from the data, by
// the same rule (predict_cpu_scaling is the rule both call).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "datasets/schema.hpp"
#include "model/capacity_efficiency.hpp"
#include "model/line_crossings.hpp"
#include "model/one_in_flight.hpp"
#include "model/producer_pipeline.hpp"
#include "model/scaling_law.hpp"
#include "model/serial_stage.hpp"

namespace pollscale::model {

struct observation_set;
struct wider_family;

/// Which candidate gave a prediction: the lowest of them.
enum class wider_limit : std::uint8_t {
  dedicated_law,
  cpu_capacity,
  serial_stage,
  pipeline,
  one_in_flight,
  line_crossings
};

/// "dedicated_law", "cpu_capacity", "serial_stage", "pipeline", "one_in_flight",
/// "line_crossings" (JSON's limited_by).
const char* name(wider_limit l);

/// One experiment's laws, in the data's unit (a rate: operations per unit time).
struct cpu_scaling_laws {
  /// The experiment (scenario, mechanism, variant, fd kind, metric, unit; n_active where
  /// a series kept one token for every T); N, threads, CPUs and pinning cleared.
  datasets::key experiment;
  std::string platform, kernel;
  std::int64_t from_cpus = 0;               ///< C0: the widest series that trained
  std::vector<std::int64_t> measured_cpus;  ///< every series width measured
  /// The law of the rows whose threads each had a CPU of their own; empty when none.
  std::optional<scaling_fit> dedicated;
  std::string dedicated_note;  ///< why it carries no interval or was not fitted ("" otherwise)
  /// c0 and its law: C CPUs do at most C/c0 × what the narrowest series measured.
  std::optional<std::int64_t> capacity_cpus;
  std::optional<scaling_fit> capacity;
  std::string serial_structure;  ///< what every operation holds alone, "" when nothing
  std::optional<serial_stage_fit> serial;
  /// producers with no dedicated law: one producer and its consumer on CPUs of their own
  /// as a pipeline of measured parts (producer_pipeline.hpp); empty otherwise.
  std::optional<pipeline_fit> pipeline;
  /// One operation in flight (one_in_flight.hpp): the one-CPU series' chain, its hand-offs
  /// crossing CPUs on every machine of two CPUs or more (a ceiling where one CPU hid them);
  /// empty for other experiments.
  std::optional<chain_fit> chain;
  /// A ring of shared pipes and one epoll item a pass, from one CPU: the cache lines a pass
  /// moves across CPUs on a wider machine (line_crossings.hpp); empty otherwise.
  std::optional<crossing_charge> crossings;
  std::string caveat;  ///< what to know before trusting the answers ("" when nothing)
  /// What each CPU beyond c0 delivers on the corpus's machines (capacity_efficiency.hpp):
  /// the capacity bound of wider machines is delivered(...) of C/c0 × the capacity law; empty:
  /// the bound as operational analysis states it (`--capacity-efficiency none`).
  std::optional<capacity_efficiency> efficiency;

  /// The widest series measured (0 when none).
  std::int64_t widest() const;
  /// The most threads (N) any of the laws was fitted on (>= 1).
  double largest_n() const;
};

/// The laws a wider-machines family was fitted with (its rows left behind).
cpu_scaling_laws laws_of(const wider_family& f, std::int64_t from_cpus);

/// Every experiment of the data's CPU-scaling series, fitted as `scale --from-cpus C0`
/// fits it with C0 the widest series measured; empty when the data has no scaling rows
/// with their N, threads and CPUs. Experiments whose laws could not be fitted are left out.
std::vector<cpu_scaling_laws> fit_cpu_scaling(const observation_set& data);

/// CPU time of one operation at N threads, in 1/throughput units: c0 / X(N) of the
/// narrowest series' law (c0 CPUs, every thread sharing them, never idle) — the serial
/// stage's demand p + s.
double operation_demand(const scaling_fit& narrowest, std::int64_t c0, double n);

/// True when none of the series widths measured lies in 2..from_cpus: no series that trained
/// had its threads on two CPUs or more, so nothing fitted saw a hand-off or a line cross CPUs.
bool no_wider_series_trained(const std::vector<std::int64_t>& measured_cpus, std::int64_t from_cpus);

/// True when the experiment's threads hand work on to each other without a serial stage
/// (hand_off_structure) and no series of two CPUs or more trained (none of measured_cpus
/// lies in 2..from_cpus): the laws then saw none of the hand-offs that cross CPUs on a
/// wider machine.
bool hand_offs_unseen(const datasets::key& experiment, const std::vector<std::int64_t>& measured_cpus,
                      std::int64_t from_cpus);

/// True when what `limit` gave for N threads on C CPUs is only a ceiling: a serial stage
/// binds the experiment (serial_structure) from two CPUs on, but its hold time was not fitted
/// (one CPU shows no hand-off between CPUs, the stage was left out, or its fit failed: the
/// caveat), so the dedicated law and the capacity bound cannot see it — on the first 16-CPU
/// campaign every such prediction lay above the measurement, by 4% to 33x; or, the same way,
/// threads hand work on across CPUs that no training series had (hand_offs_unseen: from one
/// CPU, every two-CPU row of shared_epoll's EPOLLEXCLUSIVE rings in the machine corpus lay
/// 22-92% below the capacity bound); or the dedicated
/// law is the line through its one row, asked about more threads than that row had (it
/// cannot see their contention); or the one-in-flight chain gave it as its ceiling — where
/// one CPU hid its hand-offs (chain_fit::hand_offs_seen) and its waiters sleep (not where
/// they may spin: waiters_may_spin). The pipeline, built from measured parts, and the chain's
/// expectation where its hand-offs were seen, are predictions.
bool upper_bound_only(const cpu_scaling_laws& laws, std::int64_t cpus, double n, wider_limit limit);

/// What the laws say about N threads (the scenario's axis: scaling.hpp) on C >= 1 CPUs: the
/// lower of the dedicated law (where no serial stage applies, and not at C = c0, where the
/// capacity law is the measured series' own), C/c0 × the capacity law, the
/// serial stage (from two CPUs on, where hand-offs cross CPUs) and, for one operation in
/// flight, the chain of the one-CPU law (from two CPUs on: its hand-offs crossing CPUs
/// (C − 1)/C of the time where one CPU shows them, chain_fit::expected), each end of the 95%
/// interval taken the same way (scaling.hpp's capped); where the laws carry the corpus's
/// capacity efficiency, C/c0 × the capacity law as those machines deliver it (delivered).
/// `limit` says which gave the value.
/// Where that is only a ceiling (upper_bound_only) the answer says so (upper_bound) and its
/// interval is [0, hi]: nothing measured says how far below the bound the machine lands —
/// but for the one-in-flight chain, whose floor (one cross-CPU wake-up a hand-off) is its
/// lower end on two CPUs, as it is of the chain's expectation (0 beyond two: a wider machine's
/// hand-offs may cross further than the pair measured), whose upper end is the ceiling's.
/// A chain whose waiters may spin (waiters_may_spin) is no ceiling: upper_bound false, and its
/// interval reaches up to C/c0 × the capacity law's upper end.
/// Throws std::invalid_argument for N < 1, C < 1, or laws with neither a dedicated nor a
/// capacity law.
scaling_prediction predict_cpu_scaling(const cpu_scaling_laws& laws, std::int64_t cpus, double n, wider_limit& limit);

}  // namespace pollscale::model
