// The output of `pollscale scale --from-cpus C0`: the CPU-scaling series of machines wider
// than the C0 CPUs measured, predicted from the narrow series (model/scaling_wider.hpp):
// per family the two laws it learned, then every predicted row with what gave it, then the
// accuracy per width and overall. Errors are fractions in csv/json, percentages in the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"
#include "model/scaling_wider.hpp"

namespace pollscale::app {

/// The JSON body (without kind and schema_version) of one source's result.
/// Series widths as "1,2,4" ("-" when none).
std::string widths_text(const std::vector<std::int64_t>& cs);

/// What gave a prediction, for reading: "dedicated law", "serial stage", or "capacity: C/c0 x
/// the c0-CPU series" (c0 the narrowest series, set whenever the capacity bound can win),
/// followed by "; an upper bound" where it is only a ceiling (model::upper_bound_only). For the
/// one-in-flight chain, `chain` (the family's, or null) at N says whether its hand-offs were
/// priced crossing CPUs (model::chain_fit::hand_offs_seen) and `experiment` whether its
/// waiters may spin.
std::string wider_limit_text(std::optional<std::int64_t> capacity_cpus, std::int64_t c, model::wider_limit limit,
                             bool upper_bound, const datasets::key& experiment, const model::chain_fit* chain,
                             double n);

nlohmann::json wider_json(const model::wider_result& r, const std::string& source);

/// Writes one source's result to stdout in `format` (json: a stamped scaling_wider document).
void write_wider(const model::wider_result& r, const std::string& source, output_format format);

}  // namespace pollscale::app
