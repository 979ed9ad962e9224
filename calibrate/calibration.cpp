#include "calibrate/calibration.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "calibrate/placement_sentinel.hpp"
#include "calibrate/reference_check.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sentinel.hpp"
#include "calibrate/settle.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/time_ledger.hpp"
#include "calibrate/visit_plan.hpp"
#include "calibrate/wake_sentinel.hpp"
#include "datasets/consistency.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::calibrate {
namespace {

// Seconds left at the pace so far; NaN before the first visit.
double eta_s(std::size_t done, std::size_t total, double elapsed) {
  return done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : NAN;
}

nlohmann::json request_json(const calibration_request& req, const runner_options& ro) {
  nlohmann::json mechs = nlohmann::json::array();
  for (const auto& f : req.mechs) mechs.push_back(f.label());
  return {{"profile", req.sel.profile == profile_kind::full ? "full" : "quick"},
          {"scenarios", req.scenarios},
          {"mechanisms", mechs},
          {"n_override", req.sel.n_override},
          {"seed", req.sel.seed},
          {"rounds", req.rounds},
          {"order",
           "each round in a seeded random order (probes within thirds of the round, each probe one third earlier "
           "every round; then groups sharing a set-up, then points)"},
          {"repair_visits", req.repair_visits},
          {"max_fds", req.sel.max_fds},
          {"main_thread_cpu", req.sel.cpus.empty() ? -1 : req.sel.cpus[0]},
          {"runner",
           {{"warmup_s", ro.warmup_s},
            {"max_s_per_point", ro.max_s_per_point},
            {"target_rel_halfwidth", ro.target_rel_halfwidth},
            {"min_samples", ro.min_samples},
            {"min_sample_ns", ro.min_sample_ns}}}};
}

}  // namespace

double profile_budget_s(profile_kind p) { return p == profile_kind::full ? 1800.0 : 180.0; }

runner_options per_visit(runner_options o, int rounds) {
  if (rounds > 1) {
    o.max_s_per_point /= rounds;
    o.warmup_s /= rounds;
    o.min_samples = std::max<std::size_t>(7, o.min_samples / static_cast<std::size_t>(rounds));
  }
  return o;
}

namespace {

// Points whose 95% interval is wider than the target: with one round, the points the runner
// stopped at the cap unconverged; with visits, also those whose visits disagree.
std::size_t wider_than(const std::vector<datasets::summary_row>& summaries, double target) {
  return static_cast<std::size_t>(std::count_if(summaries.begin(), summaries.end(), [&](const auto& s) {
    return datasets::relative_median_halfwidth(s.s) > target;
  }));
}

void add_warnings(const calibration_request& req, calibration_outcome& out, int interrupted_round) {
  // interrupted_round: the round (0-based) an interruption came in, req.rounds when after them.
  // Precondition: out.data.summaries are final (record_consistency).
  const std::size_t unconverged = wider_than(out.data.summaries, req.runner.target_rel_halfwidth);
  if (unconverged)
    out.data.context["warnings"].push_back(std::to_string(unconverged) + " of " + std::to_string(out.measured) +
                                           " points have a 95% interval wider than ±" +
                                           std::to_string(static_cast<int>(req.runner.target_rel_halfwidth * 100)) +
                                           (req.rounds > 1
                                                ? "% (their visits disagree, or a visit reached its time cap first)"
                                                : "% (the time cap came first)"));
  if (out.interrupted && interrupted_round == 0)
    out.data.context["warnings"].push_back("interrupted after " + std::to_string(out.measured) + " of " +
                                           std::to_string(out.planned) + " points; the rest were not measured");
  else if (out.interrupted && interrupted_round >= req.rounds)
    out.data.context["warnings"].push_back("interrupted after the " + std::to_string(req.rounds) +
                                           " rounds, in the repair or settling visits: every point was measured "
                                           "in every round, some revisited fewer times than planned");
  else if (out.interrupted)
    out.data.context["warnings"].push_back("interrupted in round " + std::to_string(interrupted_round + 1) + " of " +
                                           std::to_string(req.rounds) +
                                           ": every point was measured, the later ones in fewer rounds");
}

void write_now(const calibration_request& req, datasets::dataset& d) {
  d.summaries = datasets::summarise_samples(d.samples);
  datasets::write_dataset(req.out, d);
}

}  // namespace

