#include "model/observations.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include "datasets/csv_table.hpp"
#include "datasets/dataset.hpp"
#include "datasets/fast_mode.hpp"
#include "datasets/historical.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::model {
namespace {

namespace fs = std::filesystem;
using datasets::input_error;

observation_set from_dataset(const fs::path& dir, point_statistic statistic) {
  auto d = datasets::read_dataset(dir);
  if (statistic == point_statistic::adjusted) d = datasets::adjusted_to_fast_mode(std::move(d), dir);
  observation_set out;
  out.context = d.context;
  out.source = dir.string();
  out.statistic = statistic;
  out.drift = datasets::estimate_simultaneous_drift(d.samples);
  out.call_spread = datasets::estimate_call_spread(d.samples);
  out.placement = datasets::estimate_placement_states(d.placement_sentinel, d.wake_sentinel);
  std::map<datasets::key, std::vector<double>> samples;
  std::map<datasets::key, std::map<std::int64_t, std::vector<double>>> visits;
  for (const auto& s : d.samples) {
    samples[s.k].push_back(s.value);
    visits[s.k][s.visit].push_back(s.value);
  }
  // The summary's name as read (the machine corpus may keep it gzipped), for each row's where.
  const fs::path summary = datasets::plain_or_gzip(dir, "summary.csv").value_or(dir / "summary.csv");
  std::size_t line = 1;
  out.rows.reserve(d.summaries.size());  // no doubling of a million rows on the way
  for (const auto& r : d.summaries) {
    ++line;  // summary.csv has one record per line after its header
    observation o;
    o.k = r.k;
    const bool rate = r.k.unit.starts_with("1/");  // the fastest batch of a rate is its largest
    o.value = statistic == point_statistic::fastest ? (rate ? r.s.max : r.s.min) : r.s.median;
    // The bootstrap resamples medians from raw samples; for the fastest batch it perturbs
    // the fit by its residuals instead (a resampled minimum is no estimate of its spread).
    if (auto it = samples.find(r.k); it != samples.end() && statistic != point_statistic::fastest) {
      o.samples = it->second;
      if (const auto& v = visits[r.k]; v.size() >= 2)
        for (const auto& [visit, values] : v) o.visit_medians.push_back(datasets::median(values));
    }
    o.where = summary.string() + ":" + std::to_string(line);
    out.rows.push_back(std::move(o));
  }
  if (out.rows.empty()) throw input_error(summary.string() + ": no measured points");
  return out;
}

observation from_historical(const datasets::historical_row& h, const fs::path& file) {
  observation o;
  o.k = h.k;
  o.value = h.value;
  o.platform = h.platform;
  o.kernel = h.kernel;
  o.source = h.source;
  o.where = file.string() + ":" + std::to_string(h.line);
  return o;
}

observation_set from_historical_file(const fs::path& file) {
  observation_set out;
  out.historical = true;
  out.source = file.string();
  for (const auto& h : datasets::read_historical(file)) out.rows.push_back(from_historical(h, file));
  if (out.rows.empty()) throw input_error(file.string() + ": no rows");
  return out;
}

observation_set load_any(const fs::path& path, point_statistic statistic);

}  // namespace

std::string_view statistic_name(point_statistic s) {
  switch (s) {
    case point_statistic::median: return "median";
    case point_statistic::fastest: return "fastest";
    case point_statistic::adjusted: return "adjusted";
  }
  return "median";
}

point_statistic parse_point_statistic(std::string_view text) {
  for (const auto s : {point_statistic::median, point_statistic::fastest, point_statistic::adjusted})
    if (text == statistic_name(s)) return s;
  throw std::invalid_argument("'" + std::string(text) + "' is not one of median, fastest, adjusted");
}

observation_set load_observations(const fs::path& path, point_statistic statistic) {
  observation_set s = load_any(path, statistic);
  rank_n_within_cells(s);
  return s;
}

