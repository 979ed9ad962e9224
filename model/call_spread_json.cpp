#include "model/call_spread_json.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {

std::string call_spread_field() { return datasets::text(datasets::scenario::call_spread); }

namespace {

using nlohmann::json;

json shapes_json(const std::vector<datasets::spread_shape>& shapes) {
  json out = json::array();
  for (const auto& s : shapes)
    out.push_back({{"point", s.point},
                   {"mean_ns", s.mean_ns},
                   {"ratios", s.ratios},
                   {"samples", s.samples},
                   {"visits", s.visits}});
  return out;
}

double spread_number(const json& j, const std::string& where) {
  if (!j.is_number() || !std::isfinite(j.get<double>())) throw std::invalid_argument(where + " is not a finite number");
  return j.get<double>();
}

std::size_t spread_count(const json& j, const std::string& where) {
  const double v = spread_number(j, where);
  if (v < 0 || v != std::floor(v) || v > 9007199254740992.0)
    throw std::invalid_argument(where + " " + j.dump() + " is not a count");
  return static_cast<std::size_t>(v);
}

datasets::spread_shape read_shape(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + " is not an object");
  for (const char* field : {"point", "mean_ns", "ratios", "samples", "visits"})
    if (!j.contains(field)) throw std::invalid_argument(where + ": missing '" + field + "'");
  datasets::spread_shape s;
  if (!j["point"].is_string()) throw std::invalid_argument(where + ".point is not text");
  s.point = j["point"].get<std::string>();
  s.mean_ns = spread_number(j["mean_ns"], where + ".mean_ns");
  const json& r = j["ratios"];
  if (!r.is_array() || r.size() != s.ratios.size())
    throw std::invalid_argument(where + ".ratios must hold " + std::to_string(s.ratios.size()) + " numbers");
  for (std::size_t i = 0; i < s.ratios.size(); ++i)
    s.ratios[i] = spread_number(r[i], where + ".ratios[" + std::to_string(i) + "]");
  s.samples = spread_count(j["samples"], where + ".samples");
  s.visits = spread_count(j["visits"], where + ".visits");
  if (const std::string why = datasets::shape_problem(s); !why.empty()) throw std::invalid_argument(where + ": " + why);
  return s;
}

std::vector<datasets::spread_shape> read_shapes(const json& block, const char* field) {
  const std::string where = std::string("call_spread.") + field;
  if (!block.contains(field)) throw std::invalid_argument(where + " is missing");
  if (!block[field].is_array()) throw std::invalid_argument(where + " is not an array");
  std::vector<datasets::spread_shape> out;
  for (std::size_t i = 0; i < block[field].size(); ++i)
    out.push_back(read_shape(block[field][i], where + "[" + std::to_string(i) + "]"));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.mean_ns < b.mean_ns; });
  return out;
}

}  // namespace

json call_spread_json(const std::optional<datasets::call_spread>& spread) {
  if (!spread) return nullptr;
  return {{"probabilities", datasets::spread_probabilities},
          {"wait_calls", shapes_json(spread->wait_calls)},
          {"handlers", shapes_json(spread->handlers)},
          {"wakeups_same_cpu", shapes_json(spread->wakeups_same_cpu)},
          {"wakeups_cross_cpu", shapes_json(spread->wakeups_cross_cpu)}};
}

std::optional<datasets::call_spread> read_call_spread(const json& j) {
  const std::string field = call_spread_field();
  if (!j.contains(field) || j[field].is_null()) return std::nullopt;
  const json& b = j[field];
  if (!b.is_object()) throw std::invalid_argument("'call_spread' is not an object or null");
  const auto& p = datasets::spread_probabilities;
  if (!b.contains("probabilities") || b["probabilities"] != json(p))
    throw std::invalid_argument("call_spread.probabilities are not this build's (" + json(p).dump() + ")");
  datasets::call_spread out;
  out.wait_calls = read_shapes(b, "wait_calls");
  out.handlers = read_shapes(b, "handlers");
  out.wakeups_same_cpu = read_shapes(b, "wakeups_same_cpu");
  out.wakeups_cross_cpu = read_shapes(b, "wakeups_cross_cpu");
  return out;
}

}  // namespace pollscale::model
