#include "calibrate/calibration.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::calibrate {
namespace {

std::string eta_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const auto t = static_cast<long>(s + 0.5);
  std::ostringstream o;
  if (t >= 60) o << t / 60 << "m";
  o << t % 60 << "s";
  return o.str();
}

void show_progress(std::size_t done, std::size_t total, double elapsed, const datasets::key& k) {
  const double eta = done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : NAN;
  std::string label = datasets::describe(k);
  if (label.size() > 70) label.resize(70);
  std::fprintf(stderr, "\r\033[K[%4zu/%zu] ETA %-7s %s", done + 1, total, eta_text(eta).c_str(), label.c_str());
  std::fflush(stderr);
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
          {"max_fds", req.sel.max_fds},
          {"main_thread_cpu", req.sel.cpus.empty() ? -1 : req.sel.cpus[0]},
          {"runner",
           {{"warmup_s", ro.warmup_s},
            {"max_s_per_point", ro.max_s_per_point},
            {"target_rel_halfwidth", ro.target_rel_halfwidth},
            {"min_samples", ro.min_samples},
            {"min_sample_ns", ro.min_sample_ns}}}};
}

// The plan repeated `rounds` times, round after round.
std::vector<planned_point> in_rounds(const std::vector<planned_point>& once, int rounds) {
  std::vector<planned_point> points;
  for (int round = 0; round < rounds; ++round) points.insert(points.end(), once.begin(), once.end());
  return points;
}

// Rounds share the per-point time cap and run each to its end (runner_options::until_cap).
runner_options per_round(runner_options o, int rounds) {
  if (rounds > 1) {
    o.max_s_per_point /= rounds;
    o.until_cap = true;
  }
  return o;
}

// Points whose pooled samples leave the median's interval wider than the target (with one
// round, exactly the points the runner stopped at the cap unconverged).
std::size_t unconverged_pooled(const datasets::dataset& d, double target) {
  std::size_t n = 0;
  for (const auto& s : datasets::summarise_samples(d.samples))
    if (datasets::relative_median_halfwidth(s.s) > target) ++n;
  return n;
}

void add_warnings(const calibration_request& req, calibration_outcome& out, int interrupted_round) {
  const std::size_t unconverged = unconverged_pooled(out.data, req.runner.target_rel_halfwidth);
  if (unconverged)
    out.data.context["warnings"].push_back(
        std::to_string(unconverged) + " of " + std::to_string(out.measured) +
        " points reached the time cap before their median's 95% interval was within ±" +
        std::to_string(static_cast<int>(req.runner.target_rel_halfwidth * 100)) + "%");
  if (out.interrupted && interrupted_round == 0)
    out.data.context["warnings"].push_back("interrupted after " + std::to_string(out.measured) + " of " +
                                           std::to_string(out.planned) + " points; the rest were not measured");
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

void append_samples(datasets::dataset& d, const point_result& r, std::int64_t first_rep) {
  for (std::size_t i = 0; i < r.values.size(); ++i)
    d.samples.push_back(
        {r.key, first_rep + static_cast<std::int64_t>(i), r.values[i], static_cast<std::int64_t>(r.batches[i])});
}

calibration_outcome run_calibration(const calibration_request& req, nlohmann::json context) {
  if (req.rounds < 1) throw std::invalid_argument("rounds must be at least 1");
  calibration_outcome out;
  const auto once = plan(req);
  const auto points = in_rounds(once, req.rounds);
  out.planned = once.size();
  std::map<datasets::key, std::int64_t> kept;  // samples kept so far per point
  context["calibration"] = request_json(req, req.runner);
  out.data.context = std::move(context);
  out.data.context["failures"] = nlohmann::json::array();
  const auto saved_affinity = sys::allowed_cpus();
  if (!req.sel.cpus.empty()) sys::pin_current_thread(req.sel.cpus[0]);
  const runner run(per_round(req.runner, req.rounds));
  const std::uint64_t t0 = clock_ns();
  std::uint64_t last_write = t0;
  int interrupted_round = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i > 0 && points[i - 1].probe != points[i].probe && points[i - 1].probe->release) points[i - 1].probe->release();
    const double elapsed = static_cast<double>(clock_ns() - t0) * 1e-9;
    if (req.progress) show_progress(i, points.size(), elapsed, points[i].key);
    try {
      const point_result r = run.measure(*points[i].probe, points[i].key, req.sel);
      const bool first_round = i < once.size();
      if (!r.skipped.empty()) {
        if (!first_round) continue;  // said once
        ++out.skipped;
        out.data.context["skipped"].push_back({{"point", datasets::describe(r.key)}, {"reason", r.skipped}});
        continue;
      }
      std::int64_t& reps = kept[r.key];
      if (reps == 0) ++out.measured;
      append_samples(out.data, r, reps);
      reps += static_cast<std::int64_t>(r.values.size());
    } catch (const sys::interrupted&) {
      out.interrupted = true;
      interrupted_round = static_cast<int>(i / once.size());
      break;
    } catch (const std::exception& e) {
      // A wrong answer or an OS failure: loud, recorded, and the run goes on so that
      // nothing measured is lost; the command exits 1 at the end.
      ++out.failed;
      const std::string what = datasets::describe(points[i].key) + ": " + e.what();
      if (req.progress) std::fprintf(stderr, "\r\033[K");
      std::fprintf(stderr, "pollscale: probe failed: %s\n", what.c_str());
      out.data.context["failures"].push_back(what);
    }
    if (clock_ns() - last_write > 30'000'000'000ull) {
      write_now(req, out.data);
      last_write = clock_ns();
    }
  }
  if (req.progress) std::fprintf(stderr, "\r\033[K");
  for (const auto& p : all_probes())
    if (p.release) p.release();
  sys::set_current_thread_affinity(saved_affinity);
  out.wall_s = static_cast<double>(clock_ns() - t0) * 1e-9;
  add_warnings(req, out, interrupted_round);
  out.data.context["calibration"]["wall_s"] = out.wall_s;
  write_now(req, out.data);
  return out;
}

}  // namespace pollscale::calibrate
