#include "model/prediction.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

#include "model/evaluate.hpp"

namespace pollscale::model {
namespace {

constexpr std::string_view cell_columns[] = {"scenario", "mechanism", "variant", "fd_kind", "blocking",
                                             "threads",  "cpus",      "pinning", "metric",  "unit"};

// A query column left empty matches anything; a filled one must equal the cell's. The
// fields are compared as typed (cell_columns lists the same ten): this runs for every cell
// of the model set on every prediction, and formatting each as text cost most of one.
bool matches(const cell_model& m, const datasets::key& q) {
  const datasets::key& c = m.cell;
  auto text = [](const std::string& want, const std::string& have) { return want.empty() || want == have; };
  auto number = [](const std::optional<std::int64_t>& want, const std::optional<std::int64_t>& have) {
    return !want || want == have;
  };
  return text(q.scenario, c.scenario) && text(q.mechanism, c.mechanism) && text(q.variant, c.variant) &&
         text(q.fd_kind, c.fd_kind) && number(q.blocking, c.blocking) && number(q.threads, c.threads) &&
         number(q.cpus, c.cpus) && text(q.pinning, c.pinning) && text(q.metric, c.metric) && text(q.unit, c.unit);
}

std::string label(const cell_model& m) {
  std::string s = datasets::describe(m.cell);
  if (!m.platform.empty() || !m.kernel.empty()) s += " @ " + m.platform + ", " + m.kernel;
  return s;
}

// The columns whose values tell the candidates apart, e.g. "fd_kind (eventfd, pipe)".
std::string distinguishing(const std::vector<const cell_model*>& c) {
  std::string out;
  for (auto col : cell_columns) {
    std::set<std::string> values;
    for (const auto* m : c) values.insert(datasets::key_field(m->cell, col));
    if (values.size() < 2) continue;
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + (v.empty() ? std::string("<empty>") : v);
    out += (out.empty() ? "" : "; ") + std::string(col) + " (" + list + ")";
  }
  std::set<std::string> platforms;
  for (const auto* m : c) platforms.insert(m->platform + ", " + m->kernel);
  if (out.empty() && platforms.size() > 1) out = "platform/kernel (historical models of several machines)";
  return out;
}

}  // namespace

std::vector<const cell_model*> matching_models(const model_set& models, const datasets::key& query) {
  std::vector<const cell_model*> out;
  for (const auto& m : models.cells)
    if (matches(m, query)) out.push_back(&m);
  return out;
}

prediction predict(const model_set& models, const datasets::key& query) {
  const auto found = matching_models(models, query);
  if (found.empty()) throw std::invalid_argument("no model matches " + datasets::describe(query));
  if (found.size() > 1)
    throw std::invalid_argument(std::to_string(found.size()) + " models match " + datasets::describe(query) +
                                "; choose by " + distinguishing(found));
  const cell_model& m = *found.front();
  if (uses_n(m) && !query.n_fds) throw std::invalid_argument("the model of " + label(m) + " needs n_fds");
  const point x = point_of(query);
  const point_prediction p = evaluate(m, x);
  if (!std::isfinite(p.value))
    throw std::invalid_argument("the model of " + label(m) + " gives no positive value at " +
                                datasets::describe(query));
  prediction out;
  out.value = p.value;
  out.lo = p.lo;
  out.hi = p.hi;
  out.has_interval = p.has_interval;
  out.no_interval = p.no_interval;
  out.unit = m.cell.unit;
  out.extrapolated = p.extrapolated;
  out.extrapolation_factor = p.extrapolation_factor;
  out.formula = m.formula;
  out.model = label(m);
  return out;
}

prediction to_si(const prediction& p) {
  const double f = datasets::to_si_factor(p.unit);
  prediction out = p;
  out.value *= f;
  out.lo *= f;
  out.hi *= f;
  out.unit = p.unit.starts_with("1/") ? "1/s" : "s";
  return out;
}

}  // namespace pollscale::model
