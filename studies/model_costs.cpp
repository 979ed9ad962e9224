#include "studies/model_costs.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "datasets/fnv1a.hpp"
#include "datasets/json_fields.hpp"
#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"
#include "model/linear_fit.hpp"
#include "model/prediction.hpp"
#include "model/stage_hold.hpp"
#include "sim/core/random.hpp"

namespace pollscale::studies {
namespace {

using datasets::metric;
using datasets::scenario;

// Asks the fitted model; the answers are in seconds (or 1/s for rates).
class model_costs {
 public:
  model_costs(std::shared_ptr<const model::model_set> models, std::string fd_kind, std::string variant,
              std::shared_ptr<cost_provenance> prov, cost_bound bound, std::uint64_t draw_seed, double together)
      : models_(std::move(models)),
        fd_kind_(std::move(fd_kind)),
        variant_(std::move(variant)),
        prov_(std::move(prov)),
        bound_(bound),
        draw_seed_(draw_seed),
        together_(together) {}

  // One timeout-0 wait call over n fds with k ready (find_active time_per_call).
  std::function<double(const sim::wait_query&)> wait_call(const std::string& mechanism) const {
    return wait_call(mechanism, metric::time_per_call);
  }

  // The same from `m`: time_per_call, or time_per_op for a historical table that timed
  // the call with the write and read around it (Kegel's find-1-of-N).
  std::function<double(const sim::wait_query&)> wait_call(const std::string& mechanism, metric m) const {
    return [self = *this, mechanism, m](const sim::wait_query& q) {
      datasets::key k = self.base(scenario::find_active, mechanism, m);
      k.n_fds = std::max<std::int64_t>(q.registered, 1);
      k.n_active = std::clamp<std::int64_t>(q.ready, 1, *k.n_fds);
      k.blocking = 0;
      return self.ask(k);
    };
  }

  // The wait-queue registration a blocking call adds per fd scanned before the first
  // ready one (docs/model.md §2: an entry added, and removed when the call returns), for
  // the adapter's fd kind, else pipes. Empty when the model has neither source below.
  std::function<double(std::int64_t)> registration_per_fd(const std::string& mechanism) const {
    for (const std::string& fd_kind : {fd_kind_, datasets::text(datasets::fd_kind::pipe)}) {
      if (auto r = registration_from_entry(mechanism, fd_kind)) return r;
      if (auto r = registration_from_round_trip(mechanism, fd_kind)) return r;
    }
    return {};
  }

  // Preferred: blocking calls with the data present on entry (find_active time_per_op,
  // blocking, threads=1), the ready fd first (no entry) and last (n - 1 entries), at the
  // same n — what a server with its active connections last pays:
  //   c_reg(n) = [T_last(n) - T_first(n)] / (n - 1).
  std::function<double(std::int64_t)> registration_from_entry(const std::string& mechanism,
                                                              const std::string& fd_kind) const {
    datasets::key first = base(scenario::find_active, mechanism, metric::time_per_op);
    first.fd_kind = fd_kind;
    first.blocking = 1;
    first.threads = 1;
    first.n_fds = 2;
    first.n_active = 1;
    first.active_pos = datasets::name(datasets::position::first);
    datasets::key last = first;
    last.active_pos = datasets::name(datasets::position::last);
    if (!try_ask(first) || !try_ask(last)) return {};
    prov_->sources["registration"] = "model: find_active time_per_op blocking threads=1 (" + kind_label(fd_kind) +
                                     "), ready fd last minus ready fd first, per fd";
    return [self = *this, first, last](std::int64_t n) {
      if (n <= 1) return 0.0;
      auto at = [&](datasets::key k) {
        k.n_fds = n;
        return self.ask(k);
      };
      return std::max(0.0, (at(last) - at(first)) / static_cast<double>(n - 1));
    };
  }

