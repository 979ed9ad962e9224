#include "sim/event_loop_server.hpp"

#include <cmath>
#include <stdexcept>

#include "datasets/vocabulary.hpp"
#include "sim/cost_cache.hpp"
#include "sim/server_model.hpp"

namespace pollscale::sim {

namespace {

void validate(const run_options& o) {
  if (!std::isfinite(o.duration_s) || o.duration_s <= 0)
    throw std::invalid_argument("duration must be finite and > 0 s");
  if (!std::isfinite(o.warmup_s) || o.warmup_s < 0) throw std::invalid_argument("warm-up must be finite and >= 0 s");
  if (o.slices < 10 || o.slices > 100000) throw std::invalid_argument("slices must be in 10..100000");
}

}  // namespace

interest_sharing parse_interest_sharing(const std::string& text) {
  if (text == "per_thread") return interest_sharing::per_thread;
  if (text == "shared") return interest_sharing::shared;
  throw std::invalid_argument("interest '" + text + "' is not one of per_thread, shared");
}

ready_position parse_ready_position(const std::string& text) {
  using datasets::position;
  if (text == position::random) return ready_position::random;
  if (text == position::first) return ready_position::first;
  if (text == position::last) return ready_position::last;
  throw std::invalid_argument("active position '" + text + "' is not one of random, first, last");
}

std::string to_string(ready_position p) {
  using datasets::position;
  return std::string(datasets::name(p == ready_position::first  ? position::first
                                    : p == ready_position::last ? position::last
                                                                : position::random));
}

wake_policy parse_wake_policy(const std::string& text) {
  if (text == "all") return wake_policy::all;
  if (text == "one") return wake_policy::one;
  throw std::invalid_argument("wake '" + text + "' is not one of all, one");
}

std::string to_string(interest_sharing s) { return s == interest_sharing::shared ? "shared" : "per_thread"; }
std::string to_string(wake_policy w) { return w == wake_policy::all ? "all" : "one"; }

void server_config::validate() const {
  if (cpus < 1 || cpus > 4096) throw std::invalid_argument("cpus must be in 1..4096");
  if (threads < 1 || threads > 65536) throw std::invalid_argument("threads must be in 1..65536");
  if (max_events_per_call < 0) throw std::invalid_argument("max events per call must be >= 0");
  if (style == notification::signal_queue && signal_queue_limit < 1)
    throw std::invalid_argument("signal queue limit must be >= 1");
  if (irq_cpu < 0 || irq_cpu >= cpus) throw std::invalid_argument("irq cpu must be one of the simulated CPUs");
}

namespace {
[[noreturn]] void not_simulated(std::string_view mechanism) {
  throw std::invalid_argument("mechanism '" + std::string(mechanism) +
                              "' is not one of select, pselect, poll, ppoll, epoll, rtsig, io_uring");
}
}  // namespace

server_config default_server_config(datasets::mechanism mechanism) {
  const datasets::mechanism_traits t = datasets::traits(mechanism);
  if (!t.measured_here) not_simulated(datasets::name(mechanism));
  server_config c;
  c.mechanism = datasets::name(mechanism);
  c.wake = t.default_wake == datasets::wake::all ? wake_policy::all : wake_policy::one;
  if (t.signal_queue) {
    c.style = notification::signal_queue;
    c.sharing = interest_sharing::shared;
  }
  return c;
}

server_config default_server_config(const std::string& mechanism) {
  const auto known = datasets::parse<datasets::mechanism>(mechanism);
  if (!known) not_simulated(mechanism);
  return default_server_config(*known);
}

server_result simulate_server(const server_config& config, const workload& load, const cost_model& costs,
                              const run_options& options) {
  config.validate();
  load.validate();
  validate(options);
  if (load.arrivals != arrival_kind::closed && !(load.rate_per_s > 0))
    throw std::invalid_argument("open arrivals need a rate > 0");
  cost_cache(costs).validate_constants();
  engine e(options.scheduler);
  e.watch(options.stop_request);
  e.limit_events(options.max_events);
  detail::server_model m(config, load, costs, options, e);
  m.start();
  e.run_until(options.warmup_s + options.duration_s);
  server_result r = m.finish();
  r.events = e.events_fired();
  return r;
}

}  // namespace pollscale::sim
