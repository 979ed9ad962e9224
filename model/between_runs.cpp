#include "model/between_runs.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "datasets/input_error.hpp"
#include "datasets/json_fields.hpp"
#include "datasets/json_file.hpp"

namespace pollscale::model {
namespace {

// ρ above this is refused: exp(5) ≈ 148x between runs (the discrepancy's bound too).
constexpr double max_log_sd = 5;

}  // namespace

nlohmann::json to_json(const between_runs_spread& b) {
  return {{"log_sd", b.log_sd},   {"rows", b.rows},           {"pairs", b.pairs},  {"hosts", b.hosts},
          {"horizon", b.horizon}, {"estimated", b.estimated}, {"source", b.source}};
}

between_runs_spread between_runs_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("not an object");
  between_runs_spread out;
  const auto sd = datasets::number_at(j, "log_sd");
  if (!sd || !std::isfinite(*sd) || *sd < 0 || *sd > max_log_sd)
    throw std::invalid_argument("log_sd " + datasets::member(j, "log_sd").dump() + " is not a number in [0, 5]");
  out.log_sd = *sd;
  out.rows = datasets::positive_count_at(j, "rows");
  out.pairs = datasets::positive_count_at(j, "pairs");
  out.hosts = datasets::positive_count_at(j, "hosts");
  out.horizon = datasets::text_at(j, "horizon");
  out.estimated = datasets::text_at(j, "estimated");
  out.source = datasets::text_at(j, "source");
  return out;
}

between_runs_spread read_between_runs(const std::filesystem::path& file, const std::string& horizon) {
  if (std::ranges::find(between_runs_horizons, horizon) == std::end(between_runs_horizons))
    throw std::invalid_argument("'" + horizon + "' is neither minutes nor hours");
  const nlohmann::json j = datasets::read_json_file(file);
  const std::string where = file.string();
  if (datasets::text_at(j, "kind") != between_runs_kind)
    throw datasets::input_error(where + ": not a between-runs file (kind " + datasets::member(j, "kind").dump() +
                                "; scripts/corpus_between_runs.py writes one)");
  if (datasets::member(j, "schema_version") != between_runs_schema_version)
    throw datasets::input_error(where + ": schema_version " + datasets::member(j, "schema_version").dump() +
                                " is not supported (this build reads " + std::to_string(between_runs_schema_version) +
                                ")");
  const nlohmann::json& block = datasets::member(datasets::member(j, "horizons"), horizon.c_str());
  if (block.is_null())
    throw datasets::input_error(where + ": no '" + horizon + "' horizon (the corpus has no two runs of one host " +
                                (horizon == "minutes" ? "less than an hour apart)" : "an hour or more apart)"));
  try {
    between_runs_spread out = between_runs_from_json(block);
    out.horizon = horizon;
    out.estimated = datasets::text_at(j, "estimated");
    out.source = where;
    return out;
  } catch (const std::invalid_argument& e) {
    throw datasets::input_error(where + ": horizons." + horizon + ": " + e.what());
  }
}

}  // namespace pollscale::model
