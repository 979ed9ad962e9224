// --capacity-efficiency FILE|none, shared by the commands that predict wider machines than
// were measured (scale --from-cpus reads it; fit copies it into model.json for predict
// --cpus): what each CPU beyond the narrowest series delivers on the corpus's machines
// (model/capacity_efficiency.hpp). The default is the corpus's file in the source tree this
// pollscale was built from; one that is not there (an installed pollscale without its tree)
// is said on stderr, and the bound is left as operational analysis states it.
#pragma once

#include <optional>
#include <string_view>

#include <boost/program_options.hpp>

#include "model/capacity_efficiency.hpp"

namespace pollscale::app {

/// The option, for `command`'s options_description (its help names what the command does with it).
void add_capacity_efficiency_option(boost::program_options::options_description& o, const char* what_it_does);

/// The estimate asked for, for the point statistic the command reads its rows as ("median",
/// "fastest", "adjusted"), read before anything is fitted so that a bad file is the one line
/// said: none for "none" or a default file that is not there (said on stderr, prefixed
/// "pollscale COMMAND: "); throws usage_error for an empty value and datasets::input_error
/// for a file that is unreadable or not a capacity-efficiency file.
std::optional<model::capacity_efficiency> capacity_efficiency_wanted(const boost::program_options::variables_map& vm,
                                                                     std::string_view command,
                                                                     const std::string& statistic);

/// "capacity bound as the corpus's machines deliver it: ×0.963 a doubling of the CPUs, log sd
/// 0.040 (109 rows of 5 hosts, 2026-12-08, FILE; ...)" — the line `scale`, `fit` and `predict`
/// print on stderr.
std::string capacity_efficiency_text(const model::capacity_efficiency& e);

}  // namespace pollscale::app
