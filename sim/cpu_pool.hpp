// The CPUs of a simulated machine. A thread that wants to compute asks its CPU for a burst
// of `work` seconds; bursts on one CPU run one at a time in arrival order (no preemption:
// the bursts simulated here, a wait call or one event's handling, are far shorter than a
// scheduler time slice). Each CPU's busy time is tracked for its utilisation.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/accumulators.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/ring_fifo.hpp"

namespace pollscale::sim {

class cpu_pool final : public process {
 public:
  /// Precondition: cpus >= 1.
  explicit cpu_pool(int cpus);

  int size() const { return static_cast<int>(cpus_.size()); }

  /// Runs `work_s` seconds of work on `cpu` (0-based) for `target`, whose
  /// on_event(e, tag) is called when the burst ends. Preconditions: 0 <= cpu < size(),
  /// work_s finite and >= 0.
  void run(engine& e, int cpu, double work_s, process& target, std::uint64_t tag);

  /// Bursts waiting (not running) on `cpu`.
  std::size_t waiting(int cpu) const { return cpus_[static_cast<std::size_t>(cpu)].waiting.size(); }

  /// Restarts the utilisation averages at `now` (end of warm-up).
  void reset_statistics(double now);

  /// Fraction of [reset, now] that `cpu` was busy.
  double utilisation(int cpu, double now) const;

  void on_event(engine& e, std::uint64_t cpu) override;

 private:
  struct burst {
    double work_s = 0;
    process* target = nullptr;
    std::uint64_t tag = 0;
  };
  struct cpu_state {
    bool busy = false;
    burst current;
    ring_fifo<burst> waiting;
    time_weighted busy_time;
  };

  void start(engine& e, std::size_t cpu, const burst& b);

  std::vector<cpu_state> cpus_;
};

}  // namespace pollscale::sim
