#include "calibrate/registry.hpp"

#include <vector>

#include "calibrate/probes/probes.hpp"

namespace pollscale::calibrate {

std::span<const probe_def> all_probes() {
  static const std::vector<probe_def> table = {
      probes::find_active(),       probes::interest_churn(), probes::wakeup(),       probes::ipc(),
      probes::handler(),           probes::server(),         probes::fd_range(),     probes::token_ring(),
      probes::memory_latency(),    probes::producers(),      probes::private_sets(), probes::shared_epoll(),
      probes::cache_line(),        probes::call_spread(),    probes::accept_herd(),  probes::cold_scan(),
      probes::private_processes(),
  };
  return table;
}

const probe_def* find_probe(std::string_view scenario) {
  for (const auto& p : all_probes())
    if (p.scenario == scenario) return &p;
  return nullptr;
}

}  // namespace pollscale::calibrate
