// wakeup — a blocked waiter woken by a write, on the same CPU and across CPUs.
//
// Two threads of this process pass a token back and forth over two channels of one fd
// kind (pipe or eventfd): the main thread writes the token to channel A and blocks until
// it comes back on channel B; the partner thread blocks on A, reads the token and writes
// it to B. One operation is one full round trip: two writes, two wake-ups of a blocked
// thread, two reads — what `perf bench sched pipe` calls one op (it uses two processes by
// default, and threads with -T). metric round_trip, unit ns.
//
// How each thread blocks is the mechanism: empty = a blocking read(2) on the channel;
// poll, epoll (lt, et, oneshot), rtsig (sigtimedwait; the signal is directed at that
// thread with F_SETOWN_EX) or io_uring (POLL_ADD, oneshot or multishot); both threads use
// the same one, so both wake-ups go through it. With n_fds = n > 1, each thread's waiter
// watches n descriptors: n-1 idle pipes (never written, shared by both waiters) and its
// token channel registered last (active_pos "last"): poll sleeps on and rescans all n on
// every wake-up, epoll does not — the O(n) wake latency the model must see.
//
// Timed: the main thread's loop of round trips, nothing else; every wait's answer is
// checked inside it (exactly the token channel, read back; io_uring may report a late
// wake-up over an empty channel, which is re-armed and waited past, as a server's read
// that finds EAGAIN would). Not timed: creating channels
// and waiters, starting the partner. Pinning ("A+B"): the main thread runs on A (where the
// session pinned it), the partner on B; "0+0" shares one CPU, so each wake-up is a context
// switch on that CPU; "0+1" crosses CPUs, so each wake-up is an IPI (on a VM, a
// hypervisor exit). Both threads share one descriptor table, so each fd lookup takes a
// reference on the file (an atomic) that a single-threaded caller would skip.

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::wakeup;

/// One thread's end of the ping-pong: the channel it waits on, and how it waits.
class side {
 public:
  /// Watches channels 0..idle-1 and `token` with `f` (no flavour: blocking read of `token`).
  side(const channel_set& ch, std::size_t token, std::size_t idle, const std::optional<flavour>& f)
      : ch_(ch), token_(token), check_(ch.size(), {token}) {
    if (!f) return;
    w_ = make_waiter(*f, idle + 1);
    for (std::size_t i = 0; i < idle; ++i) w_->add(ch.watched(i), static_cast<std::uint32_t>(i));
    w_->add(ch.watched(token), static_cast<std::uint32_t>(token));
    scratch_.reserve(idle + 1);
  }

  /// Blocks until the token arrives and reads it; probe_failure on any other answer.
  void receive() {
    if (!w_) {
      if (!read_token(ch_.kind(), ch_.watched(token_))) throw probe_failure("blocking read returned no token");
      return;
    }
    check_.reset();
    harvest(*w_, ch_, check_, 1, -1, scratch_);
  }

  /// Untimed: a token written now is reported with timeout 0 (rtsig on a file without
  /// fasync never is: probe_skipped).
  void prove(const std::string& mechanism) {
    ch_.trigger(token_);
    if (!w_) return receive();
    check_.reset();
    try {
      harvest(*w_, ch_, check_, 1, 0, scratch_, 2000);
    } catch (const probe_failure&) {
      if (mechanism == datasets::mechanism::rtsig)
        throw probe_skipped("the kernel queues no signal for " + std::string(name_of(ch_.kind())) +
                            " (its file has no fasync)");
      throw;
    }
  }

 private:
  const channel_set& ch_;
  std::size_t token_;
  answer_checker check_;
  std::unique_ptr<waiter> w_;
  std::vector<std::uint32_t> scratch_;
};

std::optional<flavour> flavour_or_read(const datasets::key& k) {
  if (k.mechanism.empty()) return std::nullopt;
  return flavour_of(k);
}

class wakeup_instance final : public probe_instance {
 public:
  wakeup_instance(const datasets::key& key, const selection& sel)
      : n_(static_cast<std::size_t>(std::max<std::int64_t>(key.n_fds.value_or(1), 1))),
        a_(n_ - 1),
        b_(n_),
        f_(flavour_or_read(key)) {
    const int cpu = checked_partner_cpu(key, sel);
    const fd_kind kind = fd_kind_of(key);
    require_fds(channel_set::fds_needed(kind, n_ + 1, 2) + 8, sel);
    channel_options opts;
    opts.keep_trigger = [this](std::size_t i) { return i == a_ || i == b_; };
    ch_ = std::make_unique<channel_set>(kind, n_ + 1, opts);
    if (!f_) make_blocking({a_, b_});
    main_ = std::make_unique<side>(*ch_, b_, n_ - 1, f_);
    main_->prove(key.mechanism);
    std::future<void> ready = ready_.get_future();
    partner_ = std::make_unique<partner_thread>(
        cpu, [this](const std::atomic<bool>& stop) { partner_body(stop); }, [this] { ch_->trigger(a_); });
    if (ready.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
      throw probe_failure("the partner thread did not start within 10 s");
    ready.get();  // rethrows the partner's set-up error (probe_skipped too)
    run(1);       // one untimed round trip proves the whole path
  }

  ~wakeup_instance() override { partner_.reset(); }

  std::uint64_t run(std::size_t ops) override {
    const std::uint64_t t0 = clock_ns();
    for (std::size_t i = 0; i < ops; ++i) {
      ch_->trigger(a_);
      main_->receive();
      if (failed_.load(std::memory_order_acquire)) std::rethrow_exception(error_);
    }
    return clock_ns() - t0;
  }

 private:
  void make_blocking(std::initializer_list<std::size_t> channels) const {
    for (std::size_t i : channels) {
      const int fd = ch_->watched(i);
      const int fl = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(fd, F_GETFL); });
      sys::call("fcntl(F_SETFL, blocking)", [&] { return ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); });
    }
  }

  /// Runs on the partner thread: its waiter is made there (rtsig directs signals at it).
  /// Errors are handed to the main thread, which is woken so that it cannot hang.
  void partner_body(const std::atomic<bool>& stop) {
    bool started = false;
    try {
      side me(*ch_, a_, n_ - 1, f_);
      started = true;
      ready_.set_value();
      for (;;) {
        me.receive();
        if (stop) return;
        ch_->trigger(b_);
      }
    } catch (...) {
      if (!started) return ready_.set_exception(std::current_exception());
      error_ = std::current_exception();
      failed_.store(true, std::memory_order_release);
      try {
        ch_->trigger(b_);
      } catch (...) {  // the main thread then sees the error on its next operation
      }
    }
  }

  std::size_t n_, a_, b_;
  std::optional<flavour> f_;
  std::unique_ptr<channel_set> ch_;
  std::unique_ptr<side> main_;
  std::promise<void> ready_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
  std::unique_ptr<partner_thread> partner_;  // last: joined first
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<wakeup_instance>(key, sel);
}

