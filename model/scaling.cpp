#include "model/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/forms.hpp"
#include "model/row_filter.hpp"

namespace pollscale::model {
namespace {

using table_id = std::tuple<datasets::key, std::string, std::string, std::string>;

table_id table_of(const observation& o) { return {scaling_table_key(o), o.platform, o.kernel, o.source}; }

// A row whose threads all found a CPU of their own (cpus == threads) ran the same
// experiment in every series at least that wide: calibrate lists it once (a T = 1 point of
// a 4-CPU series is the T = 1 point of the 2-CPU one). A row with fewer CPUs than threads
// belongs to the series of exactly its cpus.
bool fits_its_cpus(const observation& o) { return o.k.cpus && o.k.threads && *o.k.cpus >= *o.k.threads; }

std::map<table_id, std::vector<const observation*>> tables_of(const observation_set& data) {
  std::map<table_id, std::vector<const observation*>> out;
  // Series widths (C) per table without its cpus column, from the rows that fill theirs.
  std::map<table_id, std::set<std::int64_t>> widths;
  for (const auto& o : data.rows) {
    if (!is_scaling_row(o) || !scaling_axis(o)) continue;
    auto id = table_of(o);
    std::get<0>(id).cpus.reset();
    if (o.k.cpus && !fits_its_cpus(o)) widths[id].insert(*o.k.cpus);
  }
  for (const auto& o : data.rows) {
    if (!is_scaling_row(o) || !scaling_axis(o)) continue;
    table_id id = table_of(o);
    auto wide = std::get<0>(id);
    wide.cpus.reset();
    const auto& ws = widths[{wide, std::get<1>(id), std::get<2>(id), std::get<3>(id)}];
    bool placed = false;
    if (fits_its_cpus(o))
      for (auto c = ws.lower_bound(*o.k.cpus); c != ws.end(); ++c, placed = true) {
        std::get<0>(id).cpus = *c;
        out[id].push_back(&o);
      }
    if (!placed) out[table_of(o)].push_back(&o);
  }
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

// Where the table measured more N than its training rows hold (a series that starts past
// the split, as the one-token ring starts at two threads), which N trained and which were
// measured: the reason a law is missing is then the protocol's split, not the table.
std::string training_note(const std::vector<const observation*>& train, const std::vector<const observation*>& rows) {
  auto distinct_n = [](const std::vector<const observation*>& of) {
    std::set<double> ns;
    for (const auto* o : of) ns.insert(*scaling_axis(*o));
    return ns;
  };
  const auto all = distinct_n(rows);
  const auto trained = distinct_n(train);
  if (all.size() < 2 || trained.size() == all.size()) return "";
  auto list = [](const std::set<double>& ns) {
    std::string out;
    for (double n : ns) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", n);
      out += (out.empty() ? "" : ", ") + std::string(buf);
    }
    return out.empty() ? std::string("none") : out;
  };
  return " (the training rows hold N = " + list(trained) + " of the N = " + list(all) + " measured)";
}

scaling_table fit_table(const table_id& id, const std::vector<const observation*>& rows,
                        const std::optional<row_filter>& filter, const scaling_protocol& protocol,
                        std::vector<const observation*>& held_out) {
  scaling_table t;
  std::tie(t.k, t.platform, t.kernel, t.source) = id;
  std::vector<const observation*> train;
  split(rows, filter, train, held_out);
  t.n_train = train.size();
  t.train = train;
  std::vector<scaling_point> pts;
  for (const auto* o : train) pts.push_back(scaling_point_of(*o));
  try {
    t.fit = fit_scaling(pts, protocol.law);
  } catch (const std::invalid_argument& e) {
    t.not_fitted = e.what() + training_note(train, rows);
  }
  return t;
}

// The fitted table with the same key and provenance on the fewest CPUs below t's, if any.
const scaling_table* capacity_sibling(const scaling_table& t, const std::vector<scaling_table>& all) {
  if (!t.k.cpus) return nullptr;
  const scaling_table* best = nullptr;
  for (const auto& o : all) {
    if (!o.fit || !o.k.cpus || *o.k.cpus >= *t.k.cpus || o.platform != t.platform || o.kernel != t.kernel ||
        o.source != t.source)
      continue;
    datasets::key a = o.k, b = t.k;
    a.cpus.reset();
    b.cpus.reset();
    if (a == b && (!best || *o.k.cpus < *best->k.cpus)) best = &o;
  }
  return best;
}

// Predicts n for table t: its law, capped by the capacity of its sibling on fewer CPUs and,
// past one thread per CPU, by what its CPUs gain from sharing.
scaling_prediction predict_in(const scaling_table& t, const scaling_table* sibling, double n, scaling_limit& limit) {
  scaling_prediction p = predict_scaling(*t.fit, n);
  limit = scaling_limit::law;
  if (!sibling) return p;
  const std::int64_t c = *t.k.cpus, c0 = *sibling->k.cpus;
  bool wins = false;
  p = capped(p, scaled(predict_scaling(*sibling->fit, n), static_cast<double>(c) / static_cast<double>(c0)), wins);
  if (wins) limit = scaling_limit::cpu_capacity;
  if (n > static_cast<double>(c)) {
    p = capped(p, oversubscribed(*t.fit, c, *sibling->fit, c0, n), wins);
    if (wins) limit = scaling_limit::oversubscribed;
  }
  return p;
}

void predict_table(scaling_table& t, const scaling_table* sibling, const std::vector<const observation*>& held_out,
                   const scaling_protocol& protocol) {
  if (!t.fit) return;
  if (sibling) t.bound_cpus = *sibling->k.cpus;
  std::vector<const validation_row*> predicted;
  for (const auto* o : held_out) {
    scaling_limit limit = scaling_limit::law;
    const scaling_prediction p = predict_in(t, sibling, *scaling_axis(*o), limit);
    t.rows.push_back(scaling_row(p, *o));
    t.row_limit.push_back(limit);
  }
  for (const auto& r : t.rows) predicted.push_back(&r);
  if (!predicted.empty()) t.acc = accuracy_of(predicted);
  for (double n : protocol.at) {
    scaling_limit limit = scaling_limit::law;
    t.at.emplace_back(n, predict_in(t, sibling, n, limit));
    t.at_limit.push_back(limit);
  }
}

}  // namespace

datasets::key scaling_table_key(const observation& o) {
  datasets::key k = o.k;
  // N (n_fds) and the columns that follow it: all threads, the highest fd, how many are
  // ready where that is one per thread (a shared_epoll ring with one token for any N keeps
  // its n_active: another table; accept_herd's one connection in flight never follows N),
  // where each thread ran.
  k.threads.reset();
  if (k.n_active == k.n_fds && k.scenario != datasets::scenario::accept_herd) k.n_active.reset();
  k.n_fds.reset();
  k.max_fd.reset();
  k.pinning.clear();
  return k;
}

validation_row scaling_row(const scaling_prediction& p, const observation& o) {
  validation_row r;
  r.o = &o;
  r.group = {o.platform, o.kernel};
  r.measured = o.value;
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

const char* name(scaling_limit l) {
  switch (l) {
    case scaling_limit::law: return "law";
    case scaling_limit::cpu_capacity: return "cpu_capacity";
    case scaling_limit::oversubscribed: return "oversubscribed";
  }
  return "law";
}

scaling_prediction oversubscribed(const scaling_fit& own, std::int64_t cpus, const scaling_fit& narrower,
                                  std::int64_t c0, double n) {
  const double c = static_cast<double>(cpus), narrow = static_cast<double>(c0);
  // Threads per CPU n/c on the narrower table's c0 CPUs: c0·n/c threads there.
  const double gain =
      std::max(1.0, predict_scaling(narrower, narrow * n / c).value / predict_scaling(narrower, narrow).value);
  scaling_prediction p = scaled(predict_scaling(own, c), gain);
  p.extrapolation = predict_scaling(own, n).extrapolation;
  return p;
}

scaling_prediction scaled(scaling_prediction p, double factor) {
  p.value *= factor;
  p.lo *= factor;
  p.hi *= factor;
  return p;
}

scaling_prediction capped(const scaling_prediction& law, const scaling_prediction& bound, bool& bound_wins) {
  bound_wins = bound.value < law.value;
  scaling_prediction p = bound_wins ? bound : law;
  p.extrapolation = law.extrapolation;
  if (law.has_interval && bound.has_interval) {
    p.lo = std::min(law.lo, bound.lo);
    p.hi = std::min(law.hi, bound.hi);
  }
  return p;
}

// N is n_fds in every scaling scenario: producers' producer threads (one eventfd each),
// private_sets' threads and private_processes' processes (one pipe each), shared_epoll's threads (one pipe of the ring
// each). The law is of a rate: a row that counts (shared_epoll's wake-ups per pass) is not on it.
std::optional<double> scaling_axis(const observation& o) {
  if (!is_scaling_row(o) || !is_rate(o.k) || !o.k.n_fds || *o.k.n_fds < 1) return std::nullopt;
  return static_cast<double>(*o.k.n_fds);
}

scaling_point scaling_point_of(const observation& o) {
  return {*scaling_axis(o), o.value, o.visit_medians.size(), datasets::visit_median_log_se(o.visit_medians)};
}

std::string_view scaling_axis_column(const datasets::key&) { return "n_fds"; }

std::string_view scaling_axis_meaning(const datasets::key& k) {
  const auto s = datasets::parse<datasets::scenario>(k.scenario);
  if (s == datasets::scenario::private_sets) return "threads (n_fds: one pipe each, every thread its own)";
  if (s == datasets::scenario::private_processes)
    return "processes of one thread (n_fds: one pipe each, every process its own)";
  if (s == datasets::scenario::shared_epoll) return "threads (n_fds: the ring's pipes, one per thread, all shared)";
  if (s == datasets::scenario::accept_herd) return "threads (n_fds: the waiters, all on one listening socket)";
  return "producer threads (n_fds: one eventfd each; the consumer is not counted)";
}

std::string scaling_axis_legend(const std::vector<datasets::key>& keys) {
  std::map<std::string, std::string_view> meanings;  // by scenario
  for (const auto& k : keys) meanings.emplace(k.scenario, scaling_axis_meaning(k));
  std::string out;
  for (const auto& [scenario, meaning] : meanings)
    out += (out.empty() ? "" : "; ") + (meanings.size() > 1 ? scenario + ": " : std::string()) + std::string(meaning);
  return out;
}

std::string scaling_scenario_names() {
  std::string out;
  for (auto s : datasets::all<datasets::scenario>())
    if (datasets::scales_with_threads(s)) out += (out.empty() ? "" : ", ") + std::string(datasets::name(s));
  return out;
}

scaling_result validate_scaling(const observation_set& data, const scaling_protocol& protocol) {
  for (double n : protocol.at)
    if (!std::isfinite(n) || n < 1) throw std::invalid_argument("N to predict must be >= 1, got " + std::to_string(n));
  std::optional<row_filter> filter;
  if (!protocol.train.empty()) filter = row_filter::parse(protocol.train);
  const auto tables = tables_of(data);
  if (tables.empty())
    throw datasets::input_error(data.source + ": no rows of a CPU-scaling scenario (" + scaling_scenario_names() +
                                ") with its N");
  scaling_result out;
  std::vector<std::vector<const observation*>> held_out;
  for (const auto& [id, rows] : tables) {
    held_out.emplace_back();
    out.tables.push_back(fit_table(id, rows, filter, protocol, held_out.back()));
    out.n_train += out.tables.back().n_train;
  }
  for (std::size_t i = 0; i < out.tables.size(); ++i)
    predict_table(out.tables[i], capacity_sibling(out.tables[i], out.tables), held_out[i], protocol);
  std::vector<const validation_row*> all;
  for (const auto& t : out.tables)
    for (const auto& r : t.rows) all.push_back(&r);
  if (!all.empty()) out.overall = accuracy_of(all);
  return out;
}

}  // namespace pollscale::model
