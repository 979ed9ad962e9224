#include "model/scaling_wider.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/model_set.hpp"
#include "model/scaling.hpp"

namespace pollscale::model {
namespace {

using family_id = std::tuple<datasets::key, std::string, std::string, std::string>;

// The scaling table's key (scaling.hpp) without the CPUs: every series of the experiment.
family_id family_of(const observation& o) {
  datasets::key k = scaling_table_key(o);
  k.cpus.reset();
  return {k, o.platform, o.kernel, o.source};
}

bool usable(const observation& o) { return is_scaling_row(o) && scaling_axis(o) && o.k.cpus && o.k.threads; }

// Every thread on a CPU of its own: the same experiment on any machine at least this wide.
bool dedicated(const observation& o) { return *o.k.cpus >= *o.k.threads; }

// The straight line through one point, X = γ·N: it fits exactly, so its interval, where
// there is one, is the point's own from its visits (interval_from_visits).
scaling_fit line_through(const scaling_point& p) {
  scaling_fit f;
  f.law = scaling_law::linear;
  f.gamma = p.throughput / p.n;
  f.covariance.setConstant(not_available);
  f.df = 0;
  f.residual_sd = not_available;
  f.loo = not_available;
  f.points = 1;
  f.n_min = f.n_max = p.n;
  interval_from_visits(f, std::span<const scaling_point>(&p, 1));
  return f;
}

// The law of `rows` by the selection rules; one distinct N gives the line through their
// mean. Empty (and `note` says why) when there are none or the fit refuses them.
std::optional<scaling_fit> fit_rows(const std::vector<const observation*>& rows, const scaling_options& law,
                                    std::string& note) {
  std::vector<scaling_point> pts;
  std::set<double> ns;
  double sum = 0;
  for (const auto* o : rows) {
    pts.push_back(scaling_point_of(*o));
    ns.insert(pts.back().n);
    sum += o->value;
  }
  if (pts.empty()) {
    note = "no rows";
    return std::nullopt;
  }
  // Several rows at one N: the line through their mean, which no single row's visits describe.
  if (ns.size() == 1)
    return line_through(pts.size() == 1 ? pts.front()
                                        : scaling_point{*ns.begin(), sum / static_cast<double>(pts.size())});
  try {
    return fit_scaling(pts, law);
  } catch (const std::invalid_argument& e) {
    note = e.what();
    return std::nullopt;
  }
}

// The rows of the series of c CPUs: those measured on exactly c, and the dedicated rows
// that fit in c.
std::vector<const observation*> series_rows(const std::vector<const observation*>& rows, std::int64_t c) {
  std::vector<const observation*> out;
  for (const auto* o : rows)
    if (dedicated(*o) ? *o->k.cpus <= c : *o->k.cpus == c) out.push_back(o);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return *a->k.n_fds < *b->k.n_fds; });
  return out;
}

// The serial stage's hold time, fitted on the widest series of 2 <= c <= C0 CPUs against
// the narrowest series' demand at each T.
void fit_serial(wider_family& f, const std::vector<const observation*>& rows, std::int64_t from_cpus) {
  if (!f.capacity_fit) {
    f.serial_note = "no narrowest series to give an operation's demand";
    return;
  }
  std::int64_t width = 0;
  for (auto c : f.measured_cpus)
    if (c >= 2 && c <= from_cpus) width = c;
  if (width == 0) {
    f.serial_note = "no series of 2 to " + std::to_string(from_cpus) + " CPUs measured";
    return;
  }
  f.serial_rows = series_rows(rows, width);
  std::vector<serial_stage_point> points;
  for (const auto* o : f.serial_rows) {
    const double n = *scaling_axis(*o);
    points.push_back({n, operation_demand(*f.capacity_fit, *f.capacity_cpus, n), o->value});
  }
  try {
    f.serial_fit = fit_serial_stage(points, width);
  } catch (const std::invalid_argument& e) {
    f.serial_note = e.what();
  }
}

