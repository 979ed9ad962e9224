// find_active — "find the active descriptors among n" (Kegel's Poller_bench, seeds 000/001).
//
// n descriptors of one kind are registered with the mechanism; k of them are active at
// chosen positions (first, middle, last, spread, random). One operation is, by metric:
//  - time_per_call (level-triggered mechanisms, timeout 0): one wait call while the k
//    descriptors stay readable (their data is never read), plus the caller's scan of the
//    result. Nothing else is timed: this is the wait call's own cost. threads=1: the
//    process has one thread; threads=2 (pinning "A+A"): the same call while a second
//    thread of the process is parked on the same CPU (blocked in a read, it never runs
//    while a batch is timed). That thread does nothing but share the descriptor table,
//    and that is the point: the kernel's fd lookup (fdget, in fs/file.c) borrows the file
//    without touching it while the table has one user, and takes and drops a reference —
//    two atomic writes to the struct file — once it has two. select and poll look up
//    every descriptor they scan, so a multi-threaded server pays that per descriptor on
//    every call (a C test on a 2-vCPU AMD EPYC guest, 2026-12-07: poll over 1000 pipes
//    27.8 us alone, 51.6 us with one parked thread, +24 ns a descriptor); epoll_wait looks
//    up its own descriptor once.
//  - time_per_op, blocking=0 (every mechanism): Kegel's cycle — write one byte to each
//    active descriptor, wait with timeout 0 until all k are reported, read the bytes back
//    and re-arm where the mechanism needs it (EPOLLONESHOT, io_uring one-shot). The writes
//    and reads are timed too: edge-, signal- and completion-based mechanisms have no cost
//    without them, and Kegel's published figures include them.
//  - time_per_op, blocking=1, threads=1: the same cycle with an infinite timeout, the data
//    already present on entry: the kernel registers a wait entry for each descriptor it
//    scans before the first ready one, so the active position matters (docs/model.md §2).
//  - time_per_op, blocking=1, threads=2: the waiter sleeps in the mechanism with nothing
//    ready; a writer thread pinned to the same or the other CPU (pinning "A+B"; on the same
//    CPU at nice 19, woken_instance says why), woken through an eventfd, waits until the
//    waiter sleeps (sleep_watch) and writes the k bytes; the waiter wakes, rescans and reads
//    them. One operation is that round trip: two wake-ups, the registering scan and the
//    rescan.
// Single-threaded batches the thread was preempted in are run again (they timed another
// task too). Every call's answer is checked (exactly the active descriptors, none twice)
// inside the timed loop, at about a nanosecond per reported descriptor — what dispatch
// costs anyway.
// Trigger ends of inactive channels live in a keeper process, so n reaches ~19700 under
// RLIMIT_NOFILE = 20000; points beyond the limit are skipped with the reason.

#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/shared_setup.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::find_active;

/// Which channels a set-up marks: the trigger ends kept in this process (a cycle writes to
/// them), or, for a persistent set-up (time_per_call), the channels made readable once.
struct channel_plan {
  fd_kind kind;
  std::size_t n;
  bool persistent;
  std::vector<std::size_t> marked;

  /// The set-up's name for setup_of: the same name, the same descriptors.
  std::string name() const {
    std::string s = std::string(name_of(kind)) + " n=" + std::to_string(n) + (persistent ? " ready=" : " kept=");
    for (std::size_t i = 0; i < marked.size(); ++i) s += (i ? "," : "") + std::to_string(marked[i]);
    return s;
  }
};

