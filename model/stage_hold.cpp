#include "model/stage_hold.hpp"

#include <algorithm>
#include <cmath>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"
#include "model/scaling_wider.hpp"

namespace pollscale::model {

std::vector<stage_hold> fit_stage_holds(const observation_set& data) {
  std::int64_t widest = 0;
  for (const auto& o : data.rows)
    if (is_scaling_row(o) && o.k.cpus) widest = std::max(widest, *o.k.cpus);
  if (widest < 2) return {};
  wider_protocol protocol;
  protocol.from_cpus = widest;  // every series trains; nothing wider is asked
  wider_result fitted;
  try {
    fitted = predict_wider(data, protocol);
  } catch (const datasets::input_error&) {
    return {};  // scaling rows, but none with its N, threads and CPUs
  }
  std::vector<stage_hold> out;
  for (const auto& f : fitted.families) {
    if (!f.serial_fit || !f.k.unit.starts_with("1/")) continue;
    const double seconds = 1 / datasets::to_si_factor(f.k.unit);  // a rate's unit: its time per operation
    const serial_stage_fit& s = *f.serial_fit;
    stage_hold h;
    h.experiment = f.k;
    h.structure = f.serial_structure;
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