bool is_scaling_row(const observation& o) {
  const auto s = datasets::parse<datasets::scenario>(o.k.scenario);
  return s && datasets::scales_with_threads(*s);
}

bool is_machine_primitive_row(const observation& o) {
  const auto s = datasets::parse<datasets::scenario>(o.k.scenario);
  return s && datasets::is_machine_primitive(*s);
}

void rank_n_within_cells(observation_set& set) {
  std::map<cell_id, std::vector<std::int64_t>> ns;
  for (const auto& o : set.rows)
    if (o.k.n_fds) ns[cell_of(o)].push_back(*o.k.n_fds);
  for (auto& [cell, v] : ns) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  for (auto& o : set.rows) {
    if (!o.k.n_fds) continue;
    const auto& v = ns[cell_of(o)];
    o.n_rank = std::lower_bound(v.begin(), v.end(), *o.k.n_fds) - v.begin();
  }
}

namespace {

observation_set load_any(const fs::path& path, point_statistic statistic) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (fs::exists(path / "context.json")) return from_dataset(path, statistic);
    if (datasets::plain_or_gzip(path, "summary.csv"))
      throw input_error((path / "context.json").string() + ": missing (a dataset directory needs context.json)");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path))
      if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path());
    if (files.empty())
      throw input_error(path.string() + ": neither a dataset (no context.json) nor a directory of historical CSVs");
    std::sort(files.begin(), files.end());
    observation_set all;
    all.historical = true;
    all.source = path.string();
    for (const auto& f : files) {
      auto one = from_historical_file(f);
      all.rows.insert(all.rows.end(), one.rows.begin(), one.rows.end());
    }
    return all;
  }
  if (!fs::exists(path, ec)) throw input_error(path.string() + ": no such file or directory");
  return from_historical_file(path);
}

}  // namespace

std::vector<fs::path> find_sources(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec) || fs::exists(path / "context.json")) return {path};
  std::vector<fs::path> found;
  bool has_csv = false;
  for (const auto& e : fs::directory_iterator(path, ec))
    has_csv |= e.is_regular_file() && e.path().extension() == ".csv";
  if (has_csv) return {path};  // a directory of historical CSVs
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_directory()) continue;
    if (it->path().filename().string().starts_with(".")) {
      // Hidden: the old contents a killed write left beside a dataset (".NAME.XXXXXX",
      // datasets/directory_swap.hpp), or a tool's own; never a source of its own.
      it.disable_recursion_pending();
      continue;
    }
    if (fs::exists(it->path() / "context.json")) {
      found.push_back(it->path());
      it.disable_recursion_pending();  // a dataset holds no datasets
    }
  }
  if (ec) throw input_error(path.string() + ": " + ec.message());
  if (found.empty())
    throw input_error(path.string() +
                      ": neither a dataset (no context.json), a directory of historical CSVs, "
                      "nor a directory with datasets beneath it");
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string_view> observation_columns() {
  std::vector<std::string_view> cols(datasets::key_columns().begin(), datasets::key_columns().end());
  for (std::string_view c : {"platform", "kernel", "source", "n_rank"}) cols.push_back(c);
  return cols;
}

std::string column_text(const observation& o, std::string_view column) {
  if (column == "n_rank") return o.n_rank < 0 ? std::string() : std::to_string(o.n_rank);
  if (column == "platform") return o.platform;
  if (column == "kernel") return o.kernel;
  if (column == "source") return o.source;
  return datasets::key_field(o.k, column);  // throws std::invalid_argument when unknown
}

cell_id cell_of(const observation& o) {
  cell_id c{o.k, o.platform, o.kernel};
  c.k.n_fds.reset();
  c.k.n_active.reset();
  c.k.active_pos.clear();
  c.k.max_fd.reset();
  return c;
}

std::string describe_cell(const cell_id& c) {
  std::string out = datasets::describe(c.k);
  if (!c.platform.empty() || !c.kernel.empty()) out += " @ " + c.platform + ", " + c.kernel;
  return out;
}

}  // namespace pollscale::model
