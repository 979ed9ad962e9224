#include "model/fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "datasets/csv_table.hpp"
#include "datasets/json_fields.hpp"
#include "datasets/machine_facts.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::model {
namespace {

const std::string_view memory_scenario = datasets::name(datasets::scenario::memory_latency);

std::vector<latency_point> memory_points(const observation_set& data) {
  std::vector<latency_point> pts = latency_points_from_context(data.context);
  if (!pts.empty()) return pts;
  // The kernel's structures live in its huge-page direct map: prefer the probe's "thp"
  // rows (no page walks) when it has them.
  const bool have_thp = std::any_of(data.rows.begin(), data.rows.end(), [](const observation& o) {
    return o.k.scenario == memory_scenario && o.k.variant == datasets::variant::thp;
  });
  for (const auto& o : data.rows)
    if (o.k.scenario == memory_scenario && o.k.n_fds && o.k.unit == "ns" && *o.k.n_fds > 0 &&
        (!have_thp || o.k.variant == datasets::variant::thp))
      pts.push_back({64.0 * static_cast<double>(*o.k.n_fds), o.value});  // n_fds counts 64-byte lines
  return pts;
}

}  // namespace

std::map<std::string, cold_exposure, std::less<>> cold_exposures_of(const observation_set& data) {
  const std::string_view cold_scenario = datasets::name(datasets::scenario::cold_scan);
  const std::string_view cold_variant = datasets::name(datasets::variant::cold);
  // fd kind -> {warm, cold} -> n -> (sum of ns, rows): repeated rows (merged datasets) averaged.
  std::map<std::string, std::array<std::map<std::int64_t, std::pair<double, int>>, 2>> by_kind;
  for (const auto& o : data.rows) {
    if (o.k.scenario != cold_scenario || !o.k.n_fds || o.k.metric != datasets::metric::time_per_call ||
        (!o.k.variant.empty() && o.k.variant != cold_variant))
      continue;
    const double per_ns = ns_to_unit(o.k.unit);
    if (per_ns <= 0 || !std::isfinite(o.value) || o.value <= 0) continue;
    auto& cell = by_kind[o.k.fd_kind][o.k.variant == cold_variant ? 1 : 0][*o.k.n_fds];
    cell.first += o.value / per_ns;
    cell.second += 1;
  }
  const double evict =
      datasets::number_at(datasets::member(data.context, std::string(cold_scenario).c_str()), "evict_bytes")
          .value_or(0);
  std::map<std::string, cold_exposure, std::less<>> out;
  for (const auto& [kind, variants] : by_kind) {
    std::vector<std::int64_t> both;
    for (const auto& [n, v] : variants[0])
      if (variants[1].count(n)) both.push_back(n);
    if (both.size() < 2) continue;
    const std::int64_t lo = both.front(), hi = both.back();
    const auto slope = [&](const std::map<std::int64_t, std::pair<double, int>>& v) {
      const auto mean = [&](std::int64_t n) { return v.at(n).first / v.at(n).second; };
      return (mean(hi) - mean(lo)) / static_cast<double>(hi - lo);
    };
    out[kind] = {slope(variants[1]) - slope(variants[0]), std::max(0.0, evict), lo, hi};
  }
  return out;
}

fit_environment environment_of(const observation_set& data) {
  fit_environment env;
  if (data.historical) return env;  // no cache geometry was recorded for those machines
  // A scan walks the same fds in the same order every call, as the probe's chase walks its
  // lines: it gets the capacity the probe found. The token ring keeps the listed sizes: its
  // rise past L2 (38% of its plateau at 1.6 x L2 on quick-1) is what its term was shaped on.
  // A blocking scan locks and writes each fd's wait queue (an entry added, then removed),
  // a socket's state lies scattered over slabs: no stream the prefetchers follow, so past a
  // capacity every fd pays its chain of misses as the probe's chase does: such scans take
  // the probe's own curve (dense grids only; scan_streams).
  const auto caches = caches_from_context(data.context);
  const auto points = memory_points(data);
  env.curve = make_latency_curve(caches, points, knee_placement::probe_cliffs);
  env.ring_curve = make_latency_curve(caches, points, knee_placement::listed);
  env.non_streaming_curve = make_latency_curve(caches, points, knee_placement::probe_shape);
  env.cold_exposures = cold_exposures_of(data);
  if (const auto limit = datasets::read_machine_facts(data.context).rlimit_sigpending; limit && limit->soft)
    env.signal_queue_limit = static_cast<double>(*limit->soft);
  return env;
}

std::vector<std::pair<cell_id, std::vector<const observation*>>> cells_of(const std::vector<const observation*>& rows) {
  std::map<cell_id, std::vector<const observation*>> groups;
  for (const auto* o : rows)
    if (!is_machine_primitive_row(*o) && !is_scaling_row(*o)) groups[cell_of(*o)].push_back(o);
  return {groups.begin(), groups.end()};
}

model_set fit_models(const observation_set& data, const std::vector<const observation*>& rows,
                     const fit_options& options) {
  const auto cells = cells_of(rows);
  const auto scaling = std::count_if(rows.begin(), rows.end(), [](const observation* o) { return is_scaling_row(*o); });
  if (cells.empty() && scaling == 0) throw datasets::input_error(data.source + ": no rows to fit");
  fit_environment env = environment_of(data);
  if (!options.measured_step) env.cold_exposures.clear();
  model_set out;
  out.context = data.context;
  out.source = data.source;
  out.statistic = std::string(statistic_name(data.statistic));
  out.drift = data.drift;
  out.call_spread = data.call_spread;
  out.placement = data.placement;
  try {  // a machine fact beside the cells: a series it cannot fit must not cost the cells their fit
    out.cpu_scaling = fit_cpu_scaling(data);
    out.serial_stages = stage_holds_of(out.cpu_scaling);
  } catch (const std::invalid_argument& e) {
    out.skipped.push_back(std::string("CPU-scaling laws: ") + e.what());
  }
  if (scaling > 0)
    out.skipped.push_back(
        std::to_string(scaling) +
        " rows of CPU-scaling scenarios: no cost cell; their scalability laws are kept in cpu_scaling "
        "(`pollscale predict --cpus`, `pollscale scale`)");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& [id, members] = cells[i];
    try {
      out.cells.push_back(fit_cell(id, members, env, options));
    } catch (const too_few_points& e) {
      if (!options.skip_unfittable)
        throw too_few_points(std::string(e.what()) + "; such cells are left out unless --strict");
      out.skipped.push_back(e.what());
    }
    if (options.progress) options.progress(i + 1, cells.size());
  }
  // A CPU-scaling campaign measures no cost cell: its laws are the model (predict --cpus).
  if (out.cells.empty() && out.cpu_scaling.empty())
    throw datasets::input_error(data.source +
                                (cells.empty() ? ": its CPU-scaling rows fit no law" : ": no cell could be fitted"));
  return out;
}

model_set fit_models(const observation_set& data, const fit_options& options) {
  std::vector<const observation*> rows;
  for (const auto& o : data.rows) rows.push_back(&o);
  return fit_models(data, rows, options);
}

}  // namespace pollscale::model
