#include "model/stage_hold.hpp"

#include <algorithm>
#include <cmath>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {

std::vector<stage_hold> stage_holds_of(const std::vector<cpu_scaling_laws>& laws) {
  std::vector<stage_hold> out;
  for (const auto& l : laws) {
    if (!l.serial || !l.experiment.unit.starts_with("1/")) continue;
    const double seconds = 1 / datasets::to_si_factor(l.experiment.unit);  // a rate's unit: its time per operation
    const serial_stage_fit& s = *l.serial;
    stage_hold h;
    h.experiment = l.experiment;
    h.structure = l.serial_structure;
    h.hold_s = s.hold * seconds;
    h.hold_sd_s = s.hold_sd * seconds;
    h.residual_sd = s.residual_sd;
    h.df = s.df;
    h.points = s.points;
    h.cpus = s.cpus;
    h.max_threads = s.t_max;
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<stage_hold> fit_stage_holds(const observation_set& data) { return stage_holds_of(fit_cpu_scaling(data)); }

const stage_hold* shared_instance_hold(const std::vector<stage_hold>& holds, const std::string& mechanism,
                                       const std::string& variant) {
  const std::string want = variant.empty() ? datasets::text(datasets::variant::lt) : variant;
  const stage_hold* best = nullptr;
  for (const auto& h : holds) {
    const auto& k = h.experiment;
    if (k.scenario != datasets::scenario::shared_epoll || k.mechanism != mechanism || k.variant != want) continue;
    if (!best || (best->experiment.n_active && !k.n_active)) best = &h;  // a token for every thread first
  }
  return best;
}

}  // namespace pollscale::model
