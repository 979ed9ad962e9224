#include "model/cpu_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"
#include "model/scaling.hpp"
#include "model/scaling_wider.hpp"

namespace pollscale::model {

const char* name(wider_limit l) {
  switch (l) {
    case wider_limit::dedicated_law: return "dedicated_law";
    case wider_limit::cpu_capacity: return "cpu_capacity";
    case wider_limit::serial_stage: return "serial_stage";
    case wider_limit::pipeline: return "pipeline";
    case wider_limit::one_in_flight: return "one_in_flight";
    case wider_limit::line_crossings: return "line_crossings";
  }
  return "dedicated_law";
}

std::int64_t cpu_scaling_laws::widest() const {
  return measured_cpus.empty() ? 0 : *std::max_element(measured_cpus.begin(), measured_cpus.end());
}

double cpu_scaling_laws::largest_n() const {
  double n = 1;
  if (dedicated) n = std::max(n, dedicated->n_max);
  if (capacity) n = std::max(n, capacity->n_max);
  if (serial) n = std::max(n, serial->t_max);
  return n;
}

cpu_scaling_laws laws_of(const wider_family& f, std::int64_t from_cpus) {
  cpu_scaling_laws l;
  l.experiment = f.k;
  l.platform = f.platform;
  l.kernel = f.kernel;
  l.from_cpus = from_cpus;
  l.measured_cpus = f.measured_cpus;
  l.dedicated = f.dedicated_fit;
  l.dedicated_note = f.dedicated_note;
  l.capacity_cpus = f.capacity_cpus;
  l.capacity = f.capacity_fit;
  l.serial_structure = f.serial_structure;
  l.serial = f.serial_fit;
  l.pipeline = f.pipeline;
  l.chain = f.chain;
  l.crossings = f.crossings;
  l.caveat = f.caveat;
  return l;
}

std::vector<cpu_scaling_laws> fit_cpu_scaling(const observation_set& data) {
  std::int64_t widest = 0;
  for (const auto& o : data.rows)
    if (is_scaling_row(o) && o.k.cpus) widest = std::max(widest, *o.k.cpus);
  if (widest < 1) return {};
  wider_protocol protocol;
  protocol.from_cpus = widest;  // every series trains; nothing wider is asked
  wider_result fitted;
  try {
    fitted = predict_wider(data, protocol);
  } catch (const datasets::input_error&) {
    return {};  // scaling rows, but none with its N, threads and CPUs
  }
  std::vector<cpu_scaling_laws> out;
  for (const auto& f : fitted.families)
    if (f.dedicated_fit || f.capacity_fit) out.push_back(laws_of(f, widest));
  return out;
}

namespace {

scaling_prediction pipeline_prediction(const pipeline_fit& f) {
  scaling_prediction p;
  p.value = f.rate();
  std::string why;
  if (const auto in = f.interval(why)) {
    std::tie(p.lo, p.hi) = *in;
    p.has_interval = true;
    return p;
  }
  p.no_interval = "no interval: " + why +
                  " (one producer and its consumer as a pipeline of measured parts: a write and the consumer's "
                  "share from the one-CPU series, the cache line between two CPUs; docs/scaling.md)";
  if (const auto lo = f.open_interval_lo()) {
    // Open above: the data cannot bound the rate from above, the CPUs' capacity can (capped
    // takes the capacity bound's upper end; predict_cpu_scaling refuses an end left open).
    p.lo = *lo;
    p.hi = std::numeric_limits<double>::infinity();
    p.has_interval = true;
    return p;
  }
  p.lo = p.hi = NAN;
  return p;
}

// The one-CPU law's answer at N through the chain (one_in_flight.hpp) on C CPUs: where one
// CPU shows its hand-offs, the rate expected when (C - 1)/C of them cross CPUs; else the
// ceiling. Each end of the law's interval is taken through the ceiling (the floor replaces
// its lower end once the chain wins): the expectation is no bound on how many cross.
scaling_prediction chain_answer(const chain_fit& chain, const scaling_fit& one_cpu, double n, std::int64_t c) {
  scaling_prediction p = predict_scaling(one_cpu, n);
  const double law = p.value;
  p.value = chain.expected(law, n, c);
  if (p.has_interval) {
    p.lo = chain.ceiling(p.lo, n);
    p.hi = chain.ceiling(p.hi, n);
  }
  return p;
}

// How far below its ceiling the chain can land: its floor at the one-CPU law's lower end.
double chain_floor(const chain_fit& chain, const scaling_fit& one_cpu, double n) {
  const scaling_prediction law = predict_scaling(one_cpu, n);
  return chain.floor(law.has_interval ? law.lo : law.value, n);
}

// Whether the lines a ring's pass moves across CPUs answer C CPUs: a ring measured on one
// CPU alone (its capacity law paid no crossing), asked about two or more.
bool crossings_answer(const cpu_scaling_laws& l, std::int64_t c) {
  return l.crossings && l.capacity_cpus == 1 && c >= 2;
}

// The capacity bound less the crossings (line_crossings.hpp). Its upper end stays the bound's
// and its lower end is 0: what one CPU cannot show — the wait for the instance's lock while
// another CPU holds it — only takes away, by how much nothing measured here says (on the
// corpus's hosts where two CPUs pass far less, the answer lies 28-190% above them).
scaling_prediction crossed_capacity(const crossing_charge& x, scaling_prediction bound, std::int64_t c,
                                    const datasets::key& experiment) {
  const double to_per_s = datasets::to_si_factor(experiment.unit);
  bound.value = x.crossed(bound.value, c, to_per_s);
  if (bound.has_interval) bound.lo = 0;
  return bound;
}

// Whether the pipeline answers C CPUs at N: one producer, no series measured them apart.
bool pipeline_answers(const cpu_scaling_laws& l, std::int64_t c, double n) {
  return l.pipeline && !l.dedicated && c >= 2 && n == 1;
}

// How far below a ceiling two CPUs can land, where a rule says (0 elsewhere): one operation
// in flight, the chain's floor (one cross-CPU wake-up a hand-off, priced between the two
// CPUs measured); two or more producers, the pipeline with both CPUs busy, which charges the
// line on every event. A wider machine's hand-offs cross further than the pair measured, so
// neither floor is carried past two CPUs.
double floor_of_ceiling(const cpu_scaling_laws& l, std::int64_t c, double n, wider_limit limit) {
  if (c != 2) return 0;
  if (limit == wider_limit::one_in_flight) return chain_floor(*l.chain, *l.capacity, n);
  if (limit == wider_limit::cpu_capacity && l.pipeline && n >= 2) return l.pipeline->both_busy_rate(n);
  return 0;
}

// Threads that share nothing, with the corpus's capacity efficiency to price CPUs by. Past
// its widest row the dedicated law's curve is no law of theirs: Amdahl through T = 1 and 2
// reads the second CPU's tax as a serial fraction, and carries a 3-13% tax at two CPUs to
// half the machine at sixteen. What more CPUs deliver is the machine's, as the corpus
// measured it: N threads each with a CPU pass N/M times the dedicated law at its widest
// row M, priced for log₂(N/M) doublings as the capacity bound is — the tax already paid up
// to M, measured, and each doubling after it the corpus's (docs/scaling.md, "What a CPU
// beyond the measured ones delivers"). Inside the rows measured the law answers.
bool shared_nothing_priced(const cpu_scaling_laws& l) {
  const auto s = datasets::parse<datasets::scenario>(l.experiment.scenario);
  return s && datasets::shares_nothing(*s) && l.efficiency && l.dedicated;
}

scaling_prediction dedicated_beyond(const cpu_scaling_laws& l, double n) {
  const double widest = l.dedicated->n_max;
  if (n <= widest) return predict_scaling(*l.dedicated, n);
  scaling_prediction p =
      delivered(*l.efficiency, scaled(predict_scaling(*l.dedicated, widest), n / widest), n / widest);
  p.extrapolation = n / widest;
  return p;
}

}  // namespace

bool no_wider_series_trained(const std::vector<std::int64_t>& measured_cpus, std::int64_t from_cpus) {
  return std::none_of(measured_cpus.begin(), measured_cpus.end(),
                      [&](std::int64_t c) { return c >= 2 && c <= from_cpus; });
}

bool hand_offs_unseen(const datasets::key& experiment, const std::vector<std::int64_t>& measured_cpus,
                      std::int64_t from_cpus) {
  return !hand_off_structure(experiment).empty() && no_wider_series_trained(measured_cpus, from_cpus);
}

bool upper_bound_only(const cpu_scaling_laws& l, std::int64_t c, double n, wider_limit limit) {
  // Two CPUs are where the crossings were judged (docs/scaling.md); a wider machine's lock
  // waits, which one CPU does not show, grow with it, and there the answer is a ceiling.
  if (limit == wider_limit::line_crossings) return c > 2;
  const bool unseen_stage =
      (!l.serial_structure.empty() && !l.serial) || hand_offs_unseen(l.experiment, l.measured_cpus, l.from_cpus);
  // One producer beside its consumer is what the pipeline prices, the consumer included: a
  // capacity bound below it caps a prediction, and is no ceiling over a stage left unseen.
  const bool pipelined = pipeline_answers(l, c, n);
  if (unseen_stage && !pipelined && c >= 2 &&
      (limit == wider_limit::dedicated_law || limit == wider_limit::cpu_capacity))
    return true;
  if (limit == wider_limit::one_in_flight) return !waiters_may_spin(l.experiment) && !l.chain->hand_offs_seen(n);
  // One dedicated row cannot see the contention of more threads — where there is any to see.
  return limit == wider_limit::dedicated_law && l.dedicated && l.dedicated->points == 1 && n > l.dedicated->n_max &&
         !shared_nothing_priced(l);
}

double operation_demand(const scaling_fit& narrowest, std::int64_t c0, double n) {
  return static_cast<double>(c0) / narrowest.at(n);
}

// Where a serial stage was fitted it takes the dedicated law's place: the stage's series
// holds the dedicated rows of 2..C0 CPUs too, and a law through those few rows (Amdahl
// through two points, σ > 1 where two CPUs pass fewer than one) extrapolates a curve the
// stage explains.
scaling_prediction predict_cpu_scaling(const cpu_scaling_laws& l, std::int64_t c, double n, wider_limit& limit) {
  if (c < 1) throw std::invalid_argument("CPUs must be >= 1, got " + std::to_string(c));
  if (!(n >= 1)) throw std::invalid_argument("N must be >= 1, got " + std::to_string(n));
  if (!l.dedicated && !l.capacity) throw std::invalid_argument("neither a dedicated nor a capacity law was fitted");
  limit = wider_limit::dedicated_law;
  std::optional<scaling_prediction> best;
  auto consider = [&](scaling_prediction p, wider_limit w) {
    if (!best) {
      best = std::move(p);
      limit = w;
      return;
    }
    bool wins = false;
    best = capped(*best, p, wins);
    if (wins) limit = w;
  };
  // From two CPUs on, hand-offs cross CPUs and the stage binds; narrower than the width it
  // was fitted on, its hold may be shorter (predict_serial_stage widens upwards there).
  const bool staged = l.serial && c >= 2;
  // Asked about the narrowest width measured, the capacity law is that series' own law: the
  // measurement answers, not the dedicated law, whose N threads on N CPUs are another machine
  // (one that may pass less: accept_herd's one CPU passes twice what its two do).
  const bool measured_width = l.capacity && l.capacity_cpus == c;
  if (l.dedicated && !staged && !measured_width) {
    const bool priced = shared_nothing_priced(l);
    scaling_prediction law = priced ? dedicated_beyond(l, n) : predict_scaling(*l.dedicated, n);
    if (l.dedicated->points == 1 && !law.has_interval)
      law.no_interval = priced ? "no interval: one dedicated row, whose law has no spread (df = 0); N times it, "
                                 "priced by the corpus's capacity efficiency"
                               : "no interval: " + l.dedicated_note;
    consider(std::move(law), wider_limit::dedicated_law);
  }
  std::optional<scaling_prediction> capacity_bound;
  if (l.capacity) {
    const double scale = static_cast<double>(c) / static_cast<double>(*l.capacity_cpus);
    capacity_bound = scaled(predict_scaling(*l.capacity, n), scale);
    // Narrower than c0 the bound is no extrapolation in C: nothing the corpus says applies.
    if (l.efficiency && scale > 1) capacity_bound = delivered(*l.efficiency, *capacity_bound, scale);
    if (crossings_answer(l, c))
      consider(crossed_capacity(*l.crossings, *capacity_bound, c, l.experiment), wider_limit::line_crossings);
    else
      consider(*capacity_bound, wider_limit::cpu_capacity);
    if (staged)
      consider(predict_serial_stage(*l.serial, operation_demand(*l.capacity, *l.capacity_cpus, n), n, c),
               wider_limit::serial_stage);
  }
  // One operation in flight: however many CPUs, the chain of one CPU, its hand-offs crossing
  // CPUs as often as a woken thread lands on another CPU (or, unseen, the chain less its switches).
  if (l.chain && l.capacity && l.capacity_cpus == 1 && c >= 2)
    consider(chain_answer(*l.chain, *l.capacity, n, c), wider_limit::one_in_flight);
  // One producer beside its consumer where no measured series had them apart: a pipeline.
  if (pipeline_answers(l, c, n)) consider(pipeline_prediction(*l.pipeline), wider_limit::pipeline);
  const bool ceiling = upper_bound_only(l, c, n, limit);
  // Waiters that may spin leave no switch in the chain and overlap its passes: the chain's
  // figure is then no ceiling, and the interval reaches up to what the CPUs can pass (the
  // capacity bound at its upper end: every pass still needs its CPU time somewhere).
  const bool chained = limit == wider_limit::one_in_flight;
  const bool spinning = chained && waiters_may_spin(l.experiment);
  if (ceiling) best->upper_bound = true;
  if (best->has_interval && (ceiling || chained)) best->lo = std::min(best->lo, floor_of_ceiling(l, c, n, limit));
  if (best->has_interval && spinning)
    best->hi = std::max(best->hi, capacity_bound->has_interval ? capacity_bound->hi : capacity_bound->value);
  if (best->has_interval && !std::isfinite(best->hi)) {  // an end no rule closed: no interval
    best->has_interval = false;
    best->lo = best->hi = NAN;
  }
  return *best;
}

}  // namespace pollscale::model
