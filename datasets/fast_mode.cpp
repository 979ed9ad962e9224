#include "datasets/fast_mode.hpp"

#include <cmath>
#include <map>

#include "datasets/input_error.hpp"
#include "datasets/run_facts.hpp"
#include "datasets/schema.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::datasets {

double fast_mode_factor(double fast_ns, std::optional<double> reading_ns) {
  if (!reading_ns || !std::isfinite(*reading_ns) || *reading_ns <= 0) return 1.0;
  if (!std::isfinite(fast_ns) || fast_ns <= 0) return 1.0;
  return fast_ns / *reading_ns;
}

std::optional<double> fast_mode_ns(const nlohmann::json& context) {
  const auto drift = read_run_facts(context).drift;
  if (!drift || !drift->p10_ns || !std::isfinite(*drift->p10_ns) || *drift->p10_ns <= 0) return std::nullopt;
  return *drift->p10_ns;
}

void adjust_samples_to_fast_mode(std::vector<sample_row>& samples, double fast_ns) {
  for (auto& s : samples) {
    const double factor = fast_mode_factor(fast_ns, s.sentinel_ns);
    if (is_time_unit(s.k.unit))
      s.value *= factor;
    else if (is_rate_unit(s.k.unit))
      s.value /= factor;
  }
}

dataset adjusted_to_fast_mode(dataset d, const std::filesystem::path& dir) {
  const auto fast = fast_mode_ns(d.context);
  if (!fast)
    throw input_error((dir / "context.json").string() +
                      ": no drift sentinel (stability.p10_ns), which the adjusted statistic needs");
  adjust_samples_to_fast_mode(d.samples, *fast);
  std::map<key, summary> again;
  for (auto& r : summarise_samples(d.samples)) again.emplace(r.k, r.s);
  for (auto& r : d.summaries)
    if (const auto it = again.find(r.k); it != again.end()) r.s = it->second;
  return d;
}

}  // namespace pollscale::datasets
