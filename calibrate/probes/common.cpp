#include <algorithm>
#include <string>

#include "calibrate/probes/probes.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {

std::int64_t max_channels(fd_kind kind, std::size_t kept, std::size_t extra, const selection& sel) {
  if (sel.max_fds <= extra) return 0;
  const std::size_t budget = sel.max_fds - extra;
  // fds_needed is monotone in n: binary search the largest n that fits.
  std::size_t lo = 0, hi = budget;
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (channel_set::fds_needed(kind, mid, std::min(kept, mid)) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  return static_cast<std::int64_t>(lo);
}

std::vector<std::int64_t> n_grid(const selection& sel, std::int64_t n_max, int quick_points, int full_points) {
  if (!sel.n_override.empty()) return sel.n_override;
  return log_grid(1, n_max, sel.profile == profile_kind::full ? full_points : quick_points);
}

std::int64_t distinct_cpus(const std::string& pinning) {
  return static_cast<std::int64_t>(datasets::pinning::parse(pinning).distinct_cpus());
}

datasets::key base_key(datasets::scenario scenario, const flavour& f, fd_kind kind, datasets::metric metric,
                       std::string_view unit) {
  datasets::key k;
  k.scenario = datasets::name(scenario);
  k.mechanism = std::string(name_of(f.mech));
  k.variant = f.variant;
  k.fd_kind = std::string(name_of(kind));
  k.metric = datasets::name(metric);
  k.unit = std::string(unit);
  return k;
}

}  // namespace pollscale::calibrate::probes
