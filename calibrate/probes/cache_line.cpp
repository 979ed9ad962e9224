// cache_line — one cache line handed from one CPU to another and back.
//
// The smallest thing two CPUs can share, and what every shared structure of the
// CPU-scaling scenarios costs per touch from the other CPU: the epoll instance's lock and
// ready list, a file's reference count, the eventfd's counter (docs/scaling.md). Two
// threads pinned to CPUs A and B take turns on one 64-byte-aligned counter: the measuring
// thread (on A) writes it odd and spins until it reads it even again; the partner (on B)
// spins until it reads it odd and writes it even. One operation is one round trip: the
// line moves to B (B's read misses, then B's write takes ownership) and back to A (A's read
// misses) — two transfers of ownership, no system call, no sleep; metric round_trip, unit
// ns. On a VM the vCPUs may sit on two cores of one CCX, two CCXs or two sockets of the host
// and move between them, so the figure is what this guest's CPUs pay now (the cross-CPU wake
// sentinel drifts with the same placement).
//
// The partner spins only during a batch: between batches it sleeps on a second line (a
// futex), which run(ops) sets, so no CPU burns while the session measures other points.
// Timed: the round trips of the batch, nothing else. Not timed: waking the partner and one
// round trip after it (so that the timed ones start with the partner spinning). Checked:
// the counter ends at exactly two steps per round trip; a round trip waiting 10 s fails the
// probe (the partner never ran).
//
// A point's two threads on one CPU would measure the scheduler's time slice, not the
// line: only pairs of distinct CPUs are listed. Grid: the first CPU of the mask with the
// second and the last (quick; one point on two CPUs) or with every other CPU up to 16
// (full: the distances a bigger machine has — same core complex, another one, another
// socket). A one-CPU mask lists the pair with a CPU outside it, which is skipped, as for
// wakeup. Key columns: scenario cache_line, no mechanism, fd kind or n; threads 2, cpus 2,
// pinning "A+B".

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::cache_line;
constexpr std::size_t line_bytes = 64;              // x86-64 and arm64 lines
constexpr std::uint64_t stall_ns = 10'000'000'000;  // a round trip this long: the partner never ran
constexpr std::size_t full_partners = 16;           // CPUs paired with the first in the full grid

void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();  // yields the core's pipeline to a sibling thread, saves power
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class cache_line_instance final : public probe_instance {
 public:
  cache_line_instance(const datasets::key& key, const selection& sel) {
    const auto [main_cpu, other] = parse_pinning_pair(key.pinning);
    if (other == main_cpu)
      throw probe_skipped("cache_line on one CPU (" + key.pinning +
                          ") would measure the scheduler's time slice, not a line transfer");
    for (const int cpu : {main_cpu, other})
      if (std::find(sel.cpus.begin(), sel.cpus.end(), cpu) == sel.cpus.end())
        throw probe_skipped("CPU " + std::to_string(cpu) + " is not in the affinity mask");
    partner_ = std::make_unique<partner_thread>(
        other, [this](const std::atomic<bool>& stop) { serve(stop); },
        [this] {
          active_.store(true, std::memory_order_release);
          active_.notify_all();
        });
  }

  ~cache_line_instance() override { partner_.reset(); }  // joined before the lines go

  std::uint64_t run(std::size_t ops) override {
    active_.store(true, std::memory_order_release);
    active_.notify_one();
    const std::uint64_t start = turn_.load(std::memory_order_relaxed);
    round_trip();  // untimed: the partner is awake and spinning
    const std::uint64_t t0 = clock_ns();
    for (std::size_t i = 0; i < ops; ++i) round_trip();
    const std::uint64_t elapsed = clock_ns() - t0;
    active_.store(false, std::memory_order_release);
    const std::uint64_t moved = turn_.load(std::memory_order_acquire) - start;
    if (moved != 2 * (ops + 1))
      throw probe_failure("cache_line: the counter moved " + std::to_string(moved) + " steps for " +
                          std::to_string(ops + 1) + " round trips");
    return elapsed;
  }

  std::size_t min_batch() const override { return 1024; }  // about 0.1-1 ms of round trips

 private:
  // The measuring thread's half: odd out, spin until the partner makes it even.
  void round_trip() {
    const std::uint64_t v = turn_.load(std::memory_order_relaxed);
    turn_.store(v + 1, std::memory_order_release);
    std::uint64_t spins = 0;
    std::uint64_t since = 0;
    while (turn_.load(std::memory_order_acquire) != v + 2) {
      spin_pause();
      if (++spins % 65536 != 0) continue;
      partner_->check();
      const std::uint64_t now = clock_ns();
      if (since == 0) since = now;
      if (now - since > stall_ns) throw probe_failure("cache_line: no answer from the partner CPU for 10 s");
    }
  }

  // The partner's half: sleeps while no batch runs, spins during one.
  void serve(const std::atomic<bool>& stop) {
    while (!stop.load(std::memory_order_acquire)) {
      if (!active_.load(std::memory_order_acquire)) {
        active_.wait(false, std::memory_order_acquire);
        continue;
      }
      const std::uint64_t v = turn_.load(std::memory_order_acquire);
      if (v & 1)
        turn_.store(v + 1, std::memory_order_release);
      else
        spin_pause();
    }
  }

  alignas(line_bytes) std::atomic<std::uint64_t> turn_{0};  // the line that travels
  alignas(line_bytes) std::atomic<bool> active_{false};     // read-shared during a batch: stays put
  alignas(line_bytes) std::unique_ptr<partner_thread> partner_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<cache_line_instance>(key, sel);
}

datasets::key pair_key(int a, int b) {
  datasets::key k;
  k.scenario = datasets::name(scenario);
  k.threads = 2;
  k.cpus = 2;
  k.pinning = datasets::pinning::pair(a, b).text();
  k.metric = datasets::name(datasets::metric::round_trip);
  k.unit = "ns";
  return k;
}

std::vector<datasets::key> cache_line_points(const selection& sel, std::span<const flavour> mechs) {
  (void)mechs;  // a property of the machine, measured whatever mechanisms were chosen
  const int c0 = sel.cpus.empty() ? 0 : sel.cpus[0];
  if (sel.cpus.size() < 2) return {pair_key(c0, c0 + 1)};  // not in the mask: make() skips it
  std::vector<int> partners;
  if (sel.profile == profile_kind::full)
    partners.assign(sel.cpus.begin() + 1,
                    sel.cpus.begin() + static_cast<std::ptrdiff_t>(std::min(sel.cpus.size(), full_partners + 1)));
  else
    partners = {sel.cpus[1], sel.cpus.back()};
  partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
  std::vector<datasets::key> out;
  for (int b : partners) out.push_back(pair_key(c0, b));
  return out;
}

}  // namespace

probe_def cache_line() {
  return {datasets::name(scenario),
          "one cache line handed to another CPU and back: two spinning threads take turns on one counter",
          cache_line_points, make_instance};
}

}  // namespace pollscale::calibrate::probes
