// Wider machines than were measured: the producers series of C CPUs predicted from the
// series a machine of C0 < C CPUs can measure (docs/scaling.md, "Wider machines than were
// measured"; the rule was fixed before the first 16-CPU run).
//
// Two things carry over from narrow series to wide ones:
//  - the dedicated law: a row whose threads each have a CPU of their own (cpus = threads,
//    the consumer and T producers on T + 1 CPUs) is the same experiment on every machine
//    at least T + 1 CPUs wide, so the scalability law (scaling_law.hpp, with its selection
//    rules) fitted on the dedicated rows of the narrow series says what T producers deliver
//    when nothing shares a CPU. Its σ is the contention they meet on the epoll instance.
//    On C0 = 2 the only dedicated row is T = 1: the law is then the straight line through
//    it, an upper bound that cannot see contention, and its predictions say so;
//  - the capacity bound: C CPUs do at most C/c0 times the work of the narrowest measured
//    series (c0, normally one CPU, where every thread shares a CPU that is never idle, so
//    1/X is the CPU time of one event) at the same T.
// The prediction for C CPUs at T producers is the lower of the two, each end of the 95%
// interval taken the same way (scaling.hpp's capped).
//
// Revised 2026-12-05 (docs/scaling.md, "The serial stage"): where every operation passes
// through one structure that one CPU holds at a time (serial_stage.hpp: producers' consumer,
// one shared epoll instance, one listening socket), the serial stage with its hold time
// fitted on the widest series of 2 <= c <= C0 CPUs takes the dedicated law's place, still
// capped by the capacity bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/cpu_scaling.hpp"
#include "model/observations.hpp"
#include "model/scaling_law.hpp"
#include "model/serial_stage.hpp"
#include "model/validation.hpp"

namespace pollscale::model {

struct wider_protocol {
  /// C0: the series of at most this many CPUs train (what a C0-CPU machine measures), >= 1.
  std::int64_t from_cpus = 2;
  /// Widths nobody measured to predict at `at`, each > from_cpus (e.g. 32, 64, 128).
  std::vector<std::int64_t> cpus;
  std::vector<double> at;  ///< N (producer threads) for those widths, >= 1
  scaling_options law;
  /// The serial stage joins the candidates where the experiment has one (false: the
  /// protocol as first fixed, for comparison).
  bool serial_stage = true;
  /// The corpus's capacity efficiency, given to every family's laws (cpu_scaling.hpp); empty:
  /// the capacity bound as operational analysis states it.
  std::optional<capacity_efficiency> efficiency;
};

/// One width C > C0 of a family: its measured series predicted, or (unmeasured) `at`.
struct wider_series {
  std::int64_t cpus = 0;
  bool measured = false;
  std::vector<validation_row> rows;                       ///< every measured row of the series, predicted
  std::vector<wider_limit> row_limit;                     ///< per row: the candidate that gave it
  std::vector<bool> row_upper_bound;                      ///< per row: only a ceiling (cpu_scaling.hpp)
  std::vector<std::pair<double, scaling_prediction>> at;  ///< unmeasured widths: the protocol's N
  std::vector<wider_limit> at_limit;
  accuracy acc;  ///< of `rows`
};

/// The series of one experiment (a key with its N, thread, pinning and CPU columns
/// cleared) on one platform, kernel and source.
struct wider_family {
  datasets::key k;
  std::string platform, kernel, source;
  std::vector<const observation*> dedicated;      ///< the dedicated rows of C <= C0 (the law's training rows)
  std::optional<scaling_fit> dedicated_fit;       ///< empty when there is no dedicated row
  std::string dedicated_note;                     ///< why the law has no interval or was not fitted, when so
  std::optional<std::int64_t> capacity_cpus;      ///< c0, the narrowest series <= C0, when there is one
  std::vector<const observation*> capacity_rows;  ///< its rows (the capacity law's training rows)
  std::optional<scaling_fit> capacity_fit;
  /// The structure every operation holds alone (serial_stage.hpp), "" when none.
  std::string serial_structure;
  std::vector<const observation*> serial_rows;  ///< the series its hold time was fitted on
  std::optional<serial_stage_fit> serial_fit;   ///< empty: no structure, or no series of 2..C0 CPUs
  std::string serial_note;                      ///< why there is no serial fit, when there is a structure
  /// producers: one producer beside its consumer as a pipeline, from the one-CPU series and
  /// the data's cache line (producer_pipeline.hpp); empty, with pipeline_note, otherwise.
  std::optional<pipeline_fit> pipeline;
  std::string pipeline_note;
  /// One operation in flight (one_in_flight.hpp): the chain of the one-CPU series, its
  /// hand-offs crossing CPUs on every wider machine (a ceiling where one CPU hid them); empty,
  /// with chain_note where the experiment has one in flight.
  std::optional<chain_fit> chain;
  std::string chain_note;
  /// A ring whose passes hand pipes and an epoll item between threads, measured on one CPU
  /// alone: the cache lines a pass moves across CPUs on a wider machine (line_crossings.hpp);
  /// empty, with crossings_note where the experiment has such lines, otherwise.
  std::optional<crossing_charge> crossings;
  std::string crossings_note;
  std::vector<std::int64_t> measured_cpus;  ///< every series width measured, narrow ones included
  /// What the reader must know before trusting the family's predictions ("" when nothing):
  /// a serial stage that no measured series could fit, with what the rules did without it.
  std::string caveat;
  std::vector<wider_series> series;  ///< widths > C0: measured ones, then the protocol's
  accuracy acc;                      ///< over the measured rows of series > C0, each observation counted once
};

struct wider_result {
  std::int64_t from_cpus = 0;
  std::optional<capacity_efficiency> efficiency;  ///< the protocol's, as every family's laws carried it
  std::vector<wider_family> families;
  accuracy overall;  ///< every family's `acc` rows together
};

/// Throws std::invalid_argument for a bad protocol (C0 < 1, a width <= C0, N < 1), before
/// any data is read.
void check_wider_protocol(const wider_protocol& protocol);

/// Runs the protocol over `data`'s scaling rows. Throws datasets::input_error when `data`
/// has no scaling rows with CPUs and threads, std::invalid_argument for a bad protocol (C0
/// < 1, a width <= C0, N < 1).
wider_result predict_wider(const observation_set& data, const wider_protocol& protocol);

}  // namespace pollscale::model
