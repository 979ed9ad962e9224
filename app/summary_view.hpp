// Renders a dataset's summary rows for the terminal (table), for scripts (csv) and for
// programs (json): the key columns that vary, the median with its 95% interval, n.
#pragma once

#include <ostream>
#include <vector>

#include "app/cli.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app {

void print_summaries(std::ostream& out, const std::vector<datasets::summary_row>& rows, output_format f);

}  // namespace pollscale::app
