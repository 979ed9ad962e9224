// shared_epoll — tokens passed per second by T threads that wait on epoll over descriptors
// they all share.
//
// The multi-threaded server's other choice beside private_sets (every thread its own
// descriptors and epoll instance): T threads waiting on the same descriptors. T pipes form
// a ring and hold K one-byte tokens, spread evenly at the start: K = T (n_active = T, one
// per thread: every thread always has work) or K = 1 (one event in flight among T
// waiters: every pass hands the token on to threads that sleep). Every thread loops:
// epoll_wait (blocking, one event at most), read one byte from the reported pipe, write it
// to the next pipe of the ring. One operation is one token passed on — one wait, one read,
// one write. A read takes one token even when a pipe holds several, so tokens never merge
// and every pass costs the same work (an eventfd's read takes its whole counter: tokens
// would clump and a pass would count several). Two ways to share, the variant column:
//  - lt: one epoll instance for all threads, level-triggered. Waiters sleep on its wait
//    queue exclusively (one woken per event), but an item reported stays on the ready list
//    and the kernel wakes the next waiter for it, which may find the pipe already read (a
//    read that returns EAGAIN, counted by futile()) or nothing left and sleep again;
//  - exclusive: every thread its own epoll instance watching all T pipes with
//    EPOLLEXCLUSIVE (level-triggered): a write wakes one waiting instance, or a few, not
//    every one — the accept-herd fix of Linux 4.5, here on pipes;
//  - oneshot: one instance, edge-triggered and one-shot (EPOLLET | EPOLLONESHOT), the way
//    thread pools share descriptors edge-triggered: a report disables the pipe's item, so
//    no second thread is told of it; the thread that read it re-arms it (epoll_ctl MOD)
//    before passing the token on, and a MOD finding a byte left reports the pipe again.
//    So an operation adds one epoll_ctl, and no wake-up is futile by construction.
// Two figures per point, the metric column:
//  - throughput (1/s): tokens passed per second;
//  - wakeups (1, a count per operation): the times a thread slept in epoll_wait and was
//    woken, per token passed — each thread's voluntary context switches
//    (getrusage(RUSAGE_THREAD)) over its active stretch, between being let go and parking,
//    summed and divided by the passes of the same stretch. With K = T it is near 0 (a
//    ready pipe is almost always there); with K = 1 it is about 1 when each pass wakes one
//    sleeper that takes the token, below 1 when the writer takes its own token on before
//    the woken thread runs, and above 1 by the futile wake-ups: woken threads that found
//    nothing and slept again. It is what EPOLLEXCLUSIVE is for, and what the simulator's
//    wake-up policy (all or one) predicts. A wakeups batch is a throughput batch counted
//    instead of timed, between two quiet moments (quiesce: every thread parked, its count
//    in), so the passes threads add after the target and their sleeps fall in one batch.
// Edge-triggered sharing without one-shot is left out: a pipe written twice before its one
// report would strand the second token unless the reader drained it, and a draining read
// is the clumping above; EPOLLONESHOT's re-arm is what reports the second one.
// What the threads share is the question: with one instance, its ready list, its lock and
// its wait queue are taken by every write (ep_poll_callback) and every wait; with
// exclusive instances, each pipe's wait queue. So against private_sets (nothing shared)
// on the same CPUs, the gap is what sharing costs, and its growth with T and C is the
// contention the CPU-scaling law's σ and κ read (docs/scaling.md).
//
// Threads do not run ahead. Between batches they sleep (a futex). pass(ops) starts the
// clock, raises a shared target by ops and wakes them; a thread waits for an event only
// while fewer than the target have passed, and the caller — the measuring thread, which
// itself passes nothing — sleeps on a condition variable that the pass reaching the target
// signals, and stops the clock. Threads already waiting when the target is reached may
// pass up to T - 1 more after it (untimed; the next batch's target starts from what has
// passed). A batch holds at least 2048 passes (min_batch): 8 ms at the 0.25 M passes/s of
// one CPU of a 2-vCPU KVM guest, against the tens of µs that waking the threads costs.
// An eventfd in every instance (never exclusive), the kick, is written to end a batch
// for threads asleep with no token for them (quiesce) and read once all are parked; it
// is idle while a batch is timed. The threads' epoll_wait also times out every 100 ms, so
// that a stop is seen; 10 s without a pass is a stall.
//
// Timed: raising the target and waking the threads, their waits, reads and writes, the
// caller's wake-up. Not timed: the pipes, instances and threads, one untimed pass of T
// tokens that proves the ring, the checks, and the whole of a wakeups batch. Checked:
// every token read is written on; the set-up's untimed pass ends with exactly K tokens in
// the ring (the tests check it after batches too).
//
// Key columns: scenario shared_epoll, mechanism epoll, variant lt, exclusive or oneshot, fd_kind
// pipe; metric throughput (1/s) or wakeups (1); n_fds = T (the ring's pipes, one per
// thread: the law's N, as for producers and private_sets); n_active = K (tokens); blocking
// 1; threads = T (the measuring thread sleeps through a batch and is not counted); pinning
// = the CPU of each thread, thread i on the (i mod C)-th of the series' C CPUs; cpus =
// min(C, T); max_fd = the highest watched (read) end.

