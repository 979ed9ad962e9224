#include "calibrate/runner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/sys/syscall.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::calibrate {
namespace {

void check_stop() {
  if (sys::stop_requested.load(std::memory_order_relaxed)) throw sys::interrupted();
}

double seconds_since(std::uint64_t t0) { return static_cast<double>(clock_ns() - t0) * 1e-9; }

}  // namespace

runner_options options_for(profile_kind p, const timer_facts& t) {
  runner_options o;
  if (p == profile_kind::full) {
    o.warmup_s = 0.1;
    o.max_s_per_point = 2.0;
    o.min_samples = 21;
  }
  o.min_sample_ns = std::max({50.0 * t.resolution_ns, 100.0 * t.overhead_ns, 10'000.0});
  return o;
}

double convert_ns_per_op(double ns, const std::string& unit) {
  if (unit == "ns") return ns;
  if (unit == "us") return ns * 1e-3;
  if (unit == "ms") return ns * 1e-6;
  if (unit == "s") return ns * 1e-9;
  if (unit == "1/s") return 1e9 / ns;
  if (unit == "1/ms") return 1e6 / ns;
  throw std::invalid_argument("cannot express a duration in unit '" + unit + "'");
}

double runner::run_batch(probe_instance& inst, std::size_t ops, const std::string& unit, double& value) const {
  const double n = static_cast<double>(ops);
  if (!inst.counts()) {
    const auto ns = static_cast<double>(inst.run(ops));
    value = convert_ns_per_op(std::max(ns / n, 1e-3), unit);
    return ns;
  }
  if (unit != "1")
    throw probe_failure("a counting probe's point has unit '" + unit + "', not 1 (a count per operation)");
  const std::uint64_t t0 = clock_ns();
  value = static_cast<double>(inst.run(ops)) / n;
  return static_cast<double>(clock_ns() - t0);
}

std::size_t runner::size_batch(probe_instance& inst, const std::string& unit) const {
  // Double the batch until one lasts min_sample_ns; then scale to it directly.
  std::size_t ops = std::max<std::size_t>(1, inst.min_batch());
  for (;;) {
    check_stop();
    double value = 0;
    const double t = run_batch(inst, ops, unit, value);
    if (t >= opts_.min_sample_ns) return ops;
    if (t > opts_.min_sample_ns / 8)
      return std::max(ops + 1, static_cast<std::size_t>(std::ceil(static_cast<double>(ops) * opts_.min_sample_ns / t)));
    if (ops >= (std::size_t{1} << 24)) return ops;
    ops *= 2;
  }
}

void runner::warm_up(probe_instance& inst, std::size_t ops) const {
  const std::uint64_t warm = clock_ns();
  for (int i = 0; i < 2 || seconds_since(warm) < opts_.warmup_s; ++i) {
    check_stop();
    inst.run(ops);
  }
}

void runner::measure_singles(probe_instance& inst, std::size_t count, point_result& r) const {
  // The same warm-up as a batched point; then `count` operations each timed alone, or as
  // many as four times the point's time cap allows (a slow operation). No stopping rule:
  // the spread, tails included, is what is wanted, so every visit takes the same number.
  warm_up(inst, 1);
  const std::uint64_t t0 = clock_ns();
  while (r.values.size() < count && (r.values.size() < 3 || seconds_since(t0) < 4 * opts_.max_s_per_point)) {
    check_stop();
    double value = 0;
    run_batch(inst, 1, r.key.unit, value);
    r.values.push_back(value);
    r.batches.push_back(1);
  }
  r.converged = r.values.size() == count;
}

void runner::sample(probe_instance& inst, std::uint64_t made, point_result& r) const {
  const std::size_t ops = size_batch(inst, r.key.unit);
  warm_up(inst, ops);
  const std::uint64_t t0 = clock_ns();
  r.prepare_s = static_cast<double>(t0 - made) * 1e-9;
  while (r.values.size() < opts_.max_samples) {
    check_stop();
    double value = 0;
    run_batch(inst, ops, r.key.unit, value);
    r.values.push_back(value);
    r.batches.push_back(ops);
    if (r.values.size() >= opts_.min_samples && r.values.size() % 4 == 0) {
      const auto s = datasets::summarise(r.values);
      if (datasets::relative_median_halfwidth(s) <= opts_.target_rel_halfwidth) {
        r.converged = true;
        break;
      }
    }
    const double elapsed = seconds_since(t0);
    if (elapsed >= opts_.max_s_per_point && r.values.size() >= opts_.min_samples) break;
    if (elapsed >= 4 * opts_.max_s_per_point && r.values.size() >= 3) break;  // very slow ops
  }
  r.measure_s = seconds_since(t0);
  if (!r.converged)
    r.converged = datasets::relative_median_halfwidth(datasets::summarise(r.values)) <= opts_.target_rel_halfwidth;
}

point_result runner::measure(const probe_def& probe, const datasets::key& k, const selection& sel) const {
  point_result r;
  r.key = k;
  const std::uint64_t start = clock_ns();
  std::unique_ptr<probe_instance> inst;
  try {
    inst = probe.make(k, sel);
  } catch (const probe_skipped& e) {
    r.skipped = e.what();
    r.wall_s = seconds_since(start);
    return r;
  }
  inst->annotate(r.key);
  const std::uint64_t made = clock_ns();
  r.setup_s = static_cast<double>(made - start) * 1e-9;
  if (const std::size_t singles = inst->single_op_samples(); singles > 0) {
    measure_singles(*inst, singles, r);  // its warm-up is counted with its samples
    r.measure_s = seconds_since(made);
  } else {
    sample(*inst, made, r);
  }
  // The instance's teardown (descriptors closed, threads joined) is its set-up's other half.
  const std::uint64_t torn = clock_ns();
  inst.reset();
  r.setup_s += seconds_since(torn);
  r.wall_s = seconds_since(start);
  return r;
}

}  // namespace pollscale::calibrate
