#include "calibrate/settle.hpp"

#include <algorithm>
#include <map>

#include "datasets/statistics.hpp"

namespace pollscale::calibrate {

std::vector<visit_agreement> agreement_of(const std::vector<datasets::key>& sample_keys,
                                          const std::vector<datasets::sample_row>& samples) {
  std::map<datasets::key, std::size_t> index;
  for (std::size_t i = 0; i < sample_keys.size(); ++i)
    if (!sample_keys[i].scenario.empty()) index.emplace(sample_keys[i], i);
  // Per planned point, the values of each visit.
  std::vector<std::map<std::int64_t, std::vector<double>>> by_visit(sample_keys.size());
  for (const auto& s : samples)
    if (auto it = index.find(s.k); it != index.end()) by_visit[it->second][s.visit].push_back(s.value);
  std::vector<visit_agreement> out(sample_keys.size());
  for (std::size_t i = 0; i < sample_keys.size(); ++i) {
    std::vector<double> medians;
    for (const auto& [visit, values] : by_visit[i]) medians.push_back(datasets::median(values));
    out[i] = {datasets::visit_median_log_se(medians), medians.size()};
  }
  return out;
}

std::vector<std::size_t> points_to_settle(const std::vector<visit_agreement>& agreement,
                                          const std::vector<std::size_t>& order, const settle_options& o) {
  std::vector<std::size_t> out;
  for (std::size_t i : order)
    if (i < agreement.size() && agreement[i].visits > 0 && agreement[i].se > o.target_se &&
        agreement[i].visits < static_cast<std::size_t>(o.max_visits))
      out.push_back(i);
  return out;
}

std::size_t disagreeing(const std::vector<visit_agreement>& agreement, double target_se) {
  return static_cast<std::size_t>(std::count_if(
      agreement.begin(), agreement.end(), [&](const visit_agreement& a) { return a.visits > 0 && a.se > target_se; }));
}

}  // namespace pollscale::calibrate
