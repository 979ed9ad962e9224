#include "calibrate/probes/thread_series.hpp"

#include <algorithm>
#include <cstddef>
#include <set>
#include <stdexcept>

#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/process.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {

std::vector<std::int64_t> thread_counts(std::int64_t t_max) {
  std::vector<std::int64_t> ts = {1};
  for (std::int64_t p = 2; p <= t_max; p *= 2) {
    ts.push_back(p);
    if (p + p / 2 <= t_max) ts.push_back(p + p / 2);
  }
  ts.push_back(std::max<std::int64_t>(t_max, 1));
  std::sort(ts.begin(), ts.end());
  ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
  return ts;
}

std::int64_t widest_series(const selection& sel, std::int64_t cap) {
  return std::max<std::int64_t>(2, std::min<std::int64_t>(static_cast<std::int64_t>(sel.cpus.size()), cap));
}

std::vector<std::int64_t> series_widths(const selection& sel, std::int64_t c_max) {
  std::vector<std::int64_t> cs = {1};
  for (std::int64_t c = 2; sel.profile == profile_kind::full && c < c_max; c *= 2) cs.push_back(c);
  cs.push_back(c_max);
  return cs;
}

std::vector<int> first_cpus(const selection& sel, std::int64_t count) {
  const auto have = std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(sel.cpus.size()), count);
  std::vector<int> cpus(sel.cpus.begin(), sel.cpus.begin() + have);
  int next = cpus.empty() ? 0 : cpus.back() + 1;
  while (static_cast<std::int64_t>(cpus.size()) < count) cpus.push_back(next++);
  return cpus;
}

std::vector<std::int64_t> series_thread_counts(const selection& sel, std::int64_t c_max, std::int64_t per_cpu,
                                               std::int64_t max_threads) {
  if (sel.n_override.empty()) return thread_counts(per_cpu * c_max);
  std::vector<std::int64_t> ts;
  for (auto t : sel.n_override)
    if (t >= 1 && t <= max_threads) ts.push_back(t);
  return ts;
}

std::string round_robin_pinning(const std::vector<int>& cpus, std::int64_t threads) {
  std::string pin;
  for (std::int64_t i = 0; i < threads; ++i)
    pin += (i ? "+" : "") + datasets::pinning::on(cpus[static_cast<std::size_t>(i) % cpus.size()]).text();
  return pin;
}

std::vector<datasets::key> round_robin_grid(const selection& sel, const std::vector<datasets::key>& bases,
                                            std::int64_t max_threads) {
  constexpr std::int64_t quick_max_cpus = 4, full_max_cpus = 16;
  constexpr std::int64_t quick_threads_per_cpu = 2, full_threads_per_cpu = 4;
  const bool full = sel.profile == profile_kind::full;
  const std::int64_t c_max = widest_series(sel, full ? full_max_cpus : quick_max_cpus);
  const auto ts = series_thread_counts(sel, c_max, full ? full_threads_per_cpu : quick_threads_per_cpu, max_threads);
  std::vector<datasets::key> out;
  for (const auto& base : bases) {
    std::set<datasets::key> points;
    for (auto c : series_widths(sel, c_max)) {
      const auto cpus = first_cpus(sel, c);
      for (auto t : ts) {
        datasets::key k = base;
        k.n_fds = t;
        k.n_active = t;
        k.threads = t;
        k.pinning = round_robin_pinning(cpus, t);
        k.cpus = distinct_cpus(k.pinning);
        points.insert(std::move(k));
      }
    }
    out.insert(out.end(), points.begin(), points.end());
  }
  return out;
}

std::size_t point_threads(std::string_view scenario, const datasets::key& key, std::int64_t max_threads) {
  const std::int64_t t = key.n_fds.value_or(0);
  if (t < 1)
    throw std::invalid_argument(std::string(scenario) + " point " + datasets::describe(key) + " needs n_fds >= 1");
  if (t > max_threads)
    throw probe_skipped(std::to_string(t) + " threads: the probe starts at most " + std::to_string(max_threads));
  return static_cast<std::size_t>(t);
}

std::vector<int> point_thread_cpus(std::string_view scenario, const datasets::key& key, std::size_t threads,
                                   const selection& sel) {
  const auto p = datasets::pinning::parse(key.pinning);
  if (p.cpus().size() != threads)
    throw std::invalid_argument(std::string(scenario) + " point " + datasets::describe(key) + ": pinning '" +
                                key.pinning + "' must name " + std::to_string(threads) + " CPUs, one per thread");
  for (int cpu : p.cpus())
    if (std::find(sel.cpus.begin(), sel.cpus.end(), cpu) == sel.cpus.end())
      throw probe_skipped("CPU " + std::to_string(cpu) + " is not in the affinity mask (" +
                          std::to_string(sel.cpus.size()) + " CPUs; this point spreads its threads over " +
                          std::to_string(p.distinct_cpus()) + ")");
  return p.cpus();
}

bool counts_wakeups(std::string_view scenario, const datasets::key& key) {
  if (key.metric == datasets::metric::throughput && key.unit == "1/s") return false;
  if (key.metric == datasets::metric::wakeups && key.unit == "1") return true;
  throw std::invalid_argument(std::string(scenario) + " point " + datasets::describe(key) + ": metric '" + key.metric +
                              "' in '" + key.unit + "' is not throughput in 1/s or wakeups in 1");
}

void sleep_tally::begin() {
  if (!start_) start_ = sys::voluntary_switches();
}

void sleep_tally::end(std::atomic<std::uint64_t>& total) {
  if (start_) total.fetch_add(sys::voluntary_switches() - *start_, std::memory_order_acq_rel);
  start_.reset();
}

}  // namespace pollscale::calibrate::probes
