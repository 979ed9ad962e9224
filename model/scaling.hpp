// The CPU-scaling protocol of `pollscale scale`: the rows of scaling scenarios (producers:
// throughput against the number of threads) grouped into tables, each table's scalability
// law (scaling_law.hpp) fitted on its training rows, and asked about its other rows —
// errors and interval coverage, as `validate` reports them for the cost forms — and about
// thread counts nobody measured.
//
// N, the law's axis, is the scenario's load: for producers the producer threads, which is
// the n_fds column (one eventfd each; `threads` counts the consumer too). A table is every
// row sharing the key columns other than those that follow N (threads, n_fds, max_fd,
// n_active, pinning), and the same platform, kernel and source. The default training rows
// are each table's smaller half of its N (⌈k/2⌉ of k): the published tables run from 8
// producers up, and a user sizing a machine measures the small end and asks about the
// large one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/observations.hpp"
#include "model/scaling_law.hpp"
#include "model/validation.hpp"

namespace pollscale::model {

struct scaling_protocol {
  /// A --train expression (row_filter.hpp; max/min per table; N is in the column that
  /// scaling_axis_column names), or empty for each table's smaller half of its N.
  std::string train;
  std::vector<double> at;  ///< N to predict for every table, >= 1
  scaling_options law;
};

/// What gave a prediction its value: the table's own law, the capacity of its sibling on
/// fewer CPUs, or the threads beyond its CPUs (oversubscribed).
enum class scaling_limit : std::uint8_t { law, cpu_capacity, oversubscribed };

/// "law", "cpu_capacity", "oversubscribed" (JSON's limited_by).
const char* name(scaling_limit l);

struct scaling_table {
  datasets::key k;  ///< the table's key: N and the columns that follow it cleared
  std::string platform, kernel, source;
  std::size_t n_train = 0;
  std::vector<const observation*> train;                  ///< the rows the law was fitted on
  std::optional<scaling_fit> fit;                         ///< empty when the training rows cannot fit a law
  std::string not_fitted;                                 ///< why, when fit is empty
  std::vector<validation_row> rows;                       ///< the held-out rows, predicted
  std::vector<std::pair<double, scaling_prediction>> at;  ///< the protocol's `at`, predicted
  /// The CPU-capacity bound: the table of the same key measured on fewer CPUs (c0), whose
  /// law times C/c0 caps this one's, and past C threads the oversubscription bound (see
  /// validate_scaling); empty when there is none.
  std::optional<std::int64_t> bound_cpus;
  std::vector<scaling_limit> row_limit;  ///< per row of `rows`: what gave its prediction
  std::vector<scaling_limit> at_limit;   ///< the same per entry of `at`
  accuracy acc;                          ///< of `rows`
};

struct scaling_result {
  std::vector<scaling_table> tables;
  accuracy overall;  ///< over every held-out row of every fitted table
  std::size_t n_train = 0;
};

/// Runs the protocol over `data`'s scaling rows. A table measured on C CPUs whose key
/// matches a fitted table on fewer CPUs c0 is also capped by it: C CPUs do at most C/c0
/// times the work of c0 at the same N (the asymptotic bound of operational analysis; on
/// c0 = 1 every thread shares one busy CPU, so 1/X is the CPU time one event takes), so its
/// prediction is min(its own law, C/c0 × the smaller table's law), with the interval of
/// each end taken the same way; past N = C threads also by `oversubscribed`. The law of a
/// few small N cannot see that N + 1 threads outnumber C CPUs; the bounds can. Throws
/// datasets::input_error when `data` has no scaling rows, std::invalid_argument for a bad
/// --train expression or `at` value.
scaling_result validate_scaling(const observation_set& data, const scaling_protocol& protocol);

/// min(law, bound): the value, and each end of the 95% interval, from whichever is lower
/// (where either has no interval, the winner's interval or its absence); the extrapolation
/// is the law's.
/// bound_wins says whether the bound gave the value.
scaling_prediction capped(const scaling_prediction& law, const scaling_prediction& bound, bool& bound_wins);

/// Threads beyond the CPUs: N > C threads on C CPUs add no CPU; each CPU time-shares N/C of
/// them, and sharing a CPU gains at most what the narrower table's c0 CPUs gain from the
/// same threads per CPU (fewer wake-ups, bigger batches; docs/scaling.md). So a table of C
/// CPUs passes at most its own law at N = C times max(1, law_c0(c0·N/C) / law_c0(c0)), the
/// interval of the law at C scaled the same way. A loss from sharing (a falling narrower
/// law) is the laws' to say, not the bound's: the gain is never below 1. Precondition:
/// n > cpus >= 1, c0 >= 1.
scaling_prediction oversubscribed(const scaling_fit& own, std::int64_t cpus, const scaling_fit& narrower,
                                  std::int64_t c0, double n);

/// The capacity bound of C CPUs from a prediction on c0: value and both ends times C/c0.
scaling_prediction scaled(scaling_prediction p, double factor);

/// A held-out row of `o` predicted as `p`, for accuracy_of.
validation_row scaling_row(const scaling_prediction& p, const observation& o);

/// The key of the table a scaling row belongs to: its key with N and the columns that
/// follow it cleared (threads, n_fds, max_fd, pinning, and n_active where it equals N); the
/// CPUs stay.
datasets::key scaling_table_key(const observation& o);

/// N of a scaling row (the producers: its n_fds); empty when the row has none or is not a
/// rate (shared_epoll's wake-ups per pass): it then belongs to no table.
std::optional<double> scaling_axis(const observation& o);

/// A scaling row as a point of its law: N, its value, and its visits' count and relative
/// standard error (datasets::visit_median_log_se). Precondition: scaling_axis(o).
scaling_point scaling_point_of(const observation& o);

/// The key column that holds N for rows of `k`'s scenario ("n_fds"), for --train.
std::string_view scaling_axis_column(const datasets::key& k);

/// What N counts for `k`'s scenario, in words ("producer threads (n_fds: one eventfd each)").
std::string_view scaling_axis_meaning(const datasets::key& k);

/// What N counts for every scenario among `keys`, each named when there are several
/// ("producers: producer threads (...); private_sets: threads (...)").
std::string scaling_axis_legend(const std::vector<datasets::key>& keys);

/// The scenarios measured against threads, comma-separated (for messages).
std::string scaling_scenario_names();

}  // namespace pollscale::model
