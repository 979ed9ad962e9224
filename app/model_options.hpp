// Options shared by the commands that fit models (fit, validate): the model family, the
// robust fit, the bootstrap and its seed, and what to do with unfittable cells (left out and
// counted by default; --strict fails on the first).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "model/cell_fit.hpp"

namespace pollscale::app {

boost::program_options::options_description model_fit_options_description();

/// Spellings still accepted but no longer listed by --help (--skip-unfittable).
boost::program_options::options_description model_fit_older_options();

/// One line on stderr for the cells (or held-out rows) left out of a fit, instead of one
/// line each: how many, the first, and where the full list is.
void report_left_out(std::string_view command, const std::vector<std::string>& left_out);

/// Reads those options; throws usage_error naming the flag for a bad value.
model::fit_options fit_options_from(const boost::program_options::variables_map& vm);

}  // namespace pollscale::app
