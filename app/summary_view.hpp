// Renders a dataset's summary rows for the terminal (table), for scripts (csv) and for
// programs (json): the key columns that vary, the median with its 95% interval, n.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app {

/// A point's key as JSON: every key column by name, counts (n_fds, n_active, max_fd,
/// blocking, threads, cpus) as integers, an absent value as null.
nlohmann::json key_json(const datasets::key& k);

void print_summaries(std::ostream& out, const std::vector<datasets::summary_row>& rows, output_format f);

}  // namespace pollscale::app
