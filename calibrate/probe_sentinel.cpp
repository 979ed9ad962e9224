#include "calibrate/probe_sentinel.hpp"

#include <cstdint>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#include "calibrate/registry.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::calibrate {

probe_sentinel::probe_sentinel(const selection& sel, spec what) : sel_(sel), spec_(std::move(what)) {
  sel_.profile = profile_kind::quick;
  sel_.n_override.clear();
  probe_ = find_probe(datasets::name(spec_.probe));
  if (!probe_ || sel_.cpus.size() < 2) return;
  for (const auto& k : probe_->points(sel_, {}))
    if (spec_.is_the_point(k, sel_)) {
      key_ = k;
      return;
    }
}

std::optional<datasets::sentinel_reading> probe_sentinel::read(double t_s) {
  if (!key_ || (last_t_s_ && t_s - *last_t_s_ < spec_.min_interval_s)) return std::nullopt;
  std::unique_ptr<probe_instance> instance;
  try {
    instance = probe_->make(*key_, sel_);
  } catch (const std::system_error&) {
    return std::nullopt;  // descriptors held by a probe's shared set-up: skip this reading
  } catch (const probe_skipped&) {
    return std::nullopt;
  }
  last_t_s_ = t_s;
  const std::size_t per_batch = spec_.round_trips_per_batch;
  instance->run(per_batch);  // warm-up: the partner awake, its first wake-ups paid
  std::vector<double> per_operation;
  for (int b = 0; b < spec_.batches; ++b)
    per_operation.push_back(static_cast<double>(instance->run(per_batch)) / static_cast<double>(per_batch));
  return datasets::sentinel_reading{t_s, datasets::median(per_operation),
                                    static_cast<std::int64_t>(per_batch) * spec_.batches};
}

}  // namespace pollscale::calibrate