/// The shared plan of a point, when it can share: one ready channel, first, middle or last.
/// The set-up then keeps the trigger ends of all three positions, so that one set-up serves
/// the first, middle and last points of every mechanism at this n (two descriptors more,
/// which the grids' reserves hold: max_channels in probes.hpp) — the cycles', which trigger
/// and read their channel every cycle, and the persistent calls' (time_per_call), which make
/// theirs readable once for the whole point and read it back when they go (reusing_calls).
/// Where the descriptor budget does not hold the three trigger ends (a grid's largest n),
/// a cycle sets up alone and the calls of one position share a set-up whose channel is made
/// readable when it is built, as before (the call's own plan, kept under its name).
std::optional<channel_plan> shared_plan(const datasets::key& key) {
  if (key.n_active.value_or(1) != 1) return std::nullopt;
  const auto n = static_cast<std::size_t>(key.n_fds.value_or(0));
  using datasets::position;
  constexpr position cycle_positions[] = {position::first, position::middle, position::last};
  if (n == 0 || std::find(std::begin(cycle_positions), std::end(cycle_positions),
                          datasets::parse<position>(key.active_pos)) == std::end(cycle_positions))
    return std::nullopt;
  channel_plan plan{fd_kind_of(key), n, false, {}};
  for (position pos : cycle_positions) plan.marked.push_back(active_positions(datasets::name(pos), n, 1, 0).front());
  plan.marked.erase(std::unique(plan.marked.begin(), plan.marked.end()), plan.marked.end());
  return plan;
}

/// setup_of: the shared set-up's name, or "" for a point that sets up its own.
std::string setup_name(const datasets::key& key) {
  const auto plan = shared_plan(key);
  return plan ? plan->name() : std::string();
}

/// The set-ups kept between the points of one group (shared_setup.hpp).
shared_setup& kept_setups() {
  static shared_setup kept;
  return kept;
}

/// n, once the fewest descriptors n channels take fit the limit: checked before anything
/// of size n is allocated (a --n of 10^9 is skipped at once, not after gigabytes).
std::size_t descriptors_that_fit(const datasets::key& key, const selection& sel) {
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(key.n_fds.value_or(0), 0));
  require_fds(channel_set::fds_needed(fd_kind_of(key), n, 0) + 4, sel);
  return n;
}

/// The channels, the waiter holding all of them, and the expected answer.
struct find_active_setup {
  std::size_t n;
  std::size_t k;
  std::vector<std::size_t> active;
  std::shared_ptr<channel_set> ch;
  std::unique_ptr<waiter> w;
  answer_checker check;
  std::vector<std::uint32_t> scratch;
  /// Channels this point made readable in a set-up it shares with cycles, read back when it
  /// goes (on every path: the next point's answer check expects none ready).
  std::vector<std::size_t> left_ready;

  find_active_setup(const datasets::key& key, const selection& sel, bool persistent)
      : n(descriptors_that_fit(key, sel)),
        k(static_cast<std::size_t>(key.n_active.value_or(1))),
        active(active_positions(key.active_pos, n, k, sel.seed)),
        check(n, active) {
    channel_plan plan{fd_kind_of(key), n, persistent, active};
    std::string name;
    if (auto shared = shared_plan(key)) {
      if (channel_set::fds_needed(plan.kind, n, shared->marked.size()) + 4 <= sel.max_fds) {
        plan = *shared;
        name = plan.name();
      } else if (persistent) {
        name = plan.name();  // the calls of this position share their own (readable from the start)
      }
    }
    require_fds(channel_set::fds_needed(plan.kind, n, plan.persistent ? 0 : plan.marked.size()) + 4, sel);
    ch = kept_setups().get(name, [&] { return build(plan); });
    w = make_waiter(flavour_of(key), n);
    for (std::size_t i = 0; i < n; ++i) w->add(ch->watched(i), static_cast<std::uint32_t>(i));
    scratch.reserve(n);
    if (persistent && !plan.persistent) reusing_calls();  // last: nothing after it throws
  }
  /// A channel that cannot be read back leaves the shared set-up unfit for the next point:
  /// it is let go, and the next point builds its own.
  ~find_active_setup() {
    bool clean = true;
    for (std::size_t i : left_ready) {
      try {
        clean = ch->try_consume(i) && clean;
      } catch (const std::exception&) {
        clean = false;
      }
    }
    if (!clean) kept_setups().release();
  }
  find_active_setup(const find_active_setup&) = delete;
  find_active_setup& operator=(const find_active_setup&) = delete;

