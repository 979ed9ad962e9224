// call_spread — how much one call's cost moves around its mean, call by call.
//
// Every other probe times batches: a sample is the mean of hundreds of back-to-back
// operations, which is what a cost model wants (the median of those means is the cost) but
// hides what a server meets call by call. A server's latency tail is made of single calls:
// the one a timer interrupt or a page-table walk landed in, the one that met a cold cache
// line, the one the host stole the CPU during. The simulator varies each call it charges
// by the spread measured here (sim/call_variation.hpp), so that its latency percentiles are
// the machine's and not those of a machine whose every call costs its mean.
//
// One operation is, by metric:
//  - time_per_call (wait calls): one find_active timeout-0 call over n pipes, one of them
//    readable at a seeded random position, with the caller's check of the answer — the
//    operation of find_active's time_per_call rows, set up the same way
//    (find_active.cpp), here timed alone. poll at n = 16, 256 and 4096 (full: and 16384),
//    about 1 to 250 µs on the fifth host, and epoll/lt at n = 256, a sub-µs call that does
//    not grow with n: a range of durations, because interrupts and stalls land in
//    a long call more often and count for less in it.
//  - time_per_op (the handler): one request read and its reply written on a loopback tcp
//    connection whose peer is this thread — handler.cpp's operation, timed alone.
//  - round_trip (wake-ups): one token round trip between two threads blocked in epoll/lt
//    on a pipe each, on one CPU and across two — wakeup.cpp's operation, timed alone. A
//    round trip is two wake-ups; its shape stands for one wake-up's (were the two
//    independent, one alone would spread by √2 as much: the tail given is the narrower).
// Each sample is one operation between two clock reads (runner.hpp, single_op_samples), so
// it includes one clock read (about 20-40 ns here), the same in every sample: a ratio
// (t + c) / (mean + c) pulls the spread in by c / (mean + c), about 5% for the 0.5-µs epoll
// call and under 3% for the others. A visit takes
// 1000 samples (full: 2000) after the runner's warm-up; a sample the thread was
// preempted in is taken again, as in the batched probes (another task's time is not this
// call's cost; the simulator schedules its own threads). What the host does to the
// guest — steal, a neighbour's cache traffic — is not seen as preemption and stays in.
// Only the shape is used downstream: each sample against the mean of its own visit
// (datasets/call_spread.hpp), so the visits' drift is left to the model's intervals.

#include <algorithm>

#include "calibrate/probes/probes.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::call_spread;

/// Samples per visit: enough that a visit's own 99th percentile rests on ten calls.
std::size_t samples_per_visit(profile_kind p) { return p == profile_kind::full ? 2000 : 1000; }

/// The probe whose operation a call_spread point times, and that probe's key for it.
struct inner_point {
  probe_def probe;
  datasets::key key;
};

inner_point inner_of(const datasets::key& k) {
  datasets::key inner = k;
  if (k.metric == datasets::metric::time_per_call) {
    inner.scenario = datasets::name(datasets::scenario::find_active);
    return {find_active(), std::move(inner)};
  }
  if (k.metric == datasets::metric::time_per_op) {
    inner.scenario = datasets::name(datasets::scenario::handler);
    return {handler(), std::move(inner)};
  }
  if (k.metric == datasets::metric::round_trip) {
    inner.scenario = datasets::name(datasets::scenario::wakeup);
    return {wakeup(), std::move(inner)};
  }
  throw std::invalid_argument("call_spread measures time_per_call, time_per_op or round_trip, not '" + k.metric + "'");
}

/// The other probe's instance, each sample one operation.
class single_op_instance final : public probe_instance {
 public:
  single_op_instance(std::unique_ptr<probe_instance> inner, std::size_t samples)
      : inner_(std::move(inner)), samples_(samples) {}
  std::uint64_t run(std::size_t ops) override { return inner_->run(ops); }
  void annotate(datasets::key& k) const override { inner_->annotate(k); }
  std::size_t single_op_samples() const override { return samples_; }

 private:
  std::unique_ptr<probe_instance> inner_;
  std::size_t samples_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  auto [probe, inner] = inner_of(key);
  return std::make_unique<single_op_instance>(probe.make(inner, sel), samples_per_visit(sel.profile));
}

/// poll at several n and epoll/lt at one (of those --mechanisms asks for), the tcp
/// handler, and epoll/lt's wake-up round trip over one pipe on one CPU and across two
/// (wakeup's own points; the cross-CPU one is skipped on a one-CPU mask). --n replaces
/// poll's n.
std::vector<datasets::key> call_spread_points(const selection& sel, std::span<const flavour> mechs) {
  const std::string cpu0 = datasets::pinning::on(sel.cpus.empty() ? 0 : sel.cpus[0]).text();
  const auto wanted = [&](mechanism m) {
    return std::any_of(mechs.begin(), mechs.end(), [&](const flavour& f) { return f.mech == m; });
  };
  std::vector<std::int64_t> poll_n = {16, 256, 4096};
  if (sel.profile == profile_kind::full) poll_n.push_back(16384);
  if (!sel.n_override.empty()) poll_n = sel.n_override;
  const std::int64_t n_max = max_channels(fd_kind::pipe, 0, 4, sel);
  std::vector<datasets::key> out;
  const auto add_wait = [&](const flavour& f, std::int64_t n) {
    datasets::key k = base_key(scenario, f, fd_kind::pipe, datasets::metric::time_per_call, "ns");
    k.n_fds = std::min(n, n_max);
    k.n_active = 1;
    k.active_pos = datasets::name(datasets::position::random);
    k.blocking = 0;
    k.threads = 1;
    k.cpus = 1;
    k.pinning = cpu0;
    out.push_back(std::move(k));
  };
  if (wanted(mechanism::poll))
    for (std::int64_t n : poll_n) add_wait({mechanism::poll, ""}, n);
  if (wanted(mechanism::epoll)) add_wait({mechanism::epoll, "lt"}, 256);
  datasets::key h;
  h.scenario = datasets::name(scenario);
  h.fd_kind = std::string(name_of(fd_kind::tcp));
  h.metric = datasets::name(datasets::metric::time_per_op);
  h.unit = "ns";
  h.threads = 1;
  h.cpus = 1;
  h.pinning = cpu0;
  out.push_back(std::move(h));
  const std::vector<flavour> epoll_lt = {{mechanism::epoll, "lt"}};
  for (datasets::key k : wakeup().points(sel, epoll_lt))
    if (k.n_fds == 1 && k.fd_kind == name_of(fd_kind::pipe) && k.mechanism == name_of(mechanism::epoll)) {
      k.scenario = datasets::name(scenario);
      out.push_back(std::move(k));
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

probe_def call_spread() {
  return {datasets::name(scenario),
          "single wait calls, handler operations and wake-up round trips, each timed alone (the per-call spread)",
          call_spread_points, make_instance};
}

}  // namespace pollscale::calibrate::probes
