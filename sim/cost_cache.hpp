// Asks the cost model each distinct question once. A server's sets keep a fixed number
// of registered fds and see few distinct ready counts, so a run asks a handful of
// questions millions of times; a fitted model can take microseconds per answer. Every
// answer is checked: a negative or non-finite cost is bad input (a broken model or costs
// file) and throws std::invalid_argument naming the question.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sim/costs.hpp"

namespace pollscale::sim {

class cost_cache {
 public:
  explicit cost_cache(const cost_model& m) : model_(m) {}

  double wait_call_s(const wait_query& q) { return lookup(0, q, model_.wait_call_s, "wait_call_s"); }
  double rescan_s(const wait_query& q) { return lookup(1, q, model_.rescan_s, "rescan_s"); }
  double overflow_poll_s(const wait_query& q) { return lookup(2, q, model_.overflow_poll_s, "overflow_poll_s"); }
  double rearm_s(std::int64_t registered);

  double handler_s() const { return model_.handler_s; }
  double wakeup_s(bool same_cpu) const { return same_cpu ? model_.wakeup_same_cpu_s : model_.wakeup_cross_cpu_s; }
  double shared_set_hold_s() const { return model_.shared_set_hold_s; }
  double cross_cpu_factor() const { return model_.cross_cpu_factor; }
  double machine_factor() const { return model_.machine_factor; }
  double width_factor(int cpus) const { return model_.width.time_factor(cpus); }

  /// Checks the constant costs; throws std::invalid_argument naming the first bad one.
  void validate_constants() const;

 private:
  struct key {
    int what;
    std::int64_t registered;
    std::int64_t ready;
    bool blocking;
    double before_first_ready;
    std::int64_t process_threads;
    bool operator==(const key&) const = default;
  };
  struct key_hash {
    std::size_t operator()(const key& k) const {
      std::uint64_t h = static_cast<std::uint64_t>(k.registered) * 0x9e3779b97f4a7c15ULL;
      h ^= static_cast<std::uint64_t>(k.ready) + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h ^ (static_cast<std::uint64_t>(k.what) << 1 | (k.blocking ? 1 : 0)));
    }
  };

  double lookup(int what, const wait_query& q, const std::function<double(const wait_query&)>& f, const char* name);

  const cost_model& model_;
  std::unordered_map<key, double, key_hash> memo_;
};

}  // namespace pollscale::sim
