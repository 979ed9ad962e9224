#include "model/fit.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "datasets/csv_table.hpp"
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
  const fit_environment env = environment_of(data);
  model_set out;
  out.context = data.context;
  out.source = data.source;
  out.statistic = std::string(statistic_name(data.statistic));
  out.drift = data.drift;
  out.call_spread = data.call_spread;
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
