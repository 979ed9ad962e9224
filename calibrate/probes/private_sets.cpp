// private_sets — wait calls per second from T threads that each wait on a descriptor of
// their own.
//
// will-it-scale's poll1 ("poll of 1 fd") run as it runs every test: the same loop in 1, 2,
// ... T threads at once, each on its own descriptor, and the calls of all of them counted.
// Each thread owns one pipe whose byte is never read (readable throughout) and a waiter of
// the point's mechanism over it, and calls it with timeout 0 in a loop: poll over one
// pollfd, epoll_wait (level-triggered) on its own epoll instance, or — for io_uring's
// one-shot poll — one io_uring_enter that submits a POLL_ADD for the pipe and reaps its
// completion (the file is ready, so the request completes inside the submit). One
// operation is one such call and the check of its answer; metric throughput, unit 1/s:
// the calls of all threads per second.
//
// Nothing the threads write is shared: each has its own file, pipe, epoll instance or
// ring. They share the process — one descriptor table, read under RCU, and one address
// space — and, in a multi-threaded process, each call takes and drops a reference on its
// own file (fdget), a line no other thread touches. So that T = 1 is such a process too,
// its point keeps a second thread parked on the first CPU (it never runs while a batch is
// timed; will-it-scale's threads mode likewise keeps its main thread beside the workers):
// alone in its process, one thread borrows its file without the two atomics: on a 2-vCPU
// AMD EPYC guest (2026-12-07) T = 1 alone made 4.66 M poll calls a second and T = 2 on the
// same CPU 4.10 M, a step the scalability law read as a loss from the second thread; with
// the sibling, 4.16 and 4.20 M (docs/calibrate.md, "One thread or two"). Datasets before
// 2026-12-07 11:30 UTC measured T = 1 alone. So on C CPUs with a thread each the
// answer should be C times one thread's, and what falls short of that is the machine, not
// the mechanism: two vCPUs that are hyperthreads of one core, a hypervisor that runs them
// in turn, a frequency that drops when both are busy, caches they share. That is the
// primitive the CPU-scaling model needs beside the producers scenario, whose threads do
// share kernel structures: how much one more CPU adds to syscall-bound work here, with no
// lock or contended line in the way (docs/scaling.md). With more threads than CPUs the
// threads take turns; the total should then stay at the C-thread level, less the cost of
// switching between them.
//
// Threads do not run ahead. Between batches they sleep (a futex, std::atomic::wait).
// calls(ops) starts the clock, raises a shared budget by ops and wakes them; each thread —
// the calling thread too — claims up to 64 calls at a time from the budget (one
// compare-and-swap per claim) and makes them; the calling thread, once nothing is left to
// claim, sleeps until the last claimed call is done and stops the clock. A batch is the
// time the machine takes to make exactly ops calls. A batch holds at least 8192 calls
// (min_batch), 5-10 ms at the 0.7-0.8 M calls/s one thread makes on a 2-vCPU KVM guest:
// waking the threads at its start costs a futex wake and, across CPUs, an IPI (tens of µs
// there), under 1% of it.
//
// Timed: raising the budget and waking the threads, every call and its check, the
// caller's sleep until the others finish. Not timed: the pipes, waiters and threads, one
// untimed call per thread that proves the path, and the counts checked after each batch.
// Checked: every call reports exactly its thread's descriptor; after each batch the calls
// of all threads add up to what was asked. A thread's error is rethrown by the caller.
// Every thread is started once per instance and joined when it goes, on every path.
//
// Key columns: scenario private_sets, mechanism poll, epoll/lt or io_uring/oneshot,
// fd_kind pipe; n_fds = T (one descriptor per thread: the descriptors watched in all, and
// the law's N as for producers); n_active = T (every one is ready); blocking 0; threads = T;
// pinning = the CPU of each thread, the calling thread's first, thread i on the (i mod C)-th
// of the series' C CPUs; cpus = the distinct CPUs among them, min(C, T); max_fd = the
// highest watched descriptor.

#include "calibrate/probes/private_sets.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/call_budget.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::uint64_t claim_chunk = 64;  // calls a thread claims at a time
constexpr std::size_t batch_calls = 8192;  // min_batch (see the essay)

}  // namespace