std::vector<planned_point> plan(const calibration_request& req) {
  std::vector<planned_point> points;
  for (const auto& s : req.scenarios)
    if (!find_probe(s)) throw std::invalid_argument("unknown scenario '" + s + "'");
  for (const auto& p : all_probes()) {
    if (!req.scenarios.empty() &&
        std::find(req.scenarios.begin(), req.scenarios.end(), p.scenario) == req.scenarios.end())
      continue;
    for (auto& k : p.points(req.sel, req.mechs)) points.push_back({&p, std::move(k)});
  }
  return points;
}

void append_samples(datasets::dataset& d, const point_result& r, const visit_facts& v) {
  for (std::size_t i = 0; i < r.values.size(); ++i)
    d.samples.push_back({r.key, v.first_rep + static_cast<std::int64_t>(i), r.values[i],
                         static_cast<std::int64_t>(r.batches[i]), v.visit, v.t_s, v.sentinel_ns, v.wake_sentinel_ns,
                         v.placement_ns});
}

namespace {

/// A running calibration: the visits made so far and what they left.
class session {
 public:
  session(const calibration_request& req, const std::vector<planned_point>& once, calibration_outcome& out)
      : req_(req),
        report_(req.report ? *req.report : nobody_),
        once_(once),
        out_(out),
        run_(per_visit(req.runner, req.rounds)),
        watch_(req.runner.min_sample_ns),
        wake_watch_(req.sel),
        placement_watch_(req.sel),
        refs_(once, req.sel.cpus.empty() ? -1 : req.sel.cpus[0]),
        t0_(clock_ns()),
        last_write_(t0_) {}

  /// Measures point `i` of the plan once more; false when interrupted.
  bool visit(std::size_t i, std::size_t done, std::size_t total);
  /// Frees the shared set-up the last visits kept (probe_def::release): the next visit
  /// builds its own. Called when the set-up changes, after a failed visit, at the end of
  /// every round (each visit of a point meets a fresh set-up) and at the end.
  void leave_setup();
  /// Releases every probe's shared set-up.
  void finish();
  double elapsed_s() const { return static_cast<double>(clock_ns() - t0_) * 1e-9; }
  nlohmann::json references() const { return refs_.to_json(); }
  nlohmann::json time_used(double wall_s) const { return ledger_.to_json(wall_s); }
  /// Per planned point, the key its samples carry (its probe annotates the planned key:
  /// max_fd, a variant); empty until it is measured.
  const std::vector<datasets::key>& sample_keys() const { return sample_keys_; }

 private:
  std::optional<double> sentinel_now(double t_s);
  std::optional<double> cross_cpu_reading(probe_sentinel& watch, bool& failed,
                                          std::vector<datasets::sentinel_reading>& series, const char* what,
                                          double t_s);
  /// Runs `work` and charges its seconds to `what` in the time ledger.
  template <class Work>
  void charged(overhead what, Work&& work) {
    const double from = elapsed_s();
    work();
    ledger_.add(what, elapsed_s() - from);
  }

