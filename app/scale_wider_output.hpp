// The output of `pollscale scale --from-cpus C0`: the CPU-scaling series of machines wider
// than the C0 CPUs measured, predicted from the narrow series (model/scaling_wider.hpp):
// per family the two laws it learned, then every predicted row with what gave it, then the
// accuracy per width and overall. Errors are fractions in csv/json, percentages in the table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "model/scaling_wider.hpp"

namespace pollscale::app {

/// The JSON body (without kind and schema_version) of one source's result.
nlohmann::json wider_json(const model::wider_result& r, const std::string& source);

/// Writes one source's result to stdout in `format` (json: a stamped scaling_wider document).
void write_wider(const model::wider_result& r, const std::string& source, output_format format);

}  // namespace pollscale::app
