#include "model/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/row_filter.hpp"

namespace pollscale::model {
namespace {

using table_id = std::tuple<datasets::key, std::string, std::string, std::string>;

table_id table_of(const observation& o) {
  datasets::key k = o.k;
  // N (n_fds) and the columns that follow it: all threads, the highest fd, how many are
  // ready, where each thread ran.
  k.threads.reset();
  k.n_fds.reset();
  k.max_fd.reset();
  k.n_active.reset();
  k.pinning.clear();
  return {k, o.platform, o.kernel, o.source};
}

std::map<table_id, std::vector<const observation*>> tables_of(const observation_set& data) {
  std::map<table_id, std::vector<const observation*>> out;
  for (const auto& o : data.rows)
    if (is_scaling_row(o) && scaling_axis(o)) out[table_of(o)].push_back(&o);
  return out;
}

// The default split: the ⌈k/2⌉ smallest of the table's k distinct N train.
bool in_smaller_half(const observation& o, const std::vector<const observation*>& rows) {
  std::set<double> ns;
  for (const auto* r : rows) ns.insert(*scaling_axis(*r));
  const std::size_t keep = (ns.size() + 1) / 2;
  const double last_kept = *std::next(ns.begin(), static_cast<std::ptrdiff_t>(keep - 1));
  return *scaling_axis(o) <= last_kept;
}

void split(const std::vector<const observation*>& rows, const std::optional<row_filter>& filter,
           std::vector<const observation*>& train, std::vector<const observation*>& held_out) {
  const column_extremes ext = filter ? extremes_of(rows, filter->columns_needing_extremes()) : column_extremes{};
  for (const auto* o : rows) {
    const bool trains = filter ? (*filter)(*o, ext) : in_smaller_half(*o, rows);
    (trains ? train : held_out).push_back(o);
  }
}

validation_row predict_row(const scaling_fit& fit, const observation& o) {
  validation_row r;
  r.o = &o;
  r.group = {o.platform, o.kernel};
  r.measured = o.value;
  const scaling_prediction p = predict_scaling(fit, *scaling_axis(o));
  r.predicted = p.value;
  r.lo = p.lo;
  r.hi = p.hi;
  r.has_interval = p.has_interval;
  r.no_interval = p.no_interval;
  r.rel_err = (p.value - o.value) / o.value;
  r.extrapolation = p.extrapolation;
  r.extrapolated = p.extrapolation > 1;
  return r;
}

scaling_table run_table(const table_id& id, const std::vector<const observation*>& rows,
                        const std::optional<row_filter>& filter, const scaling_protocol& protocol) {
  scaling_table t;
  std::tie(t.k, t.platform, t.kernel, t.source) = id;
  std::vector<const observation*> train, held_out;
  split(rows, filter, train, held_out);
  t.n_train = train.size();
  t.train = train;
  std::vector<scaling_point> pts;
  for (const auto* o : train) pts.push_back({*scaling_axis(*o), o->value});
  try {
    t.fit = fit_scaling(pts, protocol.law);
  } catch (const std::invalid_argument& e) {
    t.not_fitted = e.what();
    return t;
  }
  std::vector<const validation_row*> predicted;
  for (const auto* o : held_out) t.rows.push_back(predict_row(*t.fit, *o));
  for (const auto& r : t.rows) predicted.push_back(&r);
  if (!predicted.empty()) t.acc = accuracy_of(predicted);
  for (double n : protocol.at) t.at.emplace_back(n, predict_scaling(*t.fit, n));
  return t;
}

}  // namespace

// Every scaling scenario so far is producers, whose load is its producer threads: n_fds.
std::optional<double> scaling_axis(const observation& o) {
  if (!is_scaling_row(o) || !o.k.n_fds || *o.k.n_fds < 1) return std::nullopt;
  return static_cast<double>(*o.k.n_fds);
}

std::string_view scaling_axis_column(const datasets::key&) { return "n_fds"; }

std::string_view scaling_axis_meaning(const datasets::key&) {
  return "producer threads (n_fds: one eventfd each; the consumer is not counted)";
}

scaling_result validate_scaling(const observation_set& data, const scaling_protocol& protocol) {
  for (double n : protocol.at)
    if (!std::isfinite(n) || n < 1) throw std::invalid_argument("N to predict must be >= 1, got " + std::to_string(n));
  std::optional<row_filter> filter;
  if (!protocol.train.empty()) filter = row_filter::parse(protocol.train);
  const auto tables = tables_of(data);
  if (tables.empty())
    throw datasets::input_error(data.source + ": no rows of a CPU-scaling scenario (" +
                                std::string(datasets::name(datasets::scenario::producers)) + ") with its N");
  scaling_result out;
  std::vector<const validation_row*> all;
  for (const auto& [id, rows] : tables) {
    out.tables.push_back(run_table(id, rows, filter, protocol));
    out.n_train += out.tables.back().n_train;
  }
  for (const auto& t : out.tables)
    for (const auto& r : t.rows) all.push_back(&r);
  if (!all.empty()) out.overall = accuracy_of(all);
  return out;
}

}  // namespace pollscale::model