// producers measured on one CPU alone: one producer and its consumer apart as a pipeline,
// its parts split from the one-CPU series less the consumer's switches where they were counted.
void fit_one_producer(wider_family& f, const observation_set& data, const std::optional<line_estimate>& line) {
  if (f.k.scenario != datasets::scenario::producers || f.dedicated_fit || f.capacity_cpus != 1) return;
  if (!line) {
    f.pipeline_note = "no cache line measured between two CPUs (scenario cache_line, pinning 0+1)";
    return;
  }
  std::vector<one_cpu_row> rows;
  for (const auto* o : f.capacity_rows)
    rows.push_back({*scaling_axis(*o), o->value, wakeups_at(data, *o).value_or(NAN)});
  if (f.k.unit != "1/s")
    f.pipeline_note = "a rate in " + f.k.unit + ", not events per second";
  else
    f.pipeline = fit_pipeline(rows, *line, same_cpu_hand_off_s(data), f.pipeline_note);
}

// One operation in flight: the chain of the one-CPU series bounds every wider machine.
void fit_one_in_flight(wider_family& f, const observation_set& data) {
  if (!one_in_flight(f.k)) return;
  if (f.capacity_cpus != 1 || !f.capacity_fit) {
    f.chain_note = "no one-CPU series with two or more N";
    return;
  }
  f.chain = fit_chain(data, f.k, f.capacity_rows, f.chain_note);
}

wider_family learn(const family_id& id, const std::vector<const observation*>& rows, const wider_protocol& p,
                   const observation_set& data, const std::optional<line_estimate>& line) {
  wider_family f;
  std::tie(f.k, f.platform, f.kernel, f.source) = id;
  std::set<std::int64_t> widths;
  for (const auto* o : rows)
    if (!dedicated(*o)) widths.insert(*o->k.cpus);
  f.measured_cpus.assign(widths.begin(), widths.end());
  for (const auto* o : rows)
    if (dedicated(*o) && *o->k.cpus <= p.from_cpus) f.dedicated.push_back(o);
  f.dedicated_fit = fit_rows(f.dedicated, p.law, f.dedicated_note);
  if (f.dedicated_fit && f.dedicated_fit->points == 1)
    f.dedicated_note = "one dedicated row (T = " + std::to_string(std::llround(f.dedicated_fit->n_max)) +
                       "): the straight line through it, an upper bound that cannot see the contention of more "
                       "threads";
  if (!widths.empty() && *widths.begin() <= p.from_cpus) {
    f.capacity_cpus = *widths.begin();
    f.capacity_rows = series_rows(rows, *f.capacity_cpus);
    std::string note;
    f.capacity_fit = fit_rows(f.capacity_rows, p.law, note);
    if (f.capacity_fit && f.capacity_fit->points == 1) f.capacity_fit.reset();  // one T says nothing of N
  }
  fit_one_producer(f, data, line);
  // From one CPU alone: a series of 2..C0 CPUs that trained paid its crossings already (the
  // serial stage holds them).
  if (f.capacity_cpus == 1 && no_wider_series_trained(f.measured_cpus, p.from_cpus))
    f.crossings = crossings_of(f.k, line, data.placement, f.crossings_note);
  f.serial_structure = serial_structure(f.k);
  if (hand_offs_unseen(f.k, f.measured_cpus, p.from_cpus))
    f.caveat = "hand-offs between threads (" + hand_off_structure(f.k) +
               ") that cross CPUs on a wider machine, which no series of one CPU pays: the other rules cannot see "
               "them, so their predictions are upper bounds, each with the interval [0, hi] (from one CPU, every "
               "two-CPU row of these rings in the machine corpus lay 22-92% below the capacity bound: "
               "docs/scaling.md)";
  if (f.serial_structure.empty()) return f;
  if (!p.serial_stage)
    f.serial_note = "left out (--no-serial-stage)";
  else if (p.from_cpus < 2)
    f.serial_note = "one CPU shows no hand-off between CPUs";
  else
    fit_serial(f, rows, p.from_cpus);
  if (!f.serial_fit)
    f.caveat =
        "a serial stage (" + f.serial_structure + ") whose hold time is not known here (" + f.serial_note +
        "): the other rules cannot see it, so their predictions are upper bounds, each with the interval [0, hi] "
        "(on the first 16-CPU campaign every producers prediction past 2, 4 or 8 CPUs without it lay above the "
        "measurement, by 4% to 33x: docs/scaling.md)";
  return f;
}