  // Fallback: a blocking round trip (find_active time_per_op, blocking, same CPU) taken as
  // one full pass with registration and one rescan, a timeout-0 call as one pass, so
  //   c_reg = [T_rt(n) - T_rt(1)] / (n - 1) - 2 [T_call(n) - T_call(1)] / (n - 1).
  // (Datasets before 2026-11-30 let the writer run before the waiter slept; the
  // ready-at-entry rows say more there.)
  std::function<double(std::int64_t)> registration_from_round_trip(const std::string& mechanism,
                                                                   const std::string& fd_kind) const {
    datasets::key rt = base(scenario::find_active, mechanism, metric::time_per_op);
    rt.fd_kind = fd_kind;
    rt.blocking = 1;
    rt.n_fds = rt.n_active = 1;
    const auto same_cpu = pinnings(scenario::find_active, mechanism, metric::time_per_op, true);
    if (same_cpu.empty()) return {};
    rt.pinning = same_cpu.front();
    if (!try_ask(rt)) return {};
    datasets::key call = base(scenario::find_active, mechanism, metric::time_per_call);
    call.fd_kind = fd_kind;
    call.blocking = 0;
    call.n_fds = call.n_active = 1;
    if (!try_ask(call)) return {};
    prov_->sources["registration"] = "model: find_active time_per_op blocking pinning " + rt.pinning + " (" +
                                     kind_label(fd_kind) + ") minus two timeout-0 passes";
    return [self = *this, rt, call](std::int64_t n) {
      if (n <= 1) return 0.0;
      auto at = [&](datasets::key k, std::int64_t fds) {
        k.n_fds = fds;
        return self.ask(k);
      };
      const double span = static_cast<double>(n - 1);
      const double per_fd = (at(rt, n) - at(rt, 1)) / span - 2 * (at(call, n) - at(call, 1)) / span;
      return std::max(0.0, per_fd);
    };
  }

  // What a scan pays more in a process of two threads or more, where every fd lookup takes
  // a reference on the file (docs/calibrate.md, "One thread or two"): the timeout-0 call
  // over pipes with a parked second thread minus the same call alone, for the mechanism's
  // family (pselect as select, ppoll as poll, every epoll as epoll/lt), added to a call
  // over any fd kind — the reference is on the struct file, whatever the file is. Empty
  // where the model has no such pair of cells (calibrations before 2026-12-07, or a
  // mechanism that was not measured so: rtsig, io_uring).
  std::function<double(std::int64_t)> lookup_extra(const std::string& mechanism_name) const {
    using datasets::mechanism;
    const auto m = datasets::parse<mechanism>(mechanism_name);
    std::optional<mechanism> family;
    if (m == mechanism::select || m == mechanism::pselect) family = mechanism::select;
    if (m == mechanism::poll || m == mechanism::ppoll) family = mechanism::poll;
    if (m == mechanism::epoll) family = mechanism::epoll;
    if (!family) return {};
    datasets::key one;
    one.scenario = datasets::name(scenario::find_active);
    one.mechanism = datasets::name(*family);
    one.variant = family == mechanism::epoll ? datasets::text(datasets::variant::lt) : std::string(model::empty_column);
    one.fd_kind = datasets::name(datasets::fd_kind::pipe);
    one.metric = datasets::name(metric::time_per_call);
    one.blocking = 0;
    one.n_active = 1;
    one.threads = 1;
    datasets::key two = one;
    two.threads = 2;
    one.n_fds = two.n_fds = 1;
    if (!model::find_cell(*models_, one).model || !model::find_cell(*models_, two).model) return {};
    return [self = *this, one, two](std::int64_t n) {
      auto at = [&](datasets::key k) {
        k.n_fds = std::max<std::int64_t>(n, 1);
        return self.ask(k);
      };
      return std::max(0.0, at(two) - at(one));
    };
  }

  // Whether some find_active cell of `mechanism` has metric `m` (of any fd kind).
  bool has_find_active(const std::string& mechanism, metric m) const {
    return std::any_of(models_->cells.begin(), models_->cells.end(), [&](const model::cell_model& c) {
      return c.cell.scenario == datasets::name(scenario::find_active) && c.cell.mechanism == mechanism &&
             c.cell.metric == datasets::name(m);
    });
  }

  static std::string kind_label(const std::string& fd_kind) { return fd_kind.empty() ? "any fd kind" : fd_kind; }

  const std::string& fd_kind() const { return fd_kind_; }

