#include "calibrate/probes/thread_series.hpp"

#include <algorithm>
#include <cstddef>

namespace pollscale::calibrate::probes {

std::vector<std::int64_t> thread_counts(std::int64_t t_max) {
  std::vector<std::int64_t> ts = {1};
  for (std::int64_t p = 2; p <= t_max; p *= 2) {
    ts.push_back(p);
    if (p + p / 2 <= t_max) ts.push_back(p + p / 2);
  }
  ts.push_back(std::max<std::int64_t>(t_max, 1));
  std::sort(ts.begin(), ts.end());
  ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
  return ts;
}

std::int64_t widest_series(const selection& sel, std::int64_t cap) {
  return std::max<std::int64_t>(2, std::min<std::int64_t>(static_cast<std::int64_t>(sel.cpus.size()), cap));
}

std::vector<std::int64_t> series_widths(const selection& sel, std::int64_t c_max) {
  std::vector<std::int64_t> cs = {1};
  for (std::int64_t c = 2; sel.profile == profile_kind::full && c < c_max; c *= 2) cs.push_back(c);
  cs.push_back(c_max);
  return cs;
}

std::vector<int> first_cpus(const selection& sel, std::int64_t count) {
  const auto have = std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(sel.cpus.size()), count);
  std::vector<int> cpus(sel.cpus.begin(), sel.cpus.begin() + have);
  int next = cpus.empty() ? 0 : cpus.back() + 1;
  while (static_cast<std::int64_t>(cpus.size()) < count) cpus.push_back(next++);
  return cpus;
}

}  // namespace pollscale::calibrate::probes
