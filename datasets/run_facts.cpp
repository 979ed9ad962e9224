#include "datasets/run_facts.hpp"

#include "datasets/json_fields.hpp"

namespace pollscale::datasets {
namespace {

using json = nlohmann::json;

std::optional<stability_facts> read_stability(const json& j) {
  if (!j.is_object()) return std::nullopt;
  stability_facts s;
  s.sentinel = text_at(j, "sentinel");
  s.readings = count_at(j, "readings").value_or(0);
  s.median_ns = number_at(j, "median_ns");
  s.p10_ns = number_at(j, "p10_ns");
  s.p90_ns = number_at(j, "p90_ns");
  s.spread_p90_p10 = number_at(j, "spread_p90_p10");
  s.max_over_median = number_at(j, "max_over_median");
  s.slow_share = number_at(j, "slow_share");
  s.worst_episode = text_at(j, "worst_episode");
  s.worst_episode_s = number_at(j, "worst_episode_s").value_or(0);
  if (member(j, "stable").is_boolean()) s.stable = member(j, "stable").get<bool>();
  return s;
}

std::optional<placement_facts> read_placement(const json& j) {
  if (!j.is_object()) return std::nullopt;
  placement_facts p;
  p.sentinel = text_at(j, "sentinel");
  p.readings = count_at(j, "readings").value_or(0);
  p.median_ns = number_at(j, "median_ns");
  if (member(j, "moved").is_boolean()) p.moved = member(j, "moved").get<bool>();
  p.near_ns = number_at(j, "near_ns");
  p.far_ns = number_at(j, "far_ns");
  p.near_share = number_at(j, "near_share");
  p.moves = count_at(j, "moves").value_or(0);
  return p;
}

std::vector<std::string> texts_at(const json& context, const char* key) {
  std::vector<std::string> out;
  if (!member(context, key).is_array()) return out;
  for (const auto& v : member(context, key))
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

json to_json(const stability_facts& s) {
  json j{{"sentinel", s.sentinel}, {"readings", s.readings}};
  const std::pair<const char*, const std::optional<double>*> numbers[] = {{"median_ns", &s.median_ns},
                                                                          {"p10_ns", &s.p10_ns},
                                                                          {"p90_ns", &s.p90_ns},
                                                                          {"spread_p90_p10", &s.spread_p90_p10},
                                                                          {"max_over_median", &s.max_over_median},
                                                                          {"slow_share", &s.slow_share}};
  for (const auto& [key, value] : numbers)
    if (*value) j[key] = **value;
  if (s.median_ns) {  // an episode is a verdict on readings; without any there is none
    j["worst_episode"] = s.worst_episode;
    j["worst_episode_s"] = s.worst_episode_s;
  }
  if (s.stable) j["stable"] = *s.stable;
  return j;
}

json to_json(const placement_facts& p) {
  json j{{"sentinel", p.sentinel}, {"readings", p.readings}, {"moved", p.moved}, {"moves", p.moves}};
  const std::pair<const char*, const std::optional<double>*> numbers[] = {
      {"median_ns", &p.median_ns}, {"near_ns", &p.near_ns}, {"far_ns", &p.far_ns}, {"near_share", &p.near_share}};
  for (const auto& [key, value] : numbers)
    if (*value) j[key] = **value;
  return j;
}

void write_placement(json& context, const placement_facts& p) { context["stability"]["placement"] = to_json(p); }

void write_stability(json& context, const stability_facts& drift, const std::optional<stability_facts>& cross_cpu) {
  json st = to_json(drift);
  if (cross_cpu) st["cross_cpu"] = to_json(*cross_cpu);
  context["stability"] = std::move(st);
}

run_facts read_run_facts(const json& context) {
  run_facts f;
  const json& st = member(context, "stability");
  f.drift = read_stability(st);
  f.cross_cpu = read_stability(member(st, "cross_cpu"));
  f.placement = read_placement(member(st, "placement"));
  if (const json& refs = member(context, "reference"); refs.is_object())
    for (const auto& [name, r] : refs.items()) {
      if (!r.is_object()) continue;
      reference_facts ref{name, number_at(r, "median_ratio"), text_at(r, "point"), text_at(r, "missing")};
      if (!ref.median_ratio && ref.missing.empty()) ref.missing = "no readings";
      f.references.push_back(std::move(ref));
    }
  f.warnings = texts_at(context, "warnings");
  f.failures = texts_at(context, "failures");
  if (const json& skipped = member(context, "skipped"); skipped.is_array())
    for (const auto& s : skipped)
      if (s.is_object()) f.skipped.emplace_back(text_at(s, "point"), text_at(s, "reason"));
  return f;
}

}  // namespace pollscale::datasets
