#include "model/producer_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "datasets/schema.hpp"
#include "datasets/vocabulary.hpp"
#include "model/forms.hpp"
#include "model/linear_fit.hpp"

namespace pollscale::model {

double pipeline_fit::rate() const { return std::min(1.0 / (write_s + line_s), 1.0 / (consumer_s + line_s)); }

std::optional<pipeline_fit> fit_pipeline(const std::vector<std::pair<double, double>>& t_rate, double line_s,
                                         std::string& note) {
  std::set<double> ts;
  for (const auto& [t, x] : t_rate) {
    if (!(t >= 1) || !std::isfinite(x) || !(x > 0)) {
      note = "a one-CPU row with T = " + std::to_string(t) + " and rate " + std::to_string(x);
      return std::nullopt;
    }
    ts.insert(t);
  }
  if (ts.size() < 2) {
    note = "fewer than two producer counts on one CPU to split a write from the consumer's share";
    return std::nullopt;
  }
  if (!std::isfinite(line_s) || !(line_s >= 0)) {
    note = "the cache line's round trip is not a time";
    return std::nullopt;
  }
  linear_problem ls;  // 1/X = w + a/T, least squares
  ls.x.resize(static_cast<Eigen::Index>(t_rate.size()), 2);
  ls.y.resize(static_cast<Eigen::Index>(t_rate.size()));
  for (Eigen::Index i = 0; i < ls.y.size(); ++i) {
    const auto& [t, x] = t_rate[static_cast<std::size_t>(i)];
    ls.x(i, 0) = 1;
    ls.x(i, 1) = 1.0 / t;
    ls.y(i) = 1.0 / x;
  }
  const linear_solution fit = solve_linear(ls);
  pipeline_fit f;
  f.write_s = fit.beta(0);
  f.consumer_s = fit.beta(1);
  f.line_s = line_s;
  if (!(f.write_s > 0) || !(f.consumer_s > 0)) {
    note = "the one-CPU series does not split into a write and a consumer's share that falls with T";
    return std::nullopt;
  }
  return f;
}

std::optional<double> cache_line_round_trip_s(const observation_set& data) {
  for (const auto& o : data.rows) {
    if (o.k.scenario != datasets::scenario::cache_line || o.k.pinning != "0+1") continue;
    if (is_rate(o.k) || !std::isfinite(o.value) || !(o.value > 0)) continue;
    try {
      return o.value * datasets::to_si_factor(o.k.unit);  // a time unit: to seconds
    } catch (const std::invalid_argument&) {
      // a count or bytes: not a round trip
    }
  }
  return std::nullopt;
}

}  // namespace pollscale::model
