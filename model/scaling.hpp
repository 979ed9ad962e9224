// The CPU-scaling protocol of `pollscale scale`: the rows of scaling scenarios (producers:
// throughput against the number of threads) grouped into tables, each table's scalability
// law (scaling_law.hpp) fitted on its training rows, and asked about its other rows —
// errors and interval coverage, as `validate` reports them for the cost forms — and about
// thread counts nobody measured.
//
// A table is every row sharing the key columns other than those that follow the thread
// count (threads, n_fds — one eventfd per producer —, max_fd, n_active, pinning), and the
// same platform, kernel and source. The default training rows are each table's smaller
// half of thread counts (⌈k/2⌉ of k): the published tables run from 8 threads up, and a
// user sizing a machine measures the small end and asks about the large one.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/observations.hpp"
#include "model/scaling_law.hpp"
#include "model/validation.hpp"

namespace pollscale::model {

struct scaling_protocol {
  /// A --train expression (row_filter.hpp; max/min per table), or empty for each table's
  /// smaller half of thread counts.
  std::string train;
  std::vector<double> at;  ///< thread counts to predict for every table, >= 1
  scaling_options law;
};

struct scaling_table {
  datasets::key k;  ///< the table's key: threads and the columns that follow it cleared
  std::string platform, kernel, source;
  std::size_t n_train = 0;
  std::optional<scaling_fit> fit;                         ///< empty when the training rows cannot fit a law
  std::string not_fitted;                                 ///< why, when fit is empty
  std::vector<validation_row> rows;                       ///< the held-out rows, predicted
  std::vector<std::pair<double, scaling_prediction>> at;  ///< the protocol's `at`, predicted
  accuracy acc;                                           ///< of `rows`
};

struct scaling_result {
  std::vector<scaling_table> tables;
  accuracy overall;  ///< over every held-out row of every fitted table
  std::size_t n_train = 0;
};

/// Runs the protocol over `data`'s scaling rows. Throws datasets::input_error when `data`
/// has none, std::invalid_argument for a bad --train expression or `at` value.
scaling_result validate_scaling(const observation_set& data, const scaling_protocol& protocol);

/// The thread-count axis of a scaling row: its `threads` column (rows without one are not
/// part of any table).
std::optional<double> scaling_axis(const observation& o);

}  // namespace pollscale::model
