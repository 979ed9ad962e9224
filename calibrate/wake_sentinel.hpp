// The cross-CPU wake sentinel. The drift sentinel (sentinel.hpp) watches how fast one CPU
// runs; a wake-up that crosses CPUs takes another road and drifts on its own. On a KVM
// guest, waking a thread that sleeps on the other vCPU is an IPI: a VM exit, and, if that
// vCPU halted, the host must wake its thread — unless the host's halt-polling (adaptive,
// per vCPU, invisible to the guest) is still spinning and catches it. So the cost of the
// same round trip moves between levels for tens of seconds at a time. Measured on a 2-vCPU
// AMD EPYC guest (2026-12-04, two quick calibrations back to back): every cross-CPU woken
// point sat 1.34x above its fast level for the first minute of one run and the last 30 s of
// the next, while the drift sentinel's p90/p10 was 1.05 — it saw nothing.
//
// One operation: the wakeup probe's own round trip (probes/wakeup.cpp) over eventfds with
// blocking reads — the main thread on the session's CPU, the partner on the second CPU of
// the mask: two cross-CPU wake-ups. A reading (probe_sentinel.hpp) builds the probe's instance
// (two eventfds and the partner thread, about 0.1 ms) and times `batches` batches of
// `round_trips_per_batch` round trips. At most one reading every `min_interval_s`: the levels
// last tens of seconds, and a reading costs about 2 ms.
#pragma once

#include <cstddef>
#include <string>

#include "calibrate/probe_sentinel.hpp"

namespace pollscale::calibrate {

class wake_sentinel : public probe_sentinel {
 public:
  static constexpr int batches = 9;
  static constexpr std::size_t round_trips_per_batch = 8;
  static constexpr double min_interval_s = 1.0;

  /// The wakeup probe's cross-CPU point over `sel`'s mask; off without two CPUs (or that probe).
  explicit wake_sentinel(const selection& sel);

  /// What one operation is, for the context block.
  static std::string description();
};

}  // namespace pollscale::calibrate