  const calibration_request& req_;
  silent_reporter nobody_;
  reporter& report_;
  const std::vector<planned_point>& once_;
  calibration_outcome& out_;
  runner run_;
  sentinel watch_;
  wake_sentinel wake_watch_;
  bool wake_failed_ = false;
  placement_sentinel placement_watch_;
  bool placement_failed_ = false;
  reference_check refs_;
  time_ledger ledger_;
  std::uint64_t t0_, last_write_;
  const probe_def* current_ = nullptr;         // the probe whose set-up the last visit left, if any
  std::string current_setup_;                  // its name (visit_plan.hpp: setup_name)
  std::map<datasets::key, visit_facts> kept_;  // per planned key: samples and visits so far
  std::set<datasets::key> skipped_;            // planned keys that cannot run here
  std::vector<datasets::key> sample_keys_ = std::vector<datasets::key>(once_.size());
};

// The sentinel read just before a visit; the previous reading when this one could not be
// set up and is at most a second old.
std::optional<double> session::sentinel_now(double t_s) {
  if (auto r = watch_.read(t_s)) {
    out_.data.sentinel.push_back(*r);
    return r->ns_per_call;
  }
  const auto& series = out_.data.sentinel;
  if (!series.empty() && t_s - series.back().t_s <= 1.0) return series.back().ns_per_call;
  return std::nullopt;
}

// A cross-CPU sentinel's reading at a visit (the wake and the placement sentinels): a new
// one when the last is min_interval_s old, else the last while it is at most three intervals
// old. A failure is not the point's: that sentinel stops, the run goes on, the context says so.
std::optional<double> session::cross_cpu_reading(probe_sentinel& watch, bool& failed,
                                                 std::vector<datasets::sentinel_reading>& series, const char* what,
                                                 double t_s) {
  if (!failed) {
    try {
      if (auto r = watch.read(t_s)) series.push_back(*r);
    } catch (const sys::interrupted&) {
      throw;
    } catch (const std::exception& e) {
      failed = true;
      out_.data.context["warnings"].push_back(std::string("the ") + what + " failed at t = " + std::to_string(t_s) +
                                              " s and was stopped: " + e.what());
    }
  }
  if (!series.empty() && t_s - series.back().t_s <= 3 * watch.min_interval_s()) return series.back().ns_per_call;
  return std::nullopt;
}

bool session::visit(std::size_t i, std::size_t done, std::size_t total) {
  const planned_point& p = once_[i];
  if (skipped_.count(p.key)) return true;
  const std::string setup = setup_name(p);
  if (current_ && (current_ != p.probe || setup.empty() || setup != current_setup_)) leave_setup();
  current_ = p.probe;
  current_setup_ = setup;
  report_.visit_started(done, total, eta_s(done, total, elapsed_s()), p.key);
  try {
    visit_facts& facts = kept_[p.key];
    facts.t_s = std::round(elapsed_s() * 1e6) * 1e-6;  // to the microsecond: short rows, ample for drift
    charged(overhead::sentinels, [&] {
      facts.sentinel_ns = sentinel_now(*facts.t_s);
      facts.wake_sentinel_ns =
          cross_cpu_reading(wake_watch_, wake_failed_, out_.data.wake_sentinel, "cross-CPU wake sentinel", *facts.t_s);
      facts.placement_ns = cross_cpu_reading(placement_watch_, placement_failed_, out_.data.placement_sentinel,
                                             "placement sentinel", *facts.t_s);
    });
    const point_result r = run_.measure(*p.probe, p.key, req_.sel);
    ledger_.add_visit(p.probe->scenario, r);
    if (!r.skipped.empty()) {
      leave_setup();  // a point refused part-way (a mechanism that delivers nothing on this
                      // kind) may have left its trigger in the shared set-up
      skipped_.insert(p.key);
      ++out_.skipped;
      out_.data.context["skipped"].push_back({{"point", datasets::describe(r.key)}, {"reason", r.skipped}});
      return true;
    }
    if (facts.visit == 0) ++out_.measured;
    sample_keys_[i] = r.key;
    append_samples(out_.data, r, facts);
    facts.first_rep += static_cast<std::int64_t>(r.values.size());
    ++facts.visit;
    charged(overhead::references, [&] { refs_.after_visit(p.key, r.values, *facts.t_s); });
  } catch (const sys::interrupted&) {
    out_.interrupted = true;
    return false;
  } catch (const std::exception& e) {
    // A wrong answer or an OS failure: loud, recorded, and the run goes on so that
    // nothing measured is lost; the command exits 1 at the end.
    ++out_.failed;
    leave_setup();  // what failed may have left the shared set-up in any state
    const std::string what = datasets::describe(p.key) + ": " + e.what();
    report_.probe_failed(what);
    out_.data.context["failures"].push_back(what);
  }
  if (clock_ns() - last_write_ > 30'000'000'000ull) {
    charged(overhead::writes, [&] { write_now(req_, out_.data); });
    last_write_ = clock_ns();
  }
  return true;
}

void session::leave_setup() {
  if (current_ && current_->release) charged(overhead::release, current_->release);
  current_ = nullptr;
  current_setup_.clear();
}

void session::finish() {
  report_.finished();
  for (const auto& p : all_probes())
    if (p.release) p.release();
}

/// The planned key without max_fd (which a probe fills in once set up), for matching
/// summary rows back to the plan.
datasets::key plan_key(datasets::key k) {
  k.max_fd.reset();
  return k;
}

/// Plan indices of the points that break the physics, in a seeded random order.
std::vector<std::size_t> points_to_repair(const std::vector<planned_point>& once,
                                          const std::vector<datasets::consistency_issue>& issues, std::uint64_t seed) {
  std::map<datasets::key, std::size_t> index;
  for (std::size_t i = 0; i < once.size(); ++i) index.emplace(plan_key(once[i].key), i);
  std::set<std::size_t> wanted;
  for (const auto& issue : issues)
    for (const auto* k : {&issue.k, &issue.other})
      if (auto it = index.find(plan_key(*k)); it != index.end()) wanted.insert(it->second);
  std::vector<std::size_t> order(wanted.begin(), wanted.end());
  seeded_shuffle(order, seed ^ 0x5eed5eedull);
  return order;
}

/// Revisits the points that break the physics (each up to repair_visits more times, all
/// together within repair_share of the time spent so far); false when interrupted.
bool repair(session& s, const calibration_request& req, const std::vector<planned_point>& once,
            calibration_outcome& out) {
  out.data.summaries = datasets::summarise_samples(out.data.samples);
  const auto issues = datasets::check_consistency(out.data.summaries);
  const auto order = points_to_repair(once, issues, req.sel.seed);
  const double deadline = s.elapsed_s() * (1 + req.repair_share);
  std::size_t done = 0;
  const std::size_t total = order.size() * static_cast<std::size_t>(req.repair_visits);
  for (int v = 0; v < req.repair_visits; ++v)
    for (std::size_t i : order) {
      if (s.elapsed_s() > deadline) return true;
      if (!s.visit(i, done++, total)) return false;
      ++out.repair_visits;
    }
  return true;
}

/// Visits again the points whose visits disagree (settle.hpp), sweep after sweep, each
/// sweep a round of those points alone with fresh set-ups; all sweeps together within
/// req.settle.share of the time spent so far. Records what it did in the context's
/// "calibration" block; false when interrupted.
bool settle(session& s, const calibration_request& req, const std::vector<planned_point>& once,
            calibration_outcome& out) {
  double deadline = s.elapsed_s() * (1 + req.settle.share);
  if (req.settle.budget_s > 0) deadline = std::min(deadline, req.settle.budget_s);
  auto agreement = agreement_of(s.sample_keys(), out.data.samples);  // refreshed after each sweep
  std::vector<std::size_t> all(once.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  const std::size_t wanted = points_to_settle(agreement, all, req.settle).size();
  bool finished = true, time_left = true;
  // Each sweep adds a visit to every point it keeps, so max_visits sweeps are the most any
  // point can need (a visit that fails adds none: the bound still ends the loop).
  for (int sweep = 0; sweep < req.settle.max_visits && finished && time_left; ++sweep) {
    const auto order = points_to_settle(agreement, round_order(once, req.sel.seed, req.rounds + sweep), req.settle);
    if (order.empty()) break;
    for (std::size_t j = 0; j < order.size() && finished; ++j) {
      time_left = s.elapsed_s() <= deadline;
      if (!time_left) break;
      finished = s.visit(order[j], j, order.size());
      if (finished) ++out.settle_visits;
    }
    s.leave_setup();
    agreement = agreement_of(s.sample_keys(), out.data.samples);
  }
  out.data.context["calibration"]["settle"] = {{"target_se", req.settle.target_se},
                                               {"max_visits", req.settle.max_visits},
                                               {"share", req.settle.share},
                                               {"budget_s", req.settle.budget_s},
                                               {"points", wanted},
                                               {"visits", out.settle_visits},
                                               {"still_disagree", disagreeing(agreement, req.settle.target_se)}};
  return finished;
}

/// The rules still broken after the repair visits: summary marks, context and warnings.
void record_consistency(calibration_outcome& out) {
  auto& d = out.data;
  d.summaries = datasets::summarise_samples(d.samples);
  const auto issues = datasets::check_consistency(d.summaries);
  d.consistency.clear();
  for (const auto& r : d.summaries) d.consistency.push_back(datasets::consistency_marks(issues, r.k));
  nlohmann::json list = nlohmann::json::array();
  std::size_t beyond = 0;
  for (const auto& issue : issues) {
    list.push_back({{"rule", issue.rule},
                    {"point", datasets::describe(issue.k)},
                    {"against", datasets::describe(issue.other)},
                    {"beyond_intervals", issue.beyond_intervals},
                    {"detail", issue.detail}});
    beyond += issue.beyond_intervals ? 1 : 0;
  }
  d.context["consistency"] = {{"repair_visits", out.repair_visits}, {"issues", list}};
  if (!issues.empty())
    d.context["warnings"].push_back(std::to_string(issues.size()) + " point(s) still break the physics after " +
                                    std::to_string(out.repair_visits) + " repair visit(s) (" + std::to_string(beyond) +
                                    " beyond both 95% intervals); summary.csv column 'consistency' marks them, "
                                    "context.json 'consistency' lists them");
}

}  // namespace

calibration_outcome run_calibration(const calibration_request& req, nlohmann::json context) {
  if (req.rounds < 1) throw std::invalid_argument("rounds must be at least 1");
  calibration_outcome out;
  const auto once = plan(req);
  out.planned = once.size();
  context["calibration"] = request_json(req, per_visit(req.runner, req.rounds));
  out.data.context = std::move(context);
  out.data.context["failures"] = nlohmann::json::array();
  for (const auto& p : once) {
    if (p.probe->context_facts && !out.data.context.contains(p.probe->scenario))
      out.data.context[std::string(p.probe->scenario)] = p.probe->context_facts(req.sel);
    out.data.context["calibration"]["probe_revisions"][std::string(p.probe->scenario)] = p.probe->revision;
  }
  const auto saved_affinity = sys::allowed_cpus();
  if (!req.sel.cpus.empty()) sys::pin_current_thread(req.sel.cpus[0]);
  session s(req, once, out);
  int interrupted_round = req.rounds;  // the round an interruption came in; rounds: after them
  const std::size_t total = once.size() * static_cast<std::size_t>(req.rounds);
  for (int round = 0; round < req.rounds && !out.interrupted; ++round) {
    const auto order = round_order(once, req.sel.seed, round);
    for (std::size_t j = 0; j < order.size(); ++j)
      if (!s.visit(order[j], static_cast<std::size_t>(round) * once.size() + j, total)) {
        interrupted_round = round;
        break;
      }
    s.leave_setup();
  }
  if (!out.interrupted && repair(s, req, once, out)) settle(s, req, once, out);
  s.finish();
  sys::set_current_thread_affinity(saved_affinity);
  out.wall_s = s.elapsed_s();
  record_consistency(out);
  add_warnings(req, out, interrupted_round);
  const datasets::stability_facts drift = stability_of(out.data.sentinel);
  // The cross-CPU wake-ups drift on their own (wake_sentinel.hpp): judged apart.
  std::optional<datasets::stability_facts> cross_cpu;
  if (!out.data.wake_sentinel.empty()) cross_cpu = stability_of(out.data.wake_sentinel, wake_sentinel::description());
  datasets::write_stability(out.data.context, drift, cross_cpu);
  if (!out.data.placement_sentinel.empty()) {
    const auto placement = placement_of(out.data.placement_sentinel);
    datasets::write_placement(out.data.context, placement);
    if (const auto w = placement_warning(placement); !w.empty()) out.data.context["warnings"].push_back(w);
  }
  out.data.context["reference"] = s.references();
  if (const auto w = stability_warning(drift, "the machine's speed", fast_mode_remedy); !w.empty())
    out.data.context["warnings"].push_back(w);
  if (cross_cpu)
    if (const auto w = stability_warning(*cross_cpu, "cross-CPU wake-ups"); !w.empty())
      out.data.context["warnings"].push_back(w + " for the points whose threads run on two CPUs");
  out.data.context["calibration"]["wall_s"] = out.wall_s;
  out.data.context["calibration"]["time"] = s.time_used(out.wall_s);
  datasets::write_dataset(req.out, out.data);
  return out;
}

}  // namespace pollscale::calibrate
