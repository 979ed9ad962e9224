#include "app/report/calibration_figures.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "datasets/vocabulary.hpp"

namespace pollscale::app::report {
namespace {

using datasets::key;
using datasets::metric;
using datasets::scenario;

// One ready in the middle, timeout 0: the call the figures draw, in a process of any threads.
bool find_active_call(const key& k, metric m) {
  return k.scenario == scenario::find_active && k.metric == m && k.n_active.value_or(0) == 1 &&
         k.active_pos == datasets::position::middle && k.blocking.value_or(0) == 0;
}

// The same by one thread alone: what the cross-mechanism figures compare.
bool find_active_plain(const key& k, metric m) { return find_active_call(k, m) && datasets::one_thread(k); }

/// "token_ring throughput, pipe, k=1, t0, cpu 0": what one figure of a scenario holds.
std::string setting_label(const key& k) {
  std::string s = k.scenario + " " + k.metric;
  if (!k.fd_kind.empty()) s += ", " + k.fd_kind;
  if (k.n_active) s += ", k=" + std::to_string(*k.n_active);
  if (k.blocking) s += *k.blocking ? ", blocking" : ", t0";
  if (k.mechanism.empty() && !k.variant.empty()) s += ", " + k.variant;
  if (!k.pinning.empty()) s += ", cpu " + k.pinning;
  return s;
}

void add_if_any(std::vector<figure>& out, figure f) {
  if (!f.series.empty()) out.push_back(std::move(f));
}

std::vector<figure> find_active_figures(const datasets::dataset& d) {
  std::vector<figure> out;
  std::set<std::string> kinds;
  for (const auto& r : d.summaries)
    if (r.k.scenario == scenario::find_active) kinds.insert(r.k.fd_kind);
  for (const auto& kind : kinds) {
    add_if_any(out, {"find_active_call_" + kind, "One wait call, 1 ready among n " + kind + "s (timeout 0)",
                     "registered descriptors n", "ns per call", true, true,
                     series_by(
                         d.summaries,
                         [&](const key& k) { return find_active_plain(k, metric::time_per_call) && k.fd_kind == kind; },
                         flavour_label)});
    add_if_any(out, {"find_active_per_fd_" + kind, "Cost per registered " + kind + " (poll/select time per call / n)",
                     "registered descriptors n", "ns per descriptor", true, false,
                     series_by(
                         d.summaries,
                         [&](const key& k) {
                           return find_active_plain(k, metric::time_per_call) && k.fd_kind == kind &&
                                  k.mechanism != datasets::mechanism::epoll && k.n_fds.value_or(0) >= 16;
                         },
                         flavour_label, [](const key& k) { return 1.0 / static_cast<double>(*k.n_fds); })});
    add_if_any(out, {"find_active_cycle_" + kind, "Write 1 byte, wait, read it back: 1 active among n " + kind + "s",
                     "registered descriptors n", "ns per operation", true, true,
                     series_by(
                         d.summaries,
                         [&](const key& k) { return find_active_plain(k, metric::time_per_op) && k.fd_kind == kind; },
                         flavour_label)});
  }
  // The same call in a process of one thread and of two, where the calibration measured both
  // (docs/calibrate.md, "One thread or two"): select, poll and epoll over pipes.
  const auto two_threads = [](const key& k) {
    return find_active_call(k, metric::time_per_call) && k.fd_kind == datasets::fd_kind::pipe &&
           k.threads.value_or(1) == 2;
  };
  if (std::any_of(d.summaries.begin(), d.summaries.end(), [&](const auto& r) { return two_threads(r.k); }))
    add_if_any(out,
               {"find_active_threads_pipe", "One wait call over n pipes in a process of one thread or two (timeout 0)",
                "registered descriptors n", "ns per call", true, true,
                series_by(
                    d.summaries,
                    [&](const key& k) {
                      const auto m = datasets::parse<datasets::mechanism>(k.mechanism);
                      const bool three = m == datasets::mechanism::select || m == datasets::mechanism::poll ||
                                         m == datasets::mechanism::epoll;
                      return three && (find_active_plain(k, metric::time_per_call) || two_threads(k)) &&
                             k.fd_kind == datasets::fd_kind::pipe;
                    },
                    [](const key& k) {
                      return flavour_label(k) + (k.threads.value_or(1) == 2 ? ", two threads" : ", one thread");
                    })});
  add_if_any(out, {"find_active_blocking", "Blocking: data present on entry (position) or woken by a writer (CPUs)",
                   "registered descriptors n", "ns per operation", true, true,
                   series_by(
                       d.summaries,
                       [](const key& k) {
                         return k.scenario == scenario::find_active && k.blocking.value_or(0) == 1 &&
                                k.n_active.value_or(0) == 1;
                       },
                       [](const key& k) {
                         return flavour_label(k) + (k.threads.value_or(1) == 2 ? " woken " + k.pinning
                                                                               : " ready-at-entry " + k.active_pos);
                       })});
  return out;
}

}  // namespace

std::string flavour_label(const key& k) {
  if (k.mechanism.empty()) return k.variant.empty() ? "read" : k.variant;
  return k.variant.empty() ? k.mechanism : k.mechanism + "/" + k.variant;
}

std::vector<plot_series> series_by(const std::vector<datasets::summary_row>& rows,
                                   const std::function<bool(const key&)>& keep,
                                   const std::function<std::string(const key&)>& label,
                                   const std::function<double(const key&)>& y_scale) {
  std::map<std::string, plot_series> by_label;
  for (const auto& r : rows) {
    if (!r.k.n_fds || !keep(r.k)) continue;
    const double s = y_scale ? y_scale(r.k) : 1.0;
    auto& series = by_label[label(r.k)];
    series.title = label(r.k);
    series.points.push_back({static_cast<double>(*r.k.n_fds), r.s.median * s, r.s.ci95_lo * s, r.s.ci95_hi * s});
  }
  std::vector<plot_series> out;
  for (auto& [name, s] : by_label) {
    std::sort(s.points.begin(), s.points.end(), [](const plot_point& a, const plot_point& b) { return a.x < b.x; });
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<figure> calibration_figures(const datasets::dataset& d) {
  std::vector<figure> out = find_active_figures(d);
  // Every other scenario: one figure per metric and setting (fd kind, k, blocking, CPUs),
  // one series per mechanism, so that no figure mixes settings in one legend. call_spread's
  // medians of single calls are not a curve to read (its shapes are in model.json).
  std::map<std::string, std::vector<datasets::summary_row>> groups;
  for (const auto& r : d.summaries)
    if (r.k.scenario != scenario::find_active && r.k.scenario != scenario::call_spread && r.k.n_fds)
      groups[setting_label(r.k)].push_back(r);
  for (const auto& [label, rows] : groups) {
    std::set<std::int64_t> ns;
    for (const auto& r : rows) ns.insert(*r.k.n_fds);
    if (ns.size() < 2) continue;  // nothing to draw against n
    const auto& k0 = rows.front().k;
    std::string name = label;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    const bool log_y = k0.unit != "1/s" && k0.unit != "1";  // times span decades; rates and counts do not
    add_if_any(out, {name, label, "n", k0.metric + " (" + k0.unit + ")", true, log_y,
                     series_by(
                         rows, [](const key&) { return true; }, flavour_label)});
  }
  return out;
}

}  // namespace pollscale::app::report