  /// A persistent call on the cycles' set-up: its channel made readable for the whole point.
  void reusing_calls() {
    for (std::size_t i : active) {
      ch->trigger(i);
      left_ready.push_back(i);
    }
  }

  static std::unique_ptr<channel_set> build(const channel_plan& plan) {
    std::vector<bool> marked(plan.n, false);
    for (std::size_t i : plan.marked) marked[i] = true;
    channel_options opts;
    opts.keep_trigger = [&](std::size_t i) { return !plan.persistent && marked[i]; };
    opts.ready_initially = [&](std::size_t i) { return plan.persistent && marked[i]; };
    return std::make_unique<channel_set>(plan.kind, plan.n, opts);
  }

  void trigger_all() const {
    for (std::size_t i : active) ch->trigger(i);
  }

  /// One untimed cycle with timeout 0 proves the mechanism delivers on this fd kind. A
  /// proof that fails reads its triggers back, so that a shared set-up is left empty (the
  /// session also frees the set-up after a failed or skipped visit: calibration.cpp).
  void prove_delivery(const datasets::key& key) {
    check.reset();
    trigger_all();
    try {
      harvest(*w, *ch, check, k, 0, scratch, 2000);
    } catch (const probe_failure&) {
      for (std::size_t i : active) ch->try_consume(i);
      if (key.mechanism == name_of(mechanism::rtsig))
        throw probe_skipped("the kernel queues no signal for " + key.fd_kind + " (its file has no fasync)");
      throw;
    }
  }
};

class call_instance final : public probe_instance {
 public:
  call_instance(const datasets::key& key, const selection& sel) : s_(key, sel, true) {
    if (!s_.w->level_triggered()) throw std::invalid_argument("time_per_call needs a level-triggered mechanism");
    if (key.threads.value_or(1) == 2) sibling_.emplace(parse_pinning_pair(key.pinning).second);
    run(1);  // proves the answer before anything is timed
  }
  std::uint64_t run(std::size_t ops) override {
    const std::uint64_t t = time_unpreempted([&] { return calls(ops); }, [] {});
    if (sibling_) sibling_->check();
    return t;
  }
  void annotate(datasets::key& k) const override { k.max_fd = s_.ch->watched(s_.ch->size() - 1); }

 private:
  std::uint64_t calls(std::size_t ops) {
    const std::uint64_t t0 = clock_ns();
    for (std::size_t i = 0; i < ops; ++i) {
      if (s_.w->wait(s_.scratch, 0) != s_.k)
        throw probe_failure("wait returned " + std::to_string(s_.scratch.size()) + " ready, expected " +
                            std::to_string(s_.k));
      s_.check.reset();
      s_.check.accept(s_.scratch, "wait");
    }
    return clock_ns() - t0;
  }

  find_active_setup s_;
  std::optional<parked_sibling> sibling_;  // threads=2 only; after s_, so it goes first
};

class cycle_instance final : public probe_instance {
 public:
  cycle_instance(const datasets::key& key, const selection& sel)
      : s_(key, sel, false), timeout_ms_(key.blocking.value_or(0) ? -1 : 0) {
    s_.prove_delivery(key);
  }
  std::uint64_t run(std::size_t ops) override {
    // Single-threaded and never sleeping: a batch the thread was preempted in timed
    // another task too, so it is run again (probe_support.hpp).
    return time_unpreempted([&] { return cycles(ops); }, [] {});
  }
  void annotate(datasets::key& k) const override { k.max_fd = s_.ch->watched(s_.ch->size() - 1); }

 private:
  std::uint64_t cycles(std::size_t ops) {
    const std::uint64_t t0 = clock_ns();
    for (std::size_t i = 0; i < ops; ++i) {
      s_.check.reset();
      s_.trigger_all();
      harvest(*s_.w, *s_.ch, s_.check, s_.k, timeout_ms_, s_.scratch);
    }
    return clock_ns() - t0;
  }

  find_active_setup s_;
  int timeout_ms_;
};