// What the caveat of a ring measured on one CPU says of its two-CPU answer once the lines a
// pass moves across CPUs give it.
void note_crossings(wider_family& f) {
  if (f.crossings && !f.caveat.empty())
    f.caveat +=
        "; but on two CPUs the capacity bound less the cache lines a pass moves across CPUs is a "
        "prediction (line crossings), still with the interval [0, hi]";
}

// Every row and `at` of the family predicted by its laws (cpu_scaling.hpp: the rule
// `predict --cpus` applies to the laws fit keeps).
void predict_series(wider_family& f, const std::vector<const observation*>& rows, const wider_protocol& p) {
  cpu_scaling_laws laws = laws_of(f, p.from_cpus);
  laws.efficiency = p.efficiency;
  std::set<std::int64_t> widths(p.cpus.begin(), p.cpus.end());
  for (auto c : f.measured_cpus)
    if (c > p.from_cpus) widths.insert(c);
  std::map<const observation*, validation_row> first;  // each observation once, at its narrowest width
  for (auto c : widths) {
    wider_series s;
    s.cpus = c;
    s.measured = std::binary_search(f.measured_cpus.begin(), f.measured_cpus.end(), c);
    for (const auto* o : s.measured ? series_rows(rows, c) : std::vector<const observation*>{}) {
      if (dedicated(*o) && *o->k.cpus <= p.from_cpus) continue;  // trained on
      wider_limit limit{};
      const scaling_prediction q = predict_cpu_scaling(laws, c, *scaling_axis(*o), limit);
      s.rows.push_back(scaling_row(q, *o));
      s.row_limit.push_back(limit);
      s.row_upper_bound.push_back(q.upper_bound);
      first.emplace(o, s.rows.back());
    }
    for (double n : p.at) {
      wider_limit limit{};
      s.at.emplace_back(n, predict_cpu_scaling(laws, c, n, limit));
      s.at_limit.push_back(limit);
    }
    std::vector<const validation_row*> predicted;
    for (const auto& r : s.rows) predicted.push_back(&r);
    if (!predicted.empty()) s.acc = accuracy_of(predicted);
    f.series.push_back(std::move(s));
  }
  std::vector<const validation_row*> once;
  for (const auto& [o, r] : first) once.push_back(&r);
  if (!once.empty()) f.acc = accuracy_of(once);
}

}  // namespace

void check_wider_protocol(const wider_protocol& p) {
  if (p.from_cpus < 1)
    throw std::invalid_argument("the measured CPUs (C0) must be >= 1, got " + std::to_string(p.from_cpus));
  for (auto c : p.cpus)
    if (c <= p.from_cpus)
      throw std::invalid_argument("a width to predict must exceed the measured " + std::to_string(p.from_cpus) +
                                  " CPUs, got " + std::to_string(c));
  for (double n : p.at)
    if (!std::isfinite(n) || n < 1) throw std::invalid_argument("N to predict must be >= 1, got " + std::to_string(n));
}

wider_result predict_wider(const observation_set& data, const wider_protocol& protocol) {
  check_wider_protocol(protocol);
  std::map<family_id, std::vector<const observation*>> families;
  for (const auto& o : data.rows)
    if (usable(o)) families[family_of(o)].push_back(&o);
  if (families.empty())
    throw datasets::input_error(data.source + ": no rows of a CPU-scaling scenario (" + scaling_scenario_names() +
                                ") with its N, threads and cpus");
  wider_result out;
  out.from_cpus = protocol.from_cpus;
  out.efficiency = protocol.efficiency;
  const auto line = cache_line_round_trip(data);
  for (const auto& [id, rows] : families) {
    wider_family f = learn(id, rows, protocol, data, line);
    note_crossings(f);
    fit_one_in_flight(f, data);
    if (f.dedicated_fit || f.capacity_fit) predict_series(f, rows, protocol);
    out.families.push_back(std::move(f));
  }
  // Each measurement once, at its narrowest series (as each family's accuracy counts it).
  std::vector<const validation_row*> all;
  std::set<const observation*> counted;
  for (const auto& f : out.families)
    for (const auto& s : f.series)
      for (const auto& r : s.rows)
        if (counted.insert(r.o).second) all.push_back(&r);
  if (!all.empty()) out.overall = accuracy_of(all);
  return out;
}

}  // namespace pollscale::model
