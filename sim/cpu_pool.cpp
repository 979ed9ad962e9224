#include "sim/cpu_pool.hpp"

#include <cmath>

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

cpu_pool::cpu_pool(int cpus) : cpus_(static_cast<std::size_t>(cpus > 0 ? cpus : 0)) {
  POLLSCALE_SIM_EXPECT(cpus >= 1, "a machine needs at least one CPU");
}

void cpu_pool::run(engine& e, int cpu, double work_s, process& target, std::uint64_t tag) {
  POLLSCALE_SIM_EXPECT(cpu >= 0 && cpu < size(), "burst on a CPU that does not exist");
  POLLSCALE_SIM_EXPECT(std::isfinite(work_s) && work_s >= 0, "a cost is negative, NaN or infinite");
  const auto c = static_cast<std::size_t>(cpu);
  const burst b{work_s, &target, tag};
  if (cpus_[c].busy)
    cpus_[c].waiting.push(b);
  else
    start(e, c, b);
}

void cpu_pool::start(engine& e, std::size_t cpu, const burst& b) {
  cpu_state& s = cpus_[cpu];
  s.busy = true;
  s.current = b;
  s.busy_time.set(e.now(), 1);
  e.schedule_in(b.work_s, *this, cpu);
}

void cpu_pool::on_event(engine& e, std::uint64_t cpu) {
  cpu_state& s = cpus_[cpu];
  const burst done = s.current;
  if (!s.waiting.empty()) {
    start(e, cpu, s.waiting.pop());
  } else {
    s.busy = false;
    s.busy_time.set(e.now(), 0);
  }
  // After the CPU's own bookkeeping, so that a target starting a new burst queues behind
  // the ones already waiting.
  done.target->on_event(e, done.tag);
}

void cpu_pool::reset_statistics(double now) {
  for (cpu_state& s : cpus_) s.busy_time.reset(now);
}

double cpu_pool::utilisation(int cpu, double now) const {
  return cpus_[static_cast<std::size_t>(cpu)].busy_time.mean(now);
}

}  // namespace pollscale::sim
