// Options shared by the commands that fit models (fit, validate): the model family, the
// robust fit, the bootstrap and its seed, and what to do with unfittable cells.
#pragma once

#include <boost/program_options.hpp>

#include "model/cell_fit.hpp"

namespace pollscale::app {

boost::program_options::options_description model_fit_options_description();

/// Reads those options; throws usage_error naming the flag for a bad value.
model::fit_options fit_options_from(const boost::program_options::variables_map& vm);

}  // namespace pollscale::app
