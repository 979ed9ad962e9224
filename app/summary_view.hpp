// Renders a dataset's summary rows for the terminal (table), for scripts (csv) and for
// programs (json): the key columns that vary, the median with its 95% interval, n.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app {

/// One column's value as JSON: a count column (n_fds, n_active, max_fd, blocking, threads,
/// cpus, n_rank) as an integer, any other as text, an empty value as null.
nlohmann::json column_json(std::string_view column, const std::string& text);

/// A point's key as JSON: every key column by name, typed as column_json() types it.
nlohmann::json key_json(const datasets::key& k);

/// The summary rows as a table, as summary.csv writes them (the dataset's column names, full
/// precision, the consistency marks), or as a calibration_summary JSON document.
void print_summaries(std::ostream& out, const std::vector<datasets::summary_row>& rows,
                     const std::vector<std::string>& marks, output_format f);

}  // namespace pollscale::app