private_sets_driver::private_sets_driver(const datasets::key& key, const selection& sel)
    : n_(point_threads(datasets::name(datasets::scenario::private_sets), key, max_threads)),
      crew_(std::string(datasets::name(datasets::scenario::private_sets)), [this] { stop_all(); }) {
  const auto cpus = point_thread_cpus(datasets::name(datasets::scenario::private_sets), key, n_, sel);
  const flavour f = flavour_of(key);
  require_fds(n_ * (channel_set::fds_needed(fd_kind::pipe, 1, 1) + 1) + 4, sel);
  workers_ = std::make_unique<worker[]>(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    worker& w = workers_[i];
    w.cpu = cpus[i];
    w.set.emplace(f, static_cast<std::uint32_t>(i));
    max_fd_ = std::max(max_fd_, w.set->fd());
  }
  call_once(workers_[0], 0);  // the caller's path works before any thread starts
  if (n_ == 1) sibling_.emplace(workers_[0].cpu);
  crew_.start(1, n_, [this](std::size_t i) { serve(i); });
  crew_.wait_until_running();
}

private_sets_driver::~private_sets_driver() = default;  // crew_ (last member) stops and joins first

void private_sets_driver::stop_all() noexcept {
  stop_.store(true);
  gen_.fetch_add(1);
  gen_.notify_all();
}

void private_sets_driver::call_once(worker& me, std::uint32_t tag) {
  if (!me.set->call(tag))
    throw probe_failure("private_sets: thread " + std::to_string(tag) + "'s call reported " +
                        std::to_string(me.set->scratch.size()) + " descriptors, expected its own readable pipe");
}

bool private_sets_driver::claim_and_call(std::size_t i) {
  worker& me = workers_[i];
  const auto finished = probes::claim_and_call(target_, claimed_, done_, me.made, claim_chunk,
                                               [&] { call_once(me, static_cast<std::uint32_t>(i)); });
  // The last chunk of the budget wakes the caller; budgets rise only when all are done.
  if (finished.value_or(false)) done_.notify_all();
  return finished.has_value();
}

void private_sets_driver::serve(std::size_t i) {
  worker& me = workers_[i];
  try {
    sys::pin_current_thread(me.cpu);
    crew_.running();
    for (;;) {
      // gen_ before the budget: a raise after these loads changes gen_, so the wait returns.
      const std::uint32_t gen = gen_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_acquire)) return;
      if (!claim_and_call(i)) gen_.wait(gen, std::memory_order_acquire);
    }
  } catch (...) {
    crew_.failed(std::current_exception());
    fail();
  }
}

void private_sets_driver::fail() noexcept {
  done_.fetch_add(1, std::memory_order_acq_rel);  // changes what the caller sleeps on
  done_.notify_all();
}

std::uint64_t private_sets_driver::calls(std::size_t ops) {
  const std::uint64_t goal = target_.load(std::memory_order_relaxed) + ops;
  const std::uint64_t t0 = clock_ns();
  target_.store(goal, std::memory_order_release);
  gen_.fetch_add(1, std::memory_order_release);
  gen_.notify_all();
  while (claim_and_call(0)) {
  }
  for (std::uint64_t d = done_.load(std::memory_order_acquire); d < goal; d = done_.load(std::memory_order_acquire)) {
    crew_.rethrow_if_failed();
    done_.wait(d, std::memory_order_acquire);
  }
  const std::uint64_t elapsed = clock_ns() - t0;
  crew_.rethrow_if_failed();
  const auto made = calls_per_thread();
  std::uint64_t sum = 0;
  for (auto m : made) sum += m;
  if (sum != goal || done_.load() != goal)
    throw probe_failure("private_sets: " + std::to_string(n_) + " threads made " + std::to_string(sum) +
                        " calls where " + std::to_string(goal) + " were asked");
  return elapsed;
}

std::vector<std::uint64_t> private_sets_driver::calls_per_thread() const {
  std::vector<std::uint64_t> out(n_);
  for (std::size_t i = 0; i < n_; ++i) out[i] = workers_[i].made.load(std::memory_order_acquire);
  return out;
}

probe_def private_sets() {
  probe_def p{datasets::name(datasets::scenario::private_sets),
              "one wait call: T pinned threads each poll their own readable pipe, timeout 0 (will-it-scale's poll1)",
              private_sets_points,
              driver_instance<private_sets_driver, &private_sets_driver::calls, batch_calls>::make};
  p.revision = 2;  // T = 1 beside a parked thread (the essay); revision 1 measured it alone
  return p;
}

}  // namespace pollscale::calibrate::probes
