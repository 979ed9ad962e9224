#include "calibrate/wake_sentinel.hpp"

#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {
namespace {

// The wakeup probe's point that is this sentinel: a blocking read (no mechanism) over one
// eventfd per direction, the partner on another CPU.
bool is_the_sentinel_point(const datasets::key& k, const selection&) {
  if (!k.mechanism.empty() || k.fd_kind != datasets::name(datasets::fd_kind::eventfd) || k.n_fds != 1) return false;
  const auto p = datasets::pinning::parse(k.pinning);
  return p.is_pair() && p.cpus()[0] != p.cpus()[1];
}

}  // namespace

wake_sentinel::wake_sentinel(const selection& sel)
    : probe_sentinel(
          sel, {datasets::scenario::wakeup, is_the_sentinel_point, batches, round_trips_per_batch, min_interval_s}) {}

std::string wake_sentinel::description() {
  return "round trip between two threads on two CPUs over eventfds with blocking read(2) (two cross-CPU wake-ups); "
         "median of " +
         std::to_string(batches) + " batches of " + std::to_string(round_trips_per_batch) +
         " round trips, ns per round trip";
}

}  // namespace pollscale::calibrate
