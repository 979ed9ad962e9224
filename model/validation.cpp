#include "model/validation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "datasets/csv_table.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"
#include "model/evaluate.hpp"
#include "model/fit.hpp"
#include "model/row_filter.hpp"

namespace pollscale::model {
namespace {

using group_key = std::vector<std::string>;

void check_columns(const std::vector<std::string>& cols) {
  const auto known = observation_columns();
  for (const auto& c : cols)
    if (std::find(known.begin(), known.end(), c) == known.end())
      throw std::invalid_argument("--group-by: unknown column '" + c + "'");
}

group_key group_of(const observation& o, const std::vector<std::string>& cols) {
  group_key g;
  for (const auto& c : cols) g.push_back(column_text(o, c));
  return g;
}

// Splits rows into training and held-out by the filter, evaluated per group so that
// max/min refer to the row's own group.
std::pair<std::vector<const observation*>, std::vector<const observation*>> split(
    const observation_set& data, const row_filter& f, const std::vector<std::string>& group_by) {
  std::map<group_key, std::vector<const observation*>> groups;
  for (const auto& o : data.rows)
    if (!is_machine_primitive_row(o) && !is_scaling_row(o)) groups[group_of(o, group_by)].push_back(&o);
  std::vector<const observation*> train, test;
  for (const auto& [g, rows] : groups) {
    const column_extremes ext = extremes_of(rows, f.columns_needing_extremes());
    for (const auto* o : rows) (f(*o, ext) ? train : test).push_back(o);
  }
  return {train, test};
}

// Machine facts (memory_latency, cache_line rows) always belong to the training side.
std::vector<const observation*> with_machine_facts(const observation_set& data, std::vector<const observation*> train) {
  for (const auto& o : data.rows)
    if (is_machine_primitive_row(o)) train.push_back(&o);
  return train;
}

validation_row predict_row(const cell_model& m, const observation& o, const std::vector<std::string>& group_by) {
  validation_row r;
  r.o = &o;
  r.group = group_of(o, group_by);
  r.measured = o.value;
  const point_prediction p = evaluate(m, point_of(o.k));
  r.predicted = p.value;
  r.lo = p.lo;
  r.hi = p.hi;
  r.has_interval = p.has_interval;
  r.no_interval = p.no_interval;
  r.rel_err = (p.value - o.value) / o.value;
  r.extrapolated = p.extrapolated;
  r.extrapolation = p.extrapolation_factor;
  return r;
}

}  // namespace

std::vector<std::string> default_group_by() {
  return {"platform", "scenario", "mechanism", "variant", "fd_kind", "metric"};
}

double relative_interval_score(double lo, double hi, double measured) {
  constexpr double alpha = 0.05;
  const double miss = std::max(0.0, lo - measured) + std::max(0.0, measured - hi);
  return ((hi - lo) + 2 / alpha * miss) / measured;
}

accuracy accuracy_of(const std::vector<const validation_row*>& rows) {
  accuracy a;
  std::vector<double> errs, halfwidths, scores;
  std::size_t covered = 0;
  for (const auto* r : rows) {
    if (!std::isfinite(r->rel_err)) continue;
    errs.push_back(std::abs(r->rel_err));
    if (r->has_interval) {
      ++a.n_with_interval;
      covered += r->lo <= r->measured && r->measured <= r->hi;
      halfwidths.push_back((r->hi - r->lo) / (2 * r->predicted));  // +inf for an open interval
      scores.push_back(relative_interval_score(r->lo, r->hi, r->measured));
    }
  }
  a.median_rel_halfwidth = halfwidths.empty() ? std::nan("") : datasets::median(halfwidths);
  a.median_interval_score = scores.empty() ? std::nan("") : datasets::median(scores);
  a.n = errs.size();
  if (errs.empty()) return a;
  double sum = 0;
  for (double e : errs) sum += e;
  a.mape = sum / static_cast<double>(errs.size());
  a.median_rel_err = datasets::median(errs);
  a.max_rel_err = *std::max_element(errs.begin(), errs.end());
  a.coverage = a.n_with_interval ? static_cast<double>(covered) / static_cast<double>(a.n_with_interval) : std::nan("");
  return a;
}

validation_result validate(const observation_set& data, const validation_options& opt) {
  check_columns(opt.group_by);
  const row_filter filter = row_filter::parse(opt.train);
  auto [train, test] = split(data, filter, opt.group_by);
  if (train.empty())
    throw datasets::input_error(data.source + ": --train '" + opt.train + "' selects no rows (empty training set)");
  if (test.empty())
    throw datasets::input_error(data.source + ": --train '" + opt.train + "' selects every row: nothing is held out");
  validation_result out;
  out.group_by = opt.group_by;
  out.n_train = train.size();
  out.models = fit_models(data, with_machine_facts(data, train), opt.fit);
  out.skipped = out.models.skipped;
  std::map<cell_id, const cell_model*> by_cell;
  for (const auto& m : out.models.cells) by_cell[{m.cell, m.platform, m.kernel}] = &m;
  for (const auto* o : test) {
    const auto it = by_cell.find(cell_of(*o));
    if (it == by_cell.end()) {
      out.skipped.push_back(o->where + ": " + datasets::describe(o->k) +
                            ": no model (its cell has no training rows, or was left out as unfittable)");
      continue;
    }
    auto row = predict_row(*it->second, *o, opt.group_by);
    if (!std::isfinite(row.predicted)) {
      out.skipped.push_back(o->where + ": " + datasets::describe(o->k) + ": the model gives no positive value here");
      continue;
    }
    out.rows.push_back(std::move(row));
  }
  if (out.rows.empty()) throw datasets::input_error(data.source + ": no held-out row has training rows in its cell");
  std::map<group_key, std::vector<const validation_row*>> groups;
  for (const auto& r : out.rows) groups[r.group].push_back(&r);
  std::map<group_key, std::size_t> train_counts;
  for (const auto* o : train) ++train_counts[group_of(*o, opt.group_by)];
  std::vector<const validation_row*> all;
  for (const auto& [g, rows] : groups) {
    out.groups.push_back({g, train_counts[g], accuracy_of(rows)});
    all.insert(all.end(), rows.begin(), rows.end());
  }
  out.overall = accuracy_of(all);
  return out;
}

}  // namespace pollscale::model
