#include "calibrate/time_ledger.hpp"

namespace pollscale::calibrate {
namespace {

const char* field_of(overhead o) {
  switch (o) {
    case overhead::sentinels: return "sentinels_s";
    case overhead::release: return "release_s";
    case overhead::writes: return "writes_s";
    case overhead::references: return "references_s";
  }
  return "other_s";
}

}  // namespace

void time_ledger::add_visit(std::string_view scenario, const point_result& r) {
  auto& p = probes_[std::string(scenario)];
  ++p.visits;
  p.setup_s += r.setup_s;
  p.prepare_s += r.prepare_s;
  p.measure_s += r.measure_s;
}

void time_ledger::add(overhead what, double seconds) { overheads_[what] += seconds; }

nlohmann::json time_ledger::to_json(double wall_s) const {
  nlohmann::json probes = nlohmann::json::object();
  double accounted = 0;
  for (const auto& [name, p] : probes_) {
    probes[name] = {
        {"visits", p.visits}, {"setup_s", p.setup_s}, {"prepare_s", p.prepare_s}, {"measure_s", p.measure_s}};
    accounted += p.setup_s + p.prepare_s + p.measure_s;
  }
  nlohmann::json out = {{"probes", probes}};
  for (auto o : {overhead::sentinels, overhead::release, overhead::writes, overhead::references}) {
    const auto it = overheads_.find(o);
    const double s = it == overheads_.end() ? 0.0 : it->second;
    out[field_of(o)] = s;
    accounted += s;
  }
  out["unaccounted_s"] = wall_s - accounted;
  return out;
}

}  // namespace pollscale::calibrate
