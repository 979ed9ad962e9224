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

worker_kind parse_worker_kind(const std::string& text) {
  if (text == "threads") return worker_kind::threads;
  if (text == "processes") return worker_kind::processes;
  throw std::invalid_argument("workers '" + text + "' is not one of threads, processes");
}

std::string to_string(worker_kind w) { return w == worker_kind::processes ? "processes" : "threads"; }

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
  if (text == "level") return wake_policy::level;
  throw std::invalid_argument("wake '" + text + "' is not one of all, one, level");
}

std::string to_string(interest_sharing s) { return s == interest_sharing::shared ? "shared" : "per_thread"; }
std::string to_string(wake_policy w) {
  switch (w) {
    case wake_policy::all: return "all";
    case wake_policy::one: return "one";
    case wake_policy::level: return "level";
  }
  return "?";
}

std::string_view to_string(cpu_use u) {
  switch (u) {
    case cpu_use::wait_calls: return "wait_calls";
    case cpu_use::rescans: return "rescans";
    case cpu_use::overflow_polls: return "overflow_polls";
    case cpu_use::rearms: return "rearms";
    case cpu_use::handlers: return "handlers";
  }
  return "?";
}

std::array<cpu_use, cpu_use_count> cpu_uses() {
  return {cpu_use::wait_calls, cpu_use::rescans, cpu_use::overflow_polls, cpu_use::rearms, cpu_use::handlers};
}

namespace {

// The model's limits: CPUs and threads are indices of small vectors, far beyond any machine.
constexpr std::int64_t max_cpus = 4096, max_threads = 65536, max_count = std::int64_t{1} << 31;

// Text of a JSON value, for the kinds' parsers.
std::string text_value(const nlohmann::json& v) {
  if (!v.is_string()) throw std::invalid_argument("expected text");
  return v.get<std::string>();
}

using json = nlohmann::json;

// clang-format off
const server_field fields[] = {
    {"cpus", "cpus", "N", "1", "simulated CPUs", field_form::integer,
     [](server_config& c, const json& v) { c.cpus = static_cast<int>(integer_value(v, 1, max_cpus)); },
     [](const server_config& c) { return json(c.cpus); }, 1},
    {"threads", "threads", "N", "1", "server workers: threads, or processes with --workers processes (worker t on CPU t mod cpus); from 2 threads a model's scans also pay each fd lookup's reference (docs/sim.md)", field_form::integer,
     [](server_config& c, const json& v) { c.threads = static_cast<int>(integer_value(v, 1, max_threads)); },
     [](const server_config& c) { return json(c.threads); }, 1},
    {"workers", "workers", "KIND", "threads", "threads (of one process: from 2 a model's scans pay each fd lookup's reference) or processes (of one thread each: they borrow their files; not with rtsig)", field_form::text,
     [](server_config& c, const json& v) { c.workers = parse_worker_kind(text_value(v)); },
     [](const server_config& c) { return json(to_string(c.workers)); }},
    {"interest", "interest", "SHARING", "", "per_thread or shared interest sets (default per_thread)", field_form::text,
     [](server_config& c, const json& v) { c.sharing = parse_interest_sharing(text_value(v)); },
     [](const server_config& c) { return json(to_string(c.sharing)); }},
    {"wake", "wake", "POLICY", "", "all (thundering herd), one (exclusive) or level (one, and one more per hand-out: a shared level-triggered epoll instance); default by mechanism, level for epoll/lt shared", field_form::text,
     [](server_config& c, const json& v) { c.wake = parse_wake_policy(text_value(v)); },
     [](const server_config& c) { return json(to_string(c.wake)); }},
    {"max_events_per_call", "max-events", "N", "0", "events one wait call returns at most (0: all)", field_form::integer,
     [](server_config& c, const json& v) { c.max_events_per_call = integer_value(v, 0, max_count); },
     [](const server_config& c) { return json(c.max_events_per_call); }},
    {"signal_queue_limit", "signal-queue", "N", "1024", "rtsig: signal queue length before overflow", field_form::integer,
     [](server_config& c, const json& v) { c.signal_queue_limit = integer_value(v, 1, max_count); },
     [](const server_config& c) { return json(c.signal_queue_limit); }},
    {"irq_cpu", "irq-cpu", "CPU", "0", "CPU on which network arrivals wake sleepers", field_form::integer,
     [](server_config& c, const json& v) { c.irq_cpu = static_cast<int>(integer_value(v, 0, max_cpus - 1)); },
     [](const server_config& c) { return json(c.irq_cpu); }},
    {"active_pos", "active-pos", "POS", "random", "active fds in the interest array: random, first or last", field_form::text,
     [](server_config& c, const json& v) { c.active_pos = parse_ready_position(text_value(v)); },
     [](const server_config& c) { return json(to_string(c.active_pos)); }},
};
// clang-format on

}  // namespace

std::span<const server_field> server_fields() { return fields; }

const server_field* server_field_by_key(std::string_view key) { return field_by_key(server_fields(), key); }

const server_field* server_field_by_flag(std::string_view flag) { return field_by_flag(server_fields(), flag); }

void server_config::validate() const {
  if (cpus < 1 || cpus > max_cpus) throw field_error("cpus", "must be in 1..4096");
  if (threads < 1 || threads > max_threads) throw field_error("threads", "must be in 1..65536");
  if (workers == worker_kind::processes && style == notification::signal_queue)
    throw field_error("workers",
                      "rtsig's signal queue belongs to one process, whose threads take its signals: its workers cannot "
                      "be processes");
  if (max_events_per_call < 0) throw field_error("max_events_per_call", "must be >= 0");
  if (style == notification::signal_queue && signal_queue_limit < 1)
    throw field_error("signal_queue_limit", "must be >= 1");
  if (irq_cpu < 0 || irq_cpu >= cpus)
    throw field_error("irq_cpu",
                      std::to_string(irq_cpu) + " is not one of the simulated CPUs 0.." + std::to_string(cpus - 1));
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
