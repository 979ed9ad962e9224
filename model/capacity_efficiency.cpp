#include "model/capacity_efficiency.hpp"

#include <cmath>
#include <stdexcept>

#include "datasets/input_error.hpp"
#include "datasets/json_fields.hpp"
#include "datasets/json_file.hpp"

namespace pollscale::model {
namespace {

constexpr double z95 = 1.959963984540054;  // the two-sided 95% point of the normal

// A number field in [lo, hi], or std::invalid_argument naming it.
double bounded(const nlohmann::json& j, const char* key, double lo, double hi) {
  const auto v = datasets::number_at(j, key);
  if (!v || !std::isfinite(*v) || *v < lo || *v > hi)
    throw std::invalid_argument(std::string(key) + " " + datasets::member(j, key).dump() + " is not a number in [" +
                                std::to_string(static_cast<int>(lo)) + ", " + std::to_string(static_cast<int>(hi)) +
                                "]");
  return *v;
}

// One end of an interval moved out by τ²·d in quadrature: `end` lies `end/value` from the
// bound's value; the same end of the delivered interval lies sqrt(s² + τ²·d) from `centre`
// on the log scale, s = |ln(end/value)| / z.
double widened(double end, double value, double centre, double extra_var, double side) {
  const double s = std::abs(std::log(end / value)) / z95;
  return centre * std::exp(side * z95 * std::sqrt(s * s + extra_var));
}

}  // namespace

nlohmann::json to_json(const capacity_efficiency& e) {
  return {{"log_mean", e.log_mean}, {"log_sd", e.log_sd},       {"rows", e.rows},           {"runs", e.runs},
          {"hosts", e.hosts},       {"statistic", e.statistic}, {"estimated", e.estimated}, {"source", e.source}};
}

capacity_efficiency capacity_efficiency_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("not an object");
  capacity_efficiency out;
  out.log_mean = bounded(j, "log_mean", -1, 1);
  out.log_sd = bounded(j, "log_sd", 0, 1);
  out.rows = datasets::positive_count_at(j, "rows");
  out.runs = datasets::positive_count_at(j, "runs");
  out.hosts = datasets::positive_count_at(j, "hosts");
  out.statistic = datasets::text_at(j, "statistic");
  out.estimated = datasets::text_at(j, "estimated");
  out.source = datasets::text_at(j, "source");
  return out;
}

capacity_efficiency read_capacity_efficiency(const std::filesystem::path& file, const std::string& statistic) {
  const nlohmann::json j = datasets::read_json_file(file);
  const std::string where = file.string();
  if (datasets::text_at(j, "kind") != capacity_efficiency_kind)
    throw datasets::input_error(where + ": not a capacity-efficiency file (kind " + datasets::member(j, "kind").dump() +
                                "; scripts/corpus_capacity.py writes one)");
  if (datasets::member(j, "schema_version") != capacity_efficiency_schema_version)
    throw datasets::input_error(where + ": schema_version " + datasets::member(j, "schema_version").dump() +
                                " is not supported (this build reads " +
                                std::to_string(capacity_efficiency_schema_version) + ")");
  const nlohmann::json& block = datasets::member(datasets::member(j, "per_statistic"), statistic.c_str());
  if (block.is_null())
    throw datasets::input_error(where + ": no estimate for the statistic '" + statistic +
                                "' (per_statistic; scripts/corpus_capacity.py writes one for each)");
  try {
    capacity_efficiency out = capacity_efficiency_from_json(block);
    out.statistic = statistic;
    out.estimated = datasets::text_at(j, "estimated");
    out.source = where;
    return out;
  } catch (const std::invalid_argument& e) {
    throw datasets::input_error(where + ": per_statistic." + statistic + ": " + e.what());
  }
}

scaling_prediction delivered(const capacity_efficiency& e, scaling_prediction bound, double ratio) {
  if (!(ratio >= 1))
    throw std::invalid_argument("a capacity bound's CPU ratio must be >= 1, got " + std::to_string(ratio));
  const double d = std::log2(ratio);
  if (d == 0) return bound;
  const double centre = bound.value * std::exp(e.log_mean * d);
  const double extra = e.log_sd * e.log_sd * d;
  if (bound.has_interval) {
    bound.lo = bound.lo > 0 && bound.value > 0 ? widened(bound.lo, bound.value, centre, extra, -1) : bound.lo;
    bound.hi =
        bound.value > 0 && std::isfinite(bound.hi) ? widened(bound.hi, bound.value, centre, extra, +1) : bound.hi;
  }
  bound.value = centre;
  return bound;
}

}  // namespace pollscale::model
