#include "model/producer_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {

double pipeline_fit::rate() const { return std::min(1.0 / (write_s + line_s), 1.0 / (consumer_s + line_s)); }

std::optional<pipeline_fit> fit_pipeline(const std::vector<std::pair<double, double>>& t_rate, double line_s,
                                         std::string& note) {
  std::set<double> ts;
  double mx = 0, md = 0;
  for (const auto& [t, x] : t_rate) {
    if (!(t >= 1) || !std::isfinite(x) || !(x > 0)) {
      note = "a one-CPU row with T = " + std::to_string(t) + " and rate " + std::to_string(x);
      return std::nullopt;
    }
    ts.insert(t);
    mx += 1.0 / t;
    md += 1.0 / x;
  }
  if (ts.size() < 2) {
    note = "fewer than two producer counts on one CPU to split a write from the consumer's share";
    return std::nullopt;
  }
  if (!std::isfinite(line_s) || !(line_s >= 0)) {
    note = "the cache line's round trip is not a time";
    return std::nullopt;
  }
  const auto count = static_cast<double>(t_rate.size());
  mx /= count;
  md /= count;
  double sxy = 0, sxx = 0;
  for (const auto& [t, x] : t_rate) {
    sxy += (1.0 / t - mx) * (1.0 / x - md);
    sxx += (1.0 / t - mx) * (1.0 / t - mx);
  }
  pipeline_fit f;
  f.consumer_s = sxy / sxx;
  f.write_s = md - f.consumer_s * mx;
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
    const double scale = o.k.unit == "ns"   ? 1e-9
                         : o.k.unit == "us" ? 1e-6
                         : o.k.unit == "ms" ? 1e-3
                         : o.k.unit == "s"  ? 1.0
                                            : NAN;
    if (std::isfinite(scale) && std::isfinite(o.value) && o.value > 0) return o.value * scale;
  }
  return std::nullopt;
}

}  // namespace pollscale::model