#include "calibrate/probes/shared_epoll.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr int wait_timeout_ms = 100;                    // a thread's epoll_wait (see the essay)
constexpr auto stall_limit = std::chrono::seconds(10);  // no pass for this long: a stall
constexpr std::size_t batch_passes = 2048;              // min_batch

/// The pipes' epoll flags beside EPOLLIN for the variant: 0 (lt), EPOLLEXCLUSIVE or
/// EPOLLET | EPOLLONESHOT; std::invalid_argument for another.
std::uint32_t mode_of(const datasets::key& key) {
  const auto v = datasets::parse<datasets::variant>(key.variant);
  if (v == datasets::variant::lt) return 0;
  if (v == datasets::variant::exclusive) return EPOLLEXCLUSIVE;
  if (v == datasets::variant::oneshot) return EPOLLET | EPOLLONESHOT;
  throw std::invalid_argument("shared_epoll point " + datasets::describe(key) + ": variant '" + key.variant +
                              "' is not lt, exclusive or oneshot");
}

/// K, the tokens in the ring: key.n_active, T when absent; std::invalid_argument outside 1..T.
std::size_t token_count(const datasets::key& key, std::size_t threads) {
  const std::int64_t k = key.n_active.value_or(static_cast<std::int64_t>(threads));
  if (k < 1 || static_cast<std::size_t>(k) > threads)
    throw std::invalid_argument("shared_epoll point " + datasets::describe(key) + ": " + std::to_string(k) +
                                " tokens (n_active) for " + std::to_string(threads) + " threads; 1 to " +
                                std::to_string(threads));
  return static_cast<std::size_t>(k);
}

}  // namespace

shared_epoll_driver::shared_epoll_driver(const datasets::key& key, const selection& sel)
    : n_(point_threads(datasets::name(datasets::scenario::shared_epoll), key, max_threads)),
      tokens_(token_count(key, n_)),
      mode_(mode_of(key)),
      crew_(std::string(datasets::name(datasets::scenario::shared_epoll)), [this] { gate_.stop(); }) {
  exclusive_ = mode_ == EPOLLEXCLUSIVE;
  const auto cpus = point_thread_cpus(datasets::name(datasets::scenario::shared_epoll), key, n_, sel);
  require_fds(2 * n_ + (exclusive_ ? n_ : 1) + 5, sel);
  kick_ = sys::unique_fd(sys::call("eventfd", [] { return ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }));
  for (std::size_t i = 0; i < n_; ++i) {
    int p[2];
    sys::call("pipe2", [&] { return ::pipe2(p, O_NONBLOCK | O_CLOEXEC); });
    fds_.emplace_back(p[0]);
    ends_.emplace_back(p[1]);
  }
  for (std::size_t j = 0; j < tokens_; ++j) {  // evenly spaced: pipe j·T/K
    const char token = 't';
    sys::call("write(pipe)", [&] { return ::write(ends_[j * n_ / tokens_].get(), &token, 1); });
  }
  for (std::size_t e = 0; e < (exclusive_ ? n_ : 1); ++e) {
    epfds_.emplace_back(sys::call("epoll_create1", [] { return ::epoll_create1(EPOLL_CLOEXEC); }));
    for (std::size_t i = 0; i < n_; ++i) {
      epoll_event ev{};
      ev.events = EPOLLIN | mode_;
      ev.data.u32 = static_cast<std::uint32_t>(i);
      sys::call("epoll_ctl(ADD)", [&] { return ::epoll_ctl(epfds_.back().get(), EPOLL_CTL_ADD, fds_[i].get(), &ev); });
    }
    epoll_event kick{};
    kick.events = EPOLLIN;  // never exclusive: a kick is for every waiter
    kick.data.u32 = static_cast<std::uint32_t>(n_);
    sys::call("epoll_ctl(ADD)", [&] { return ::epoll_ctl(epfds_.back().get(), EPOLL_CTL_ADD, kick_.get(), &kick); });
  }
  workers_ = std::make_unique<worker[]>(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    workers_[i].cpu = cpus[i];
    workers_[i].epfd = epfds_[exclusive_ ? i : 0].get();
  }
  crew_.start(0, n_, [this](std::size_t i) { serve(i); });
  crew_.wait_until_running();
  pass(n_);  // untimed: the ring moves
  if (const auto t = tokens_in_ring(); t != tokens_)
    throw probe_failure("shared_epoll: " + std::to_string(t) + " tokens in the ring after the set-up's pass, " +
                        std::to_string(tokens_) + " were put in");
}

shared_epoll_driver::~shared_epoll_driver() = default;  // crew_ (last member) stops and joins first