std::vector<std::int64_t> at_most(std::vector<std::int64_t> ns, std::int64_t n_max) {
  for (auto& n : ns) n = std::min(n, n_max);
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  return ns;
}

datasets::key wakeup_key(const std::optional<flavour>& f, fd_kind kind, const std::string& pin, std::int64_t n) {
  datasets::key k =
      base_key(scenario, f.value_or(flavour{mechanism::poll, ""}), kind, datasets::metric::round_trip, "ns");
  if (!f) k.mechanism.clear();
  k.n_fds = n;
  k.n_active = 1;
  k.active_pos = datasets::name(datasets::position::last);
  k.blocking = 1;
  k.threads = 2;
  k.cpus = distinct_cpus(pin);
  k.pinning = pin;
  return k;
}

/// Blocking read (no mechanism, measured whatever --mechanisms says), then poll, epoll,
/// rtsig and io_uring: quick takes each one's first selected variant, full all of them.
std::vector<std::optional<flavour>> wakeup_flavours(std::span<const flavour> mechs, bool full) {
  std::vector<std::optional<flavour>> out = {std::nullopt};
  for (mechanism m : {mechanism::poll, mechanism::epoll, mechanism::rtsig, mechanism::io_uring}) {
    std::size_t taken = 0;
    for (const auto& f : mechs)
      if (f.mech == m && (full || taken++ == 0)) out.push_back(f);
  }
  return out;
}

/// quick: n = 1 for every flavour, fd kinds pipe and eventfd, same and other CPU; poll and
/// epoll also over n idle pipes (6 n on the same CPU, 1000 and 10000 across). full: every
/// selected variant, 10 n on both placements.
std::vector<datasets::key> wakeup_points(const selection& sel, std::span<const flavour> mechs) {
  const bool full = sel.profile == profile_kind::full;
  const int c0 = sel.cpus.empty() ? 0 : sel.cpus[0];
  const int c1 = sel.cpus.size() > 1 ? sel.cpus[1] : c0 + 1;  // not in the mask: make() skips it
  const std::vector<std::string> pins = {datasets::pinning::pair(c0, c0).text(),
                                         datasets::pinning::pair(c0, c1).text()};
  const auto flavours = wakeup_flavours(mechs, full);
  std::vector<datasets::key> out;
  for (fd_kind kind : {fd_kind::pipe, fd_kind::eventfd})
    for (const auto& pin : pins)
      for (const auto& f : flavours) out.push_back(wakeup_key(f, kind, pin, 1));
  const std::int64_t n_max = std::max<std::int64_t>(max_channels(fd_kind::pipe, 2, 10, sel) - 1, 1);
  for (mechanism m : {mechanism::poll, mechanism::epoll}) {
    const auto f = std::find_if(flavours.begin() + 1, flavours.end(), [m](const auto& x) { return x->mech == m; });
    if (f == flavours.end()) continue;
    for (const auto& pin : pins) {
      const bool same = pin == pins[0];
      const auto ns =
          same || full || !sel.n_override.empty() ? n_grid(sel, n_max, 6, 10) : at_most({1000, 10000}, n_max);
      for (auto n : ns)
        if (n > 1) out.push_back(wakeup_key(*f, fd_kind::pipe, pin, n));
    }
  }
  return out;
}

}  // namespace

int checked_partner_cpu(const datasets::key& k, const selection& sel) {
  const auto [main_cpu, other] = parse_pinning_pair(k.pinning);
  if (other != main_cpu) partner_cpu(sel, false);  // probe_skipped on a one-CPU mask
  if (std::find(sel.cpus.begin(), sel.cpus.end(), other) == sel.cpus.end())
    throw probe_skipped("CPU " + std::to_string(other) + " is not in the affinity mask");
  return other;
}

probe_def wakeup() {
  return {datasets::name(scenario),
          "one token round trip between two pinned threads: two blocked waiters woken by a write", wakeup_points,
          make_instance};
}

}  // namespace pollscale::calibrate::probes
