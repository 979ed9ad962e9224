#include "sim/cost_cache.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace pollscale::sim {

namespace {

void check(double v, const std::string& question) {
  if (!std::isfinite(v) || v < 0) {
    std::ostringstream s;
    s << "cost model: " << question << " = " << v << " s (costs must be finite and >= 0)";
    throw std::invalid_argument(s.str());
  }
}

}  // namespace

double cost_cache::lookup(int what, const wait_query& q, const std::function<double(const wait_query&)>& f,
                          const char* name) {
  const key k{what, q.registered, q.ready, q.blocking, q.before_first_ready, q.process_threads};
  if (const auto it = memo_.find(k); it != memo_.end()) return it->second;
  if (!f) throw std::invalid_argument(std::string("cost model: no ") + name + " for this mechanism");
  const double v = f(q);
  std::ostringstream question;
  question << name << "(n=" << q.registered << ", k=" << q.ready << ", blocking=" << q.blocking
           << ", threads=" << q.process_threads << ")";
  check(v, question.str());
  memo_.emplace(k, v);
  return v;
}

double cost_cache::rearm_s(std::int64_t registered) {
  if (!model_.rearm_s) return 0;
  const key k{3, registered, 0, false, -1, 1};
  if (const auto it = memo_.find(k); it != memo_.end()) return it->second;
  const double v = model_.rearm_s(registered);
  check(v, "rearm_s(n=" + std::to_string(registered) + ")");
  memo_.emplace(k, v);
  return v;
}

void cost_cache::validate_constants() const {
  check(model_.handler_s, "handler_s");
  check(model_.wakeup_same_cpu_s, "wakeup_same_cpu_s");
  check(model_.wakeup_cross_cpu_s, "wakeup_cross_cpu_s");
  check(model_.shared_set_hold_s, "shared_set_hold_s");
  for (const auto& [name, factor] :
       {std::pair{"cross_cpu_factor", model_.cross_cpu_factor}, std::pair{"machine_factor", model_.machine_factor}}) {
    if (std::isfinite(factor) && factor > 0) continue;
    std::ostringstream s;
    s << "cost model: " << name << " = " << factor << " (a factor must be finite and > 0)";
    throw std::invalid_argument(s.str());
  }
}

}  // namespace pollscale::sim
