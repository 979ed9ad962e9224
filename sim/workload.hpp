// What the clients of a simulated server do: c idle connections that stay registered and
// (optionally) send a rare keep-alive, plus a active connections carrying requests, either
// in a closed loop (each client waits for its reply, thinks, sends again: httperf and
// dphttpd style), as open Poisson arrivals, or as on/off bursts (Poisson while on, silent
// while off). Described by flags or a JSON file.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/random.hpp"
#include "sim/record_field.hpp"

namespace pollscale::sim {

enum class arrival_kind { closed, poisson, on_off };

/// The load generator as one more single-threaded process on its own CPU (httperf, or the
/// server probe's generator): replies queue for it, each costs `per_message` (read the
/// reply, write the next request), and when it has nothing to do it sleeps, so the first
/// reply after a pause waits `wakeup` first. Without it, clients answer in parallel after
/// the network delay alone.
///
/// Either cost may instead be the cost model's own (`..._from_costs`, written "costs"): per
/// message its handler_s (a request read and a reply written), after a pause its cross-CPU
/// wake-up. The server probe's generator is such a program on the machine the model
/// describes, so a model's uncertainty covers it too: with costs drawn per replication
/// (server_experiment.hpp) the generator's are drawn with the server's, instead of staying
/// at one figure while everything else moves.
struct load_generator {
  distribution per_message = distribution::constant(0);
  distribution wakeup = distribution::constant(0);
  bool per_message_from_costs = false;
  bool wakeup_from_costs = false;
};

/// "closed", "poisson" or "on_off"; throws std::invalid_argument naming the text otherwise.
arrival_kind parse_arrival_kind(const std::string& text);
std::string to_string(arrival_kind k);

struct workload {
  std::int64_t idle = 0;    ///< registered connections that carry no requests, >= 0
  std::int64_t active = 1;  ///< connections that carry requests, >= 1
  arrival_kind arrivals = arrival_kind::closed;
  /// closed: a client's pause between receiving a reply and sending its next request.
  distribution think = distribution::constant(0);
  /// poisson: total request rate over all active connections; on_off: the rate while on. 1/s.
  double rate_per_s = 0;
  distribution on_period = distribution::exponential(0.1);   ///< on_off: length of a burst, s
  distribution off_period = distribution::exponential(0.1);  ///< on_off: length of a silence, s
  distribution network = distribution::constant(0);          ///< one-way client-server delay, s
  distribution app_work = distribution::constant(0);         ///< application work per request, s
  /// Keep-alive period of each idle connection (none: idle connections never speak).
  std::optional<distribution> idle_activity;
  /// The clients' own process (none: every client answers independently).
  std::optional<load_generator> generator;

  /// Throws field_error naming the field (its file key) when a value is out of range.
  void validate() const;
  /// About how much memory the model's connections take, bytes (the rates below): the
  /// caller compares it with the machine before running.
  std::uint64_t state_bytes() const;
  /// Peak RSS of `simulate` (release build, 2026-12-01) grew by 11.7 B per idle and 266 B
  /// per active connection between 10^6 and 10^7 of them; rounded up.
  static constexpr std::uint64_t state_bytes_per_idle = 16, state_bytes_per_active = 320;
};

/// A workload's field as users spell it (sim/record_field.hpp).
using workload_field = record_field<workload>;

/// Every field, in the order --help lists their flags: idle, active, arrivals, think,
/// rate_per_s (--rate), on_period (--on), off_period (--off), network, app_work,
/// idle_activity, generator with its members per_message and wakeup.
std::span<const workload_field> workload_fields();

/// The field of that key, or of that flag; nullptr when none.
const workload_field* workload_field_by_key(std::string_view key);
const workload_field* workload_field_by_flag(std::string_view flag);

/// Parses a workload document: the keys of workload_fields() (and "comment"), distributions
/// written as in distribution::parse ("exp:0.001"), "generator": {"per_message": ...,
/// "wakeup": ...} or null. Starts from `base` (flags), so a file overrides only what it names.
/// Errors are datasets::input_error naming `origin` and the key.
workload parse_workload(const nlohmann::json& doc, const std::string& origin, workload base = {});

/// Reads and parses a workload file; throws datasets::input_error naming the file.
workload read_workload(const std::string& path, workload base = {});

/// The workload as JSON (the same keys parse_workload reads).
nlohmann::json to_json(const workload& w);

}  // namespace pollscale::sim
