#include "calibrate/wake_sentinel.hpp"

#include <system_error>
#include <vector>

#include "calibrate/registry.hpp"
#include "datasets/pinning.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {
namespace {

// The wakeup probe's point that is this sentinel: a blocking read (no mechanism) over one
// eventfd per direction, the partner on another CPU.
bool is_the_sentinel_point(const datasets::key& k) {
  if (!k.mechanism.empty() || k.fd_kind != datasets::name(datasets::fd_kind::eventfd) || k.n_fds != 1) return false;
  const auto p = datasets::pinning::parse(k.pinning);
  return p.is_pair() && p.cpus()[0] != p.cpus()[1];
}

}  // namespace

wake_sentinel::wake_sentinel(const selection& sel) : sel_(sel) {
  // The quick grid over the whole mask, whatever the run's profile or --n: the same point
  // in every calibration.
  sel_.profile = profile_kind::quick;
  sel_.n_override.clear();
  probe_ = find_probe(datasets::name(datasets::scenario::wakeup));
  if (!probe_ || sel_.cpus.size() < 2) return;
  for (const auto& k : probe_->points(sel_, {}))
    if (is_the_sentinel_point(k)) {
      key_ = k;
      return;
    }
}

std::string wake_sentinel::description() {
  return "round trip between two threads on two CPUs over eventfds with blocking read(2) (two cross-CPU wake-ups); "
         "median of " +
         std::to_string(batches) + " batches of " + std::to_string(round_trips_per_batch) +
         " round trips, ns per round trip";
}

std::optional<datasets::sentinel_reading> wake_sentinel::read(double t_s) {
  if (!key_ || (last_t_s_ && t_s - *last_t_s_ < min_interval_s)) return std::nullopt;
  std::unique_ptr<probe_instance> round_trips;
  try {
    round_trips = probe_->make(*key_, sel_);
  } catch (const std::system_error&) {
    return std::nullopt;  // descriptors held by a probe's shared set-up: skip this reading
  } catch (const probe_skipped&) {
    return std::nullopt;
  }
  last_t_s_ = t_s;
  round_trips->run(round_trips_per_batch);  // warm-up: the partner's first wake-ups
  std::vector<double> per_round_trip;
  for (int b = 0; b < batches; ++b)
    per_round_trip.push_back(static_cast<double>(round_trips->run(round_trips_per_batch)) /
                             static_cast<double>(round_trips_per_batch));
  return datasets::sentinel_reading{t_s, datasets::median(per_round_trip),
                                    static_cast<std::int64_t>(round_trips_per_batch) * batches};
}

}  // namespace pollscale::calibrate
