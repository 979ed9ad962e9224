#include "app/study/predictions.hpp"

#include <cmath>

#include "app/study/crossover.hpp"
#include "app/summary_view.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"

namespace pollscale::app::study {

nlohmann::json predict_beyond(const model::model_set& models, const std::string& fd_kind,
                              const std::vector<std::int64_t>& ns) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : models.cells) {
    const auto& c = m.cell;
    if (c.scenario != datasets::scenario::find_active || c.fd_kind != fd_kind || c.blocking.value_or(0) != 0 ||
        !m.platform.empty())
      continue;
    for (auto n : ns) {
      const datasets::key q = one_ready_at(c, n);
      std::string why;
      const auto p = model::try_predict(models, q, &why);
      if (!p) {
        out.push_back({{"query", datasets::describe(q)}, {"key", key_json(q)}, {"skipped", why}});
        continue;
      }
      out.push_back({{"query", datasets::describe(q)},
                     {"key", key_json(q)},
                     {"value", p->value},
                     {"lo", p->has_interval ? nlohmann::json(p->lo) : nlohmann::json(nullptr)},
                     {"hi", p->has_interval ? nlohmann::json(p->hi) : nlohmann::json(nullptr)},
                     {"unit", p->unit},
                     {"extrapolation", p->extrapolation_factor},
                     {"formula", p->formula}});
    }
  }
  return out;
}

}  // namespace pollscale::app::study
