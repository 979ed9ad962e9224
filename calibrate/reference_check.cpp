#include "calibrate/reference_check.hpp"

#include <cmath>
#include <cstdlib>

#include "calibrate/reference.hpp"
#include "datasets/pinning.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {
namespace {

constexpr std::int64_t poll_loop_target_n = 1000;
constexpr int poll_loop_reps = 51;
constexpr int perf_loops = 20000;  // about 0.25 s at this VM's 12 us round trip

bool is_poll_loop_twin(const datasets::key& k) {
  namespace d = datasets;
  return k.scenario == d::scenario::find_active && k.mechanism == d::mechanism::poll && k.fd_kind == d::fd_kind::pipe &&
         k.n_active == 1 && k.active_pos == d::position::middle && k.blocking == 0 &&
         k.metric == d::metric::time_per_call && k.n_fds.has_value();
}

bool is_perf_twin(const datasets::key& k, int cpu) {
  const std::string same = datasets::pinning::pair(cpu, cpu).text();
  namespace d = datasets;
  return k.scenario == d::scenario::wakeup && k.mechanism.empty() && k.fd_kind == d::fd_kind::pipe &&
         k.pinning == same && k.metric == d::metric::round_trip && k.n_fds.value_or(1) == 1;
}

}  // namespace

reference_check::reference_check(const std::vector<planned_point>& once, int cpu) {
  poll_loop_.name = "poll_loop";
  perf_pipe_.name = "perf_pipe";
  for (const auto& p : once) {
    if (is_poll_loop_twin(p.key) &&
        (!poll_loop_.point ||
         std::llabs(*p.key.n_fds - poll_loop_target_n) < std::llabs(*poll_loop_.point->n_fds - poll_loop_target_n)))
      poll_loop_.point = p.key;
    if (is_perf_twin(p.key, cpu) && !perf_pipe_.point) perf_pipe_.point = p.key;
  }
  if (!poll_loop_.point)
    poll_loop_.missing = "no find_active poll pipe k=1 middle timeout-0 time_per_call point in the plan";
  else if (poll_loop_path().empty())
    poll_loop_.missing = std::string(poll_loop_name) + " not found beside pollscale";
  if (!perf_pipe_.point) perf_pipe_.missing = "no wakeup blocking-read pipe point on one CPU in the plan";
}

void reference_check::after_visit(const datasets::key& k, const std::vector<double>& values, double t_s) {
  for (pair* p : {&poll_loop_, &perf_pipe_}) {
    if (!p->missing.empty() || !p->point || *p->point != k || values.empty()) continue;
    std::string why;
    const auto r = p == &poll_loop_ ? run_poll_loop(poll_loop_path(), *k.n_fds, poll_loop_reps, &why)
                                    : run_perf_pipe(perf_loops, &why);
    if (!r) {
      p->missing = why;  // one failure is enough: the tool is not usable here
      continue;
    }
    const double own = datasets::median(values);
    p->tool = r->tool;
    p->ratios.push_back(own / r->ns_per_op);
    p->readings.push_back(
        {{"t_s", t_s}, {"pollscale_ns", own}, {"reference_ns", r->ns_per_op}, {"ratio", p->ratios.back()}});
  }
}

nlohmann::json reference_check::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const pair* p : {&poll_loop_, &perf_pipe_}) {
    nlohmann::json e;
    if (p->point) e["point"] = datasets::describe(*p->point);
    if (!p->tool.empty()) e["tool"] = p->tool;
    e["readings"] = p->readings;
    if (!p->ratios.empty()) e["median_ratio"] = datasets::median(p->ratios);
    if (!p->missing.empty()) e["missing"] = p->missing;
    j[p->name] = e;
  }
  return j;
}

}  // namespace pollscale::calibrate