// The writer writes only once the waiter sleeps in its wait call (sleep_watch): released
// at once, it would race the waiter's scan, and from about n = 100 sockets (a 25 us scan
// against a 20 us cross-CPU wake-up) the waiter would find the data while still scanning
// and never sleep, so the point would measure a ready-at-entry call; single runs then read
// 41 us at n = 10 and 28 us at n = 100 over socketpairs on the other CPU. The writer's
// last wchan read (about 0.6 us, overlapping nothing) is in the timed round trip.
//
// On the waiter's own CPU the writer runs at the lowest priority (nice 19). At the waiter's
// priority the eventfd write that releases it may preempt the waiter before it reaches its
// wait call; the writer then finds it awake and yields until it sleeps, switches the wait
// does not have. Whether that happens is settled per thread pair by the scheduler's state:
// in a quick calibration a visit over pipes or socketpairs read either about 12 us or about
// 20.5 us a round trip, nothing between, 40% of visits the dearer (10 visits of each of 11
// points, 2026-12-06); a C replica of this handshake yielded 0.7-1.3 times a round trip and
// read 14.8-17.4 us, and with the writer at nice 19 0.04 times and 11.6-12.1 us. At nice
// 19 the writer runs only while the waiter sleeps; the waiter's wake-up still preempts it,
// as it preempts any producer on its CPU.
class woken_instance final : public probe_instance {
 public:
  woken_instance(const datasets::key& key, const selection& sel)
      : s_(key, sel, false),
        go_(sys::call("eventfd", [] { return ::eventfd(0, EFD_CLOEXEC); })),
        waiter_tid_(::gettid()) {
    s_.prove_delivery(key);
    const auto [waiter_cpu, writer_cpu] = parse_pinning_pair(key.pinning);
    const bool same_cpu = waiter_cpu == writer_cpu;
    writer_ = std::make_unique<partner_thread>(
        writer_cpu,
        [this, same_cpu](const std::atomic<bool>& stop) {
          if (same_cpu)
            sys::call("setpriority",
                      [] { return ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), lowest_priority); });
          sleep_watch waiter(waiter_tid_);
          std::uint64_t v = 0;
          while (sys::call("read(go)", [&] { return ::read(go_.get(), &v, sizeof v); }) > 0 && !stop) {
            waiter.wait_until_asleep(same_cpu, asleep_limit_ns);
            s_.trigger_all();
          }
        },
        [this] { write_token(fd_kind::eventfd, go_.get()); });
  }
  ~woken_instance() override { writer_.reset(); }

  std::uint64_t run(std::size_t ops) override {
    const std::uint64_t t0 = clock_ns();
    for (std::size_t i = 0; i < ops; ++i) {
      s_.check.reset();
      write_token(fd_kind::eventfd, go_.get());
      harvest(*s_.w, *s_.ch, s_.check, s_.k, -1, s_.scratch);
    }
    const std::uint64_t t = clock_ns() - t0;
    writer_->check();
    return t;
  }
  void annotate(datasets::key& k) const override { k.max_fd = s_.ch->watched(s_.ch->size() - 1); }

 private:
  static constexpr std::uint64_t asleep_limit_ns = 10'000'000'000;  // a 20000-fd scan takes ~10 ms
  static constexpr int lowest_priority = 19;                        // nice; raising it needs no privilege

  find_active_setup s_;
  sys::unique_fd go_;
  pid_t waiter_tid_;
  std::unique_ptr<partner_thread> writer_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  if (key.metric == datasets::metric::time_per_call) return std::make_unique<call_instance>(key, sel);
  if (key.threads.value_or(1) == 2) return std::make_unique<woken_instance>(key, sel);
  return std::make_unique<cycle_instance>(key, sel);
}

}  // namespace

probe_def find_active() {
  return {datasets::name(scenario),
          "one wait over n fds with k ready (timeout 0, ready-at-entry, or woken by a writer)",
          find_active_points,
          make_instance,
          [] { kept_setups().release(); },
          setup_name};
}

}  // namespace pollscale::calibrate::probes
