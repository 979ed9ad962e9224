#include "app/scaling_json.hpp"

#include <cmath>

#include "app/table_writer.hpp"
#include "model/scaling.hpp"

namespace pollscale::app {

using nlohmann::json;

std::string with_se(double v, double var) {
  return format_number(v) + (std::isfinite(var) && var > 0 ? " ± " + format_number(std::sqrt(var), 2) : "");
}

bool free_coefficient(const model::scaling_fit& f, int c) {
  return c == 0 || (c == 1 && f.law != model::scaling_law::linear) || (c == 2 && f.law == model::scaling_law::usl);
}

json fit_json(const model::scaling_fit& f) {
  json rivals = json::array();
  for (const auto& r : f.rivals)
    rivals.push_back({{"law", model::name(r.law)}, {"loo", json_number(r.loo)}, {"why", r.why}});
  auto se = [&](int i) { return free_coefficient(f, i) ? json_number(std::sqrt(f.covariance(i, i))) : json(nullptr); };
  return {{"law", model::name(f.law)},
          {"formula", f.formula()},
          {"gamma", f.gamma},
          {"gamma_se", se(0)},
          {"sigma", f.sigma},
          {"sigma_se", se(1)},
          {"kappa", f.kappa},
          {"kappa_se", se(2)},
          {"df", f.df},
          {"residual_sd", json_number(f.residual_sd)},
          {"peak_n", json_number(f.peak_n())},
          {"loo", json_number(f.loo)},
          {"n_min", f.n_min},
          {"n_max", f.n_max},
          {"rivals", rivals}};
}

json prediction_json(double n, const model::scaling_prediction& p) {
  json j = {{"n", n},
            {"predicted", p.value},
            {"lo", json_number(p.lo)},
            {"hi", json_number(p.hi)},
            {"extrapolation", p.extrapolation}};
  if (!p.has_interval) j["no_interval"] = p.no_interval;
  return j;
}

json held_out_json(const model::validation_row& v, const char* limited_by) {
  json j = prediction_json(*model::scaling_axis(*v.o),
                           {v.predicted, v.lo, v.hi, v.has_interval, v.no_interval, v.extrapolation});
  j["measured"] = v.measured;
  j["rel_err"] = json_number(v.rel_err);
  j["limited_by"] = limited_by;
  return j;
}

}  // namespace pollscale::app
