#include "app/accuracy_output.hpp"

#include <cmath>

#include "app/table_writer.hpp"

namespace pollscale::app {

nlohmann::json accuracy_json(const model::accuracy& a) {
  using json = nlohmann::json;
  // With nothing predicted every figure is undefined, not 0% (a perfect score).
  auto figure = [&](double v) { return a.n == 0 ? json(nullptr) : json_number(v); };
  auto wide = [&](double v) { return a.n_with_interval > 0 && std::isinf(v) ? json("inf") : figure(v); };
  return {{"n", a.n},
          {"mape", figure(a.mape)},
          {"median_rel_err", figure(a.median_rel_err)},
          {"max_rel_err", figure(a.max_rel_err)},
          {"coverage", a.n_with_interval == 0 ? json(nullptr) : figure(a.coverage)},
          {"n_with_interval", a.n_with_interval},
          {"median_rel_halfwidth", a.n_with_interval == 0 ? json(nullptr) : wide(a.median_rel_halfwidth)},
          {"median_interval_score", a.n_with_interval == 0 ? json(nullptr) : wide(a.median_interval_score)}};
}

}  // namespace pollscale::app