  // The pinnings ("A+B": the CPUs of the two threads) the model has cells for, with both
  // threads on one CPU (same_cpu) or on two. The probes write the CPUs they ran on, so a
  // calibration under an affinity mask that does not start at CPU 0 has "2+2" and "2+3",
  // not "0+0" and "0+1"; asking for the latter would find nothing.
  std::vector<std::string> pinnings(scenario scenario, const std::string& mechanism, metric metric,
                                    bool same_cpu) const {
    std::vector<std::string> out;
    for (const auto& m : models_->cells) {
      if (m.cell.scenario != scenario || m.cell.mechanism != mechanism || m.cell.metric != metric) continue;
      const auto pin = datasets::pinning::parse(m.cell.pinning);  // checked when the model was read
      if (!pin.is_pair()) continue;
      if (pin.same_cpu() == same_cpu && std::find(out.begin(), out.end(), m.cell.pinning) == out.end())
        out.push_back(m.cell.pinning);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The answer when a cell gives one, else nullopt: the callers try the cells a cost may
  // come from in their order of preference (model::try_predict, no exceptions).
  std::optional<double> try_ask(const datasets::key& k) const {
    const auto p = model::try_predict(*models_, k);
    if (!p) return std::nullopt;
    return counted(model::to_si(*p));
  }

  datasets::key base(scenario scenario, const std::string& mechanism, metric metric) const {
    datasets::key k;
    k.scenario = datasets::name(scenario);
    k.mechanism = mechanism;
    k.metric = datasets::name(metric);
    k.fd_kind = fd_kind_;
    k.variant = variant_;
    return k;
  }

  double ask(const datasets::key& k) const { return counted(model::to_si(model::predict(*models_, k))); }

 private:
  // Every answer used counts in the provenance, with how far past the data it reached.
  double counted(const model::prediction& p) const {
    ++prov_->model_questions;
    prov_->max_extrapolation = std::max(prov_->max_extrapolation, p.extrapolation_factor);
    const bool rate = p.unit.starts_with("1/");  // a rate's lower end is the dearer operation
    // The simulator's discrepancy and the machine between runs move every model cost of the
    // draw together.
    if (bound_ == cost_bound::drawn) return rate ? drawn(p) / together_ : drawn(p) * together_;
    if (bound_ == cost_bound::predicted || !p.has_interval || !(p.lo > 0) || !std::isfinite(p.hi)) return p.value;
    return (bound_ == cost_bound::dear) != rate ? p.hi : p.lo;
  }

  double drawn(const model::prediction& p) const {
    if (!p.has_interval || !(p.value > 0) || !std::isfinite(p.hi) || !(p.hi >= p.value)) {
      prov_->undrawn.emplace(p.model, p.no_interval);
      return p.value;
    }
    const double shared = models_->drift ? models_->drift->correlation : 0.0;
    return drawn_from_interval(p.value, p.lo, p.hi, cell_draw_z(draw_seed_, p.model, shared));
  }

  std::shared_ptr<const model::model_set> models_;
  std::string fd_kind_, variant_;
  std::shared_ptr<cost_provenance> prov_;
  cost_bound bound_;
  std::uint64_t draw_seed_;
  double together_;  // the draw's simulator and machine factors (1 undrawn): every cost question uses them
};

// The handler: the `handler` scenario (recv one 64 B request, send one 64 B reply on an
// established connection of the adapter's fd kind, else tcp), its peer on the other CPU
// (threads=2: where a server's clients are) or else on the same thread; failing that, one
// tcp message written and read back by one process (AIM9's ipc), which also pays the
// other side's calls and a pure ACK, so it overstates a reply. True when the handler's
// peer ran on the other CPU (its cost then moves with the CPUs' placement).
bool fill_handler(const model_costs& m, sim::cost_model& c, cost_provenance& prov) {
  const std::string kind = m.fd_kind().empty() ? datasets::text(datasets::fd_kind::tcp) : m.fd_kind();
  for (std::int64_t threads : {2, 1}) {
    datasets::key h = m.base(scenario::handler, "", metric::time_per_op);
    h.fd_kind = kind;
    h.variant = "";
    h.threads = threads;
    if (const auto t = m.try_ask(h); t && *t > 0) {
      c.handler_s = *t;
      prov.sources[component::handler] = "model: handler " + kind + " threads=" + std::to_string(threads) +
                                         (threads == 2 ? " (peer on the other CPU)" : " (peer on the same thread)");
      return threads == 2;
    }
  }
  datasets::key ipc = m.base(scenario::ipc, "", metric::throughput);
  ipc.fd_kind = datasets::text(datasets::fd_kind::tcp);
  ipc.variant = "";
  ipc.threads = 1;
  if (const auto rate = m.try_ask(ipc); rate && *rate > 0) {
    c.handler_s = 1 / *rate;
    prov.sources[component::handler] = "model: ipc tcp threads=1 (1/throughput)";
  }
  return false;
}

// Half the `wakeup` round trip of a waiter blocked in this mechanism over one fd, its
// partner on the same CPU or on another (the first pinning and fd kind the model has), or
// nothing; `source` says which cell answered.
std::optional<double> wakeup_s(const model_costs& m, const std::string& mechanism, bool same_cpu, std::string& source) {
  for (const auto& pinning : m.pinnings(scenario::wakeup, mechanism, metric::round_trip, same_cpu))
    for (const std::string& fd_kind :
         {std::string(), datasets::text(datasets::fd_kind::pipe), datasets::text(datasets::fd_kind::eventfd)}) {
      datasets::key w = m.base(scenario::wakeup, mechanism, metric::round_trip);
      if (!fd_kind.empty()) w.fd_kind = fd_kind;
      w.pinning = pinning;
      w.n_fds = w.n_active = 1;
      if (const auto rt = m.try_ask(w)) {
        source = "model: wakeup round_trip " + mechanism + " " + w.fd_kind + " n=1 pinning " + pinning + " / 2";
        return *rt / 2;
      }
    }
  return std::nullopt;
}

// Costs the model can give besides wait calls: the handler (above) and the wake-ups, same
// CPU and across CPUs. True when the handler crossed CPUs (fill_handler).
bool fill_from_model(const model_costs& m, const std::string& mechanism, sim::cost_model& c, cost_provenance& prov) {
  const bool handler_crosses = fill_handler(m, c, prov);
  for (const bool same : {true, false}) {
    std::string source;
    if (const auto s = wakeup_s(m, mechanism, same, source)) {
      (same ? c.wakeup_same_cpu_s : c.wakeup_cross_cpu_s) = *s;
      prov.sources[same ? "wakeup_same_cpu" : "wakeup_cross_cpu"] = source;
    }
  }
  return handler_crosses;
}

// A cost model of a model that knows its host's placements meets one of them (a drawn one by
// chance, or the one asked): what crosses the two CPUs — the cross-CPU wake-up, a handler
// whose peer ran on the other CPU, and (through cross_cpu_factor) the load generator — is
// priced in it. Nothing to do for the usual placement, or a predicted cost model asked to draw.
void price_placement(const std::optional<datasets::placement_states>& placement, const model_cost_query& query,
                     bool handler_crosses, sim::cost_model& c, cost_provenance& prov) {
  if (!placement || query.placement == placement_choice::usual) return;  // near and far checked first
  if (query.placement == placement_choice::draw && query.bound != cost_bound::drawn) return;
  const bool far = query.placement == placement_choice::draw ? placement_far_draw(query.draw_seed, *placement)
                                                             : query.placement == placement_choice::far;
  prov.placement = placement;
  prov.placement_asked = query.placement;
  ++prov.placement_draws;
  prov.placement_far_draws += far ? 1 : 0;
  c.cross_cpu_factor = placement_factor(*placement, far);
  c.wakeup_cross_cpu_s *= c.cross_cpu_factor;
  if (handler_crosses) c.handler_s *= c.cross_cpu_factor;
}

}  // namespace

double cell_draw_z(std::uint64_t draw_seed, const std::string& cell, double shared) {
  sim::rng g(sim::derive_seed(draw_seed, datasets::fnv1a64(cell)));  // the cell's name, mixed with the seed
  const double own = sim::standard_normal(g);
  if (!(shared > 0)) return own;  // independent cells: the same z as before the shared part existed
  sim::rng machine(sim::derive_seed(draw_seed, datasets::fnv1a64("(the machine)")));  // no cell has this name
  return std::sqrt(shared) * sim::standard_normal(machine) + std::sqrt(1 - std::min(shared, 1.0)) * own;
}

namespace {

// exp(log_sd·z), z a standard normal from the draw's own stream named `stream` (no cell has
// such a name, so it is independent of the cells' draws and of the other factors); 1 for no
// spread.
double log_normal_draw_factor(std::uint64_t draw_seed, const char* stream, double log_sd) {
  if (!(log_sd > 0)) return 1;
  sim::rng g(sim::derive_seed(draw_seed, datasets::fnv1a64(stream)));
  return std::exp(log_sd * sim::standard_normal(g));
}

}  // namespace

double simulator_draw_factor(std::uint64_t draw_seed, const model::model_set& models) {
  if (!models.simulator_check) return 1;
  return log_normal_draw_factor(draw_seed, "(the simulator)", models.simulator_check->log_sd);
}

double machine_draw_factor(std::uint64_t draw_seed, const model::model_set& models) {
  if (!models.between_runs) return 1;
  return log_normal_draw_factor(draw_seed, "(the machine between runs)", models.between_runs->log_sd);
}

sim::cpu_width_pricing width_pricing(std::uint64_t draw_seed, bool drawn, const model::model_set& models) {
  sim::cpu_width_pricing w;
  const auto cpus = datasets::count_at(models.context, "cpus_online");
  if (!models.efficiency || !cpus || *cpus < 1 || *cpus > 100000) return w;
  w.measured_cpus = static_cast<int>(*cpus);
  w.log_mean = models.efficiency->log_mean;
  w.log_sd = models.efficiency->log_sd;
  if (drawn) {
    sim::rng g(sim::derive_seed(draw_seed, datasets::fnv1a64("(the machine's width)")));  // no cell has this name
    w.z = sim::standard_normal(g);
  }
  return w;
}

std::string_view name(placement_choice p) {
  switch (p) {
    case placement_choice::draw: return "draw";
    case placement_choice::usual: return "usual";
    case placement_choice::near: return "near";
    case placement_choice::far: return "far";
  }
  return "draw";
}

placement_choice parse_placement_choice(std::string_view text) {
  for (const auto p : {placement_choice::draw, placement_choice::usual, placement_choice::near, placement_choice::far})
    if (text == name(p)) return p;
  throw std::invalid_argument("'" + std::string(text) + "' is not one of draw, usual, near, far");
}

std::string placement_unavailable(const model::model_set& models, placement_choice p) {
  if (models.placement || p == placement_choice::draw || p == placement_choice::usual) return "";
  return "placement " + std::string(name(p)) +
         ": the model knows one placement of its host's CPUs (they did not move while it was measured, or no "
         "placement sentinel was read)";
}

bool placement_far_draw(std::uint64_t draw_seed, const datasets::placement_states& placement) {
  sim::rng g(sim::derive_seed(draw_seed, datasets::fnv1a64("(the placement)")));  // no cell has this name
  return sim::uniform01(g) >= placement.near_share;
}

double placement_factor(const datasets::placement_states& placement, bool far) {
  if (far == placement.far_usual()) return 1;
  return far ? placement.far_over_near : 1 / placement.far_over_near;
}

double drawn_from_interval(double value, double lo, double hi, double z) {
  constexpr double z975 = 1.959963984540054;
  const double up = std::log(hi / value) / z975;  // log-scale spread above the prediction
  const double down = lo > 0 && lo <= value ? std::log(value / lo) / z975 : up;
  return value * std::exp(z >= 0 ? z * up : z * down);
}

namespace {

// The hold of the one instance a shared set's threads wait on (model.json serial_stages),
// drawn like a cell when the costs are drawn: two-piece log-normal through hold ± t·sd.
void fill_shared_set_hold(const model::model_set& models, const model_cost_query& query, double together,
                          sim::cost_model& c, cost_provenance& prov) {
  const model::stage_hold* h = model::shared_instance_hold(models.serial_stages, query.mechanism, query.variant);
  if (!h) return;
  const std::string name = "serial stage " + h->experiment.scenario + " " + h->experiment.mechanism + "/" +
                           h->experiment.variant + " " + h->experiment.fd_kind;
  c.shared_set_hold_s = h->hold_s;
  prov.sources[component::shared_set_hold] = "model: " + name + ", fitted on " + std::to_string(h->cpus) +
                                             " CPUs up to T = " + std::to_string(std::llround(h->max_threads));
  if (query.bound != cost_bound::drawn || !(h->hold_s > 0)) return;
  if (h->df < 1 || !std::isfinite(h->hold_sd_s)) {
    prov.undrawn.emplace(name, "its hold has no standard error (" + std::to_string(h->points) + " points)");
  } else {
    const double half = model::t975(h->df) * h->hold_sd_s;
    const double shared = models.drift ? models.drift->correlation : 0.0;
    c.shared_set_hold_s =
        drawn_from_interval(h->hold_s, h->hold_s - half, h->hold_s + half, cell_draw_z(query.draw_seed, name, shared));
  }
  c.shared_set_hold_s *= together;
}

}  // namespace

sim::cost_model costs_from_model(std::shared_ptr<const model::model_set> models, const model_cost_query& query,
                                 const std::shared_ptr<cost_provenance>& prov) {
  const std::string& mechanism = query.mechanism;
  if (const auto why = placement_unavailable(*models, query.placement); !why.empty()) throw std::invalid_argument(why);
  const bool drawn = query.bound == cost_bound::drawn;
  if (drawn && models->drift) prov->draw_correlation = models->drift->correlation;
  if (drawn && models->simulator_check) prov->simulator_discrepancy = models->simulator_check;
  if (drawn && models->between_runs) prov->between_runs = models->between_runs;
  const sim::cpu_width_pricing width = width_pricing(query.draw_seed, drawn, *models);
  if (width.measured_cpus > 0) {
    prov->capacity_efficiency = models->efficiency;
    prov->measured_cpus = width.measured_cpus;
  }
  const std::optional<datasets::call_spread> spread = models->call_spread;
  const std::optional<datasets::placement_states> placement = models->placement;
  // What moves every model cost of a drawn cost model together, drawn once: the simulator's
  // discrepancy and the machine between runs (whose factor the load generator pays too).
  sim::cost_model c;
  c.machine_factor = drawn ? machine_draw_factor(query.draw_seed, *models) : 1;
  c.width = width;
  const double together = drawn ? simulator_draw_factor(query.draw_seed, *models) * c.machine_factor : 1;
  fill_shared_set_hold(*models, query, together, c, *prov);
  const model_costs m(std::move(models), query.fd_kind, query.variant, prov, query.bound, query.draw_seed, together);
  // A historical table that timed only the call with its write and read gives that, and says so.
  const bool per_op =
      !m.has_find_active(mechanism, metric::time_per_call) && m.has_find_active(mechanism, metric::time_per_op);
  auto pass = m.wait_call(mechanism, per_op ? metric::time_per_op : metric::time_per_call);
  if (const auto extra = m.lookup_extra(mechanism)) {
    pass = [call = std::move(pass), extra](const sim::wait_query& q) {
      return call(q) + (q.process_threads > 1 ? extra(q.registered) : 0.0);
    };
    prov->sources["fd_lookup"] =
        "model: find_active time_per_call over pipes, threads=2 minus threads=1, added to each pass when the server "
        "has two threads or more in one process (not when its workers are processes)";
  } else {
    prov->sources["fd_lookup"] =
        "none: the model has no timeout-0 calls of this mechanism in a process of two threads; a server of several "
        "threads is priced as a single-threaded one";
  }
  c.rescan_s = pass;  // the pass after a wake-up: a timeout-0 scan
  c.wait_call_s = pass;
  if (const auto reg = m.registration_per_fd(mechanism)) {
    c.wait_call_s = [pass, reg](const sim::wait_query& q) {
      return pass(q) + (q.blocking ? reg(q.registered) * sim::fds_before_first_ready(q) : 0.0);
    };
  }
  if (mechanism == datasets::mechanism::rtsig)
    c.overflow_poll_s = m.wait_call(datasets::text(datasets::mechanism::poll));
  prov->sources["wait_call"] =
      per_op ? "model: find_active time_per_op (timeout 0; no time_per_call cell: the call with the write and read "
               "around it, as the historical table timed it)"
             : "model: find_active time_per_call (timeout 0)";
  const bool handler_crosses = fill_from_model(m, mechanism, c, *prov);
  price_placement(placement, query, handler_crosses, c, *prov);
  if (query.vary_calls && spread) {
    c.variation = std::make_shared<const sim::call_variation>(*spread);
    prov->variation = c.variation;
  }
  return c;
}

}  // namespace pollscale::studies
