#include "studies/binding_resource.hpp"

#include <cmath>
#include <string>

namespace pollscale::studies {
namespace {

double share(const sim::experiment_result& r, sim::cpu_use u) { return r.cpu_share[static_cast<std::size_t>(u)]; }

// The wait calls' first passes and the passes after a wake-up are one cost to a reader: the
// mechanism's scan.
double wait_share(const sim::experiment_result& r) {
  return share(r, sim::cpu_use::wait_calls) + share(r, sim::cpu_use::rescans);
}

std::string percent(double fraction) { return std::to_string(std::lround(100 * fraction)) + "%"; }

}  // namespace

resource binding_resource(const sim::experiment_result& r, bool cpu_target_missed) {
  // Overflow polls are where rtsig spends a CPU it has run out of: name the queue when they
  // take more of it than the handlers do.
  const double overflow = share(r, sim::cpu_use::overflow_polls);
  if (r.overflows_per_s > 0 && overflow > share(r, sim::cpu_use::handlers)) return resource::signal_queue;
  // One structure held by one thread at a time saturates before the CPUs do: more CPUs
  // would not help, so it, not the CPUs, ran out.
  if (!cpu_target_missed && r.shared_set_busy >= busy_cpu_threshold && r.shared_set_busy >= r.cpu_utilisation.mean)
    return resource::shared_set;
  if (!cpu_target_missed && r.cpu_utilisation.mean < busy_cpu_threshold) return resource::latency;
  const double wait = wait_share(r), handlers = share(r, sim::cpu_use::handlers),
               rearms = share(r, sim::cpu_use::rearms);
  if (rearms > wait && rearms > handlers) return resource::cpu_rearms;
  return wait >= handlers ? resource::cpu_wait_calls : resource::cpu_handlers;
}

std::string to_string(resource x) {
  switch (x) {
    case resource::cpu_wait_calls: return "cpu_wait_calls";
    case resource::cpu_handlers: return "cpu_handlers";
    case resource::cpu_rearms: return "cpu_rearms";
    case resource::signal_queue: return "signal_queue";
    case resource::shared_set: return "shared_set";
    case resource::latency: return "latency";  // vocabulary: a resource, not the metric
  }
  return "?";
}

std::string describe(resource x, const sim::experiment_result& r) {
  const double busy = r.cpu_utilisation.mean;
  // Shares of the busy time, not of the whole span: "81% of their time in wait calls".
  const auto of_busy = [busy](double s) { return percent(busy > 0 ? s / busy : 0); };
  switch (x) {
    case resource::cpu_wait_calls: return "the CPUs, " + of_busy(wait_share(r)) + " of their time in wait calls";
    case resource::cpu_handlers:
      return "the CPUs, " + of_busy(share(r, sim::cpu_use::handlers)) + " of their time handling events";
    case resource::cpu_rearms:
      return "the CPUs, " + of_busy(share(r, sim::cpu_use::rearms)) + " of their time re-arming one-shot interest";
    case resource::signal_queue:
      return "rtsig's signal queue (" + std::to_string(std::lround(r.overflows_per_s)) +
             " overflows/s, each a full poll; " + of_busy(share(r, sim::cpu_use::overflow_polls)) +
             " of the CPUs' time in them)";
    case resource::shared_set:
      return "the set every thread shares: its serial part held " + percent(r.shared_set_busy) +
             " of the time, a pass waiting " + std::to_string(std::lround(1e6 * r.shared_set_wait_s)) +
             " us for it, with the CPUs " + percent(busy) + " busy";
    case resource::latency:
      return "latency, not CPU: the CPUs are " + percent(busy) + " busy (" + of_busy(wait_share(r)) +
             " of that in wait calls), so requests waited to be noticed";
  }
  return "?";
}

nlohmann::json binding_json(resource x, const sim::experiment_result& r) {
  nlohmann::json uses = nlohmann::json::object();
  for (const sim::cpu_use u : sim::cpu_uses()) uses[std::string(sim::to_string(u))] = share(r, u);
  return {{"resource", to_string(x)}, {"cpu_by_use", uses}};
}

}  // namespace pollscale::studies