void shared_epoll_driver::count(std::uint64_t tokens) {
  const std::uint64_t before = passed_.fetch_add(tokens, std::memory_order_acq_rel);
  // The target read after the add: a pass that lands after the caller last looked at
  // passed_ also lands after it raised the target, so it sees that target and signals.
  const std::uint64_t target = gate_.target();
  if (before < target && before + tokens >= target) {
    const std::lock_guard lock(done_mutex_);  // the caller is inside wait_for, or has not checked yet
    done_.notify_all();
  }
}

bool shared_epoll_driver::move_one(worker& me) {
  epoll_event ev{};
  if (sys::call("epoll_wait", [&] { return ::epoll_wait(me.epfd, &ev, 1, wait_timeout_ms); }) == 0) return false;
  const std::uint32_t i = ev.data.u32;
  if (i == n_) return false;  // kicked: the batch is over (quiesce)
  if (i > n_) throw probe_failure("shared_epoll: epoll reported unknown tag " + std::to_string(i));
  char token = 0;
  const bool got = sys::call("read(pipe)", [&] { return ::read(fds_[i].get(), &token, 1); }, {EAGAIN}) >= 0;
  if (mode_ & EPOLLONESHOT) rearm(me.epfd, i);  // before the token moves on: a byte left is reported again
  if (!got) {
    futile_.fetch_add(1, std::memory_order_relaxed);  // another thread emptied it first
    return true;
  }
  const int next = ends_[(i + 1) % n_].get();
  sys::call("write(pipe)", [&] { return ::write(next, &token, 1); });
  count(1);
  return true;
}

void shared_epoll_driver::rearm(int epfd, std::uint32_t i) {
  epoll_event ev{};
  ev.events = EPOLLIN | mode_;
  ev.data.u32 = i;
  sys::call("epoll_ctl(MOD)", [&] { return ::epoll_ctl(epfd, EPOLL_CTL_MOD, fds_[i].get(), &ev); });
}

void shared_epoll_driver::serve(std::size_t i) {
  worker& me = workers_[i];
  try {
    sys::pin_current_thread(me.cpu);
    crew_.running();
    gate_.work(passed_, [&] { move_one(me); });
  } catch (...) {
    crew_.failed(std::current_exception());
    const std::lock_guard lock(done_mutex_);  // the caller, in its wait_for, sees it at once
    done_.notify_all();
  }
}

std::uint64_t shared_epoll_driver::pass(std::size_t passes) {
  const std::uint64_t goal = passed_.load(std::memory_order_acquire) + passes;
  std::unique_lock lock(done_mutex_);
  const std::uint64_t t0 = clock_ns();
  gate_.raise(goal);
  std::uint64_t seen = passed_.load(std::memory_order_acquire);
  auto last_progress = std::chrono::steady_clock::now();
  while (passed_.load(std::memory_order_acquire) < goal) {
    done_.wait_for(lock, std::chrono::seconds(1));
    crew_.rethrow_if_failed();
    if (const auto now = passed_.load(std::memory_order_acquire); now != seen) {
      seen = now;
      last_progress = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - last_progress > stall_limit) {
      throw probe_failure("shared_epoll: no token passed for 10 s; " + std::to_string(seen + passes - goal) + " of " +
                          std::to_string(passes) + " passes of this batch made, " + std::to_string(n_) + " threads");
    }
  }
  const std::uint64_t elapsed = clock_ns() - t0;
  crew_.rethrow_if_failed();
  return elapsed;
}

void shared_epoll_driver::quiesce() {
  // Past the target, each thread parks after its current pass; one asleep in epoll_wait
  // with no token for it is woken by the kick, which stays readable until all are parked.
  gate_.close(passed_.load(std::memory_order_acquire));
  const std::uint64_t one = 1;
  sys::call("write(eventfd)", [&] { return ::write(kick_.get(), &one, sizeof one); });
  gate_.wait_parked(n_, crew_, datasets::name(datasets::scenario::shared_epoll));
  std::uint64_t count = 0;
  sys::call("read(eventfd)", [&] { return ::read(kick_.get(), &count, sizeof count); });
}

std::uint64_t shared_epoll_driver::tokens_in_ring() {
  quiesce();
  std::uint64_t total = 0;
  std::vector<char> bytes(n_ + 1);
  for (std::size_t i = 0; i < n_; ++i) {
    const auto got =
        sys::call("read(pipe)", [&] { return ::read(fds_[i].get(), bytes.data(), bytes.size()); }, {EAGAIN});
    if (got <= 0) continue;
    total += static_cast<std::uint64_t>(got);
    sys::call("write(pipe)", [&] { return ::write(ends_[i].get(), bytes.data(), static_cast<std::size_t>(got)); });
  }
  return total;
}

probe_def shared_epoll() {
  return {datasets::name(datasets::scenario::shared_epoll),
          "one token passed: T pinned threads wait on epoll over a shared ring of pipes (one instance, "
          "EPOLLEXCLUSIVE, or one edge-triggered one-shot instance re-armed per token)",
          shared_epoll_points,
          wakeup_counting_instance<shared_epoll_driver, &shared_epoll_driver::pass, &shared_epoll_driver::passed,
                                   batch_passes>::make};
}

}  // namespace pollscale::calibrate::probes
