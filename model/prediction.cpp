#include "model/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <set>
#include <stdexcept>

#include "datasets/vocabulary.hpp"
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
  auto text = [](const std::string& want, const std::string& have) {
    return want.empty() || want == have || (have.empty() && want == empty_column);
  };
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
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + (v.empty() ? std::string(empty_column) : v);
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

namespace {

// How a cell differs from a query: the filled query columns it does not match, counted and
// written as "column value, ..." (none: it matches).
struct cell_difference {
  std::size_t columns = 0;
  std::string text;
  const cell_model* cell = nullptr;
};

cell_difference difference(const cell_model& m, const datasets::key& q) {
  cell_difference d{0, "", &m};
  for (auto col : cell_columns) {
    const std::string want = datasets::key_field(q, col);
    const std::string have = datasets::key_field(m.cell, col);
    if (want.empty() || want == have || (have.empty() && want == empty_column)) continue;
    d.text += (d.columns++ ? ", " : "") + std::string(col) + " " + (have.empty() ? std::string(empty_column) : have);
  }
  return d;
}

void add_nearest(cell_lookup& r, const model_set& models, const datasets::key& query) {
  constexpr std::size_t listed = 5;
  std::vector<cell_difference> diffs;
  for (const auto& m : models.cells) diffs.push_back(difference(m, query));
  std::size_t fewest = SIZE_MAX;
  for (const auto& d : diffs) fewest = std::min(fewest, d.columns);
  std::erase_if(diffs, [&](const cell_difference& d) { return d.columns != fewest; });
  std::sort(diffs.begin(), diffs.end(), [](const auto& a, const auto& b) {
    return std::pair(label(*a.cell), a.text) < std::pair(label(*b.cell), b.text);
  });
  for (std::size_t i = 0; i < diffs.size() && i < listed; ++i) {
    r.nearest.push_back(diffs[i].cell);
    r.nearest_difference.push_back(diffs[i].text);
  }
}

// The prediction of cell `m` at `query`, or the reason there is none.
std::optional<prediction> predict_at(const cell_model& m, const datasets::key& query, std::string& why) {
  if (uses_n(m) && !query.n_fds) {
    why = "the model of " + label(m) + " needs n_fds";
    return std::nullopt;
  }
  const point_prediction p = evaluate(m, point_of(query));
  if (!std::isfinite(p.value)) {
    why = "the model of " + label(m) + " gives no positive value at " + datasets::describe(query);
    return std::nullopt;
  }
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

}  // namespace

std::string cell_lookup::why(const datasets::key& query) const {
  if (model) return "";
  if (!ambiguous.empty())
    return std::to_string(ambiguous.size()) + " models match " + datasets::describe(query) + "; choose by " +
           distinguishing(ambiguous);
  std::string out = "no model matches " + datasets::describe(query);
  for (std::size_t i = 0; i < nearest.size(); ++i)
    out += (i == 0 ? "; nearest: " : ", ") + label(*nearest[i]) + " (" + nearest_difference[i] + ")";
  return out;
}

namespace {

// A timeout-0 call asked without `threads` is the single-threaded process's (the textbook
// call, and what every model before the two-thread cells answered): among matching cells
// that are all timeout-0 calls, those of one thread, when that leaves one.
void prefer_one_thread_calls(std::vector<const cell_model*>& found, const datasets::key& query) {
  if (found.size() < 2 || query.threads) return;
  const bool all_calls = std::all_of(found.begin(), found.end(), [](const cell_model* m) {
    return m->cell.blocking.value_or(1) == 0 && m->cell.metric == datasets::metric::time_per_call;
  });
  if (!all_calls) return;
  std::vector<const cell_model*> one;
  std::copy_if(found.begin(), found.end(), std::back_inserter(one),
               [](const cell_model* m) { return datasets::one_thread(m->cell); });
  if (one.size() == 1) found = std::move(one);
}

}  // namespace

cell_lookup find_cell(const model_set& models, const datasets::key& query) {
  cell_lookup r;
  auto found = matching_models(models, query);
  prefer_one_thread_calls(found, query);
  if (found.size() == 1)
    r.model = found.front();
  else if (found.size() > 1)
    r.ambiguous = std::move(found);
  else
    add_nearest(r, models, query);
  return r;
}

std::optional<prediction> try_predict(const model_set& models, const datasets::key& query, std::string* why) {
  const cell_lookup cell = find_cell(models, query);
  std::string reason;
  std::optional<prediction> p = cell.model ? predict_at(*cell.model, query, reason) : std::nullopt;
  if (!cell.model) reason = cell.why(query);
  if (!p && why) *why = reason;
  return p;
}

prediction predict(const model_set& models, const datasets::key& query) {
  std::string why;
  if (auto p = try_predict(models, query, &why)) return *p;
  throw std::invalid_argument(why);
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

model_set of_machine(model_set models, const std::string& platform, const std::string& kernel) {
  for (const bool by_platform : {true, false}) {
    const std::string& want = by_platform ? platform : kernel;
    if (want.empty()) continue;
    std::erase_if(models.cells, [&](const cell_model& m) { return (by_platform ? m.platform : m.kernel) != want; });
    if (models.cells.empty())
      throw std::invalid_argument(std::string(by_platform ? "platform" : "kernel") + ": no cell of the model is of '" +
                                  want + "'");
  }
  return models;
}

}  // namespace pollscale::model
