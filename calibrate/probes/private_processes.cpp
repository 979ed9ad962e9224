// private_processes — wait calls per second from T processes of one thread each, each
// waiting on a descriptor of its own.
//
// will-it-scale runs every test twice: as threads of one process and as processes. Its
// poll1 as processes is this probe; private_sets.cpp is its poll1 as threads. The two
// loops are the same — each worker owns one pipe whose byte is never read (readable
// throughout) and a waiter of the point's mechanism over it, and calls it with timeout 0 in
// a loop: poll over one pollfd, epoll_wait (level-triggered) on its own epoll instance, or
// one io_uring_enter that submits a POLL_ADD and reaps its completion on its own ring.
// One operation is one such call and the check of its answer; metric throughput, unit 1/s:
// the calls of all processes per second.
//
// What differs is what the kernel shares between the workers. Threads share one descriptor
// table and one address space; in a process of several threads every call takes and drops
// a reference on its file (fdget: two atomics on the file's count, a line no other thread
// touches, but a locked instruction each) and every page fault or mapping change takes the
// one mm's locks. A process of one thread owns its table, and the kernel lends it its files
// without the atomics (fdget's light path, files_struct count 1; io_uring takes its ring and
// the polled file with fget, a reference in either kind of process). So on C CPUs with a
// process each this is the rate a server built as processes (nginx's workers, pre-fork
// servers) gets from its wait calls, and the ratio to private_sets at the same T and C is
// what sharing one process costs — nothing else is shared by either.
//
// The workers are processes forked from the calibration, and the loop each runs is
// private_sets' own: the same set-up objects (channel and waiter, built and proven by the
// calibration before the fork, so that after it each worker uses its copy), the same call
// and check through the same code. Only the process around the loop differs, so the ratio
// of the two scenarios is not also a difference of two loops. The calibration runs threads
// of its own, so between fork and _exit a worker allocates nothing and touches, besides its
// copy of its set-up, only the page it shares with the calibration (server_loadgen.cpp's
// rule). It ignores SIGINT (Ctrl-C reaches the whole process group; the calibration
// decides when the workers stop), dies with the thread that forked it (PR_SET_PDEATHSIG),
// pins itself and makes one untimed call of its own before it says it is ready (its first
// writes fault in its copies of the pages it uses). Its descriptor table is a copy of the
// calibration's, its own from then on: one task uses it, which is what lets the kernel lend
// it its files without a reference.
//
// Workers do not run ahead. Between batches they sleep on a futex word in the shared page
// (a shared futex: the private ones std::atomic::wait uses do not cross processes).
// calls(ops) starts the clock, raises a shared budget by ops and wakes them; each worker
// claims up to 64 calls at a time from the budget (one compare-and-swap on the shared page)
// and makes them; the one that finishes the budget wakes the calibration, which stops the
// clock. Unlike private_sets, the calibration's own thread makes no call: it would pay the
// atomics of a multi-threaded process, and at T = 1 it would be the only worker. So at
// T = 1 one process makes every call while the calibration sleeps on its CPU (the first
// of the series, as worker 0's), woken once a batch. A batch holds at least 8192 calls
// (min_batch): the wake-ups at its two ends, tens of µs across CPUs on a 2-vCPU KVM guest,
// are under 1% of it.
//
// Timed: raising the budget and waking the processes, every call and its check, the wake
// of the calibration at the end. Not timed: forking, pinning, the pipes and waiters, one
// untimed call per process that proves the path, the counts checked after each batch.
// Checked: every call reports exactly the worker's descriptor readable; after each batch the
// calls of all processes add up to what was asked. A worker that fails says which step and
// errno in the shared page and exits; the calibration turns that, or a worker that died
// (waitpid), into a probe_failure naming it. Every worker is reaped when the driver goes,
// on every path: told to stop, then SIGKILL after a second.
//
// Key columns: scenario private_processes, mechanism poll, epoll/lt or io_uring/oneshot, fd_kind pipe; n_fds
// = T (one descriptor per process: the descriptors watched in all, the law's N); n_active =
// T (every one is ready); blocking 0; threads = T (processes of one thread each: the
// calibration's thread is not counted); pinning = the CPU of each process, process i on
// the (i mod C)-th CPU of the series; cpus = min(C, T); max_fd = the highest watched
// descriptor. The grid is private_sets' (thread_series.hpp): epoll/lt in the quick profile;
// poll, epoll/lt and io_uring/oneshot (its ring set up before the fork and used by the
// worker alone) in the full one.

#include "calibrate/probes/private_processes.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/call_budget.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::uint64_t claim_chunk = 64;  // calls a process claims at a time
constexpr std::size_t batch_calls = 8192;  // min_batch (see the essay)

static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::uint32_t>::is_always_lock_free,
              "the shared page's counters must work across processes");

/// Where a worker is: set by the worker, read by the calibration.
enum class worker_state : std::uint32_t { starting, ready, failed };

/// The step a worker failed at (the message names it).
enum class worker_step : std::uint32_t { none, pin, call, answer };

const char* step_name(worker_step s) {
  switch (s) {
    case worker_step::pin: return "pinning itself";
    case worker_step::call: return "a wait call";
    case worker_step::answer: return "a wait call's answer (not exactly its readable pipe)";
    case worker_step::none: break;
  }
  return "nothing";
}

/// One worker's slot, on its own cache line: only its process writes it.
struct alignas(64) worker_slot {
  std::atomic<std::uint64_t> made{0};
  std::atomic<std::uint32_t> state{static_cast<std::uint32_t>(worker_state::starting)};
  std::atomic<std::uint32_t> step{static_cast<std::uint32_t>(worker_step::none)};
  std::atomic<std::int32_t> error{0};  // errno of the failed step (0: a wrong answer)
};

long futex(std::atomic<std::uint32_t>& word, int op, std::uint32_t val, const timespec* timeout) {
  return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op, val, timeout, nullptr, 0);
}

void wake_all(std::atomic<std::uint32_t>& word) { futex(word, FUTEX_WAKE, INT_MAX, nullptr); }

}  // namespace

/// The page the calibration and its workers share (MAP_SHARED | MAP_ANONYMOUS): the budget,
/// the futex words, then one slot per worker.
struct private_processes_driver::shared_state {
  alignas(64) std::atomic<std::uint64_t> target{0};  // calls allowed so far, in all
  std::atomic<std::uint64_t> claimed{0};             // calls claimed by some worker
  alignas(64) std::atomic<std::uint64_t> done{0};    // calls finished
  std::atomic<std::uint32_t> done_seq{0};            // bumped when done reaches target or a worker fails
  alignas(64) std::atomic<std::uint32_t> gen{0};     // bumped to wake the workers (budget or stop)
  std::atomic<std::uint32_t> stop{0};
  alignas(64) std::atomic<std::uint32_t> ready_seq{0};  // bumped by each worker that is ready or failed

  /// The workers' slots, right after this header in the same mapping.
  worker_slot* slots() { return reinterpret_cast<worker_slot*>(reinterpret_cast<char*>(this) + sizeof *this); }
};
static_assert(sizeof(private_processes_driver::shared_state) % alignof(worker_slot) == 0);

namespace {

using shared_state = private_processes_driver::shared_state;

[[noreturn]] void worker_fails(shared_state& s, worker_slot& me, worker_step step, int err) {
  me.error.store(err, std::memory_order_relaxed);
  me.step.store(static_cast<std::uint32_t>(step), std::memory_order_relaxed);
  me.state.store(static_cast<std::uint32_t>(worker_state::failed), std::memory_order_release);
  s.ready_seq.fetch_add(1, std::memory_order_acq_rel);
  wake_all(s.ready_seq);
  s.done_seq.fetch_add(1, std::memory_order_acq_rel);
  wake_all(s.done_seq);
  ::_exit(1);
}

/// One wait call with timeout 0 through the worker's waiter, checked as private_sets checks
/// it: exactly the worker's pipe reported (and, for a one-shot waiter, re-armed).
void call_once(shared_state& s, worker_slot& me, private_processes_driver::worker& w, std::uint32_t tag) {
  bool right = false;
  try {
    right = w.set->call(tag);
  } catch (const std::system_error& e) {
    worker_fails(s, me, worker_step::call, e.code().value());
  } catch (...) {
    worker_fails(s, me, worker_step::call, 0);
  }
  if (!right) worker_fails(s, me, worker_step::answer, 0);
}

/// One chunk of the budget (call_budget.hpp); false when none is left.
bool claim_and_call(shared_state& s, worker_slot& me, private_processes_driver::worker& w, std::uint32_t tag) {
  const auto finished =
      probes::claim_and_call(s.target, s.claimed, s.done, me.made, claim_chunk, [&] { call_once(s, me, w, tag); });
  if (finished.value_or(false)) {
    s.done_seq.fetch_add(1, std::memory_order_acq_rel);
    wake_all(s.done_seq);
  }
  return finished.has_value();
}

/// A worker's whole life: no allocation, its set-up's copy and the shared page (the essay).
[[noreturn]] void worker_main(shared_state& s, worker_slot& me, private_processes_driver::worker& w, std::uint32_t tag,
                              pid_t parent) {
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the calibration went before prctl took effect
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(w.cpu), &set);
  if (::sched_setaffinity(0, sizeof set, &set) < 0) worker_fails(s, me, worker_step::pin, errno);
  call_once(s, me, w, tag);  // the path works in this process before the first batch
  me.state.store(static_cast<std::uint32_t>(worker_state::ready), std::memory_order_release);
  s.ready_seq.fetch_add(1, std::memory_order_acq_rel);
  wake_all(s.ready_seq);
  for (;;) {
    // gen before the budget: a raise after these loads changes gen, so the wait returns.
    const std::uint32_t gen = s.gen.load(std::memory_order_acquire);
    if (s.stop.load(std::memory_order_acquire)) ::_exit(0);
    if (!claim_and_call(s, me, w, tag)) futex(s.gen, FUTEX_WAIT, gen, nullptr);
  }
}

/// Sleeps on `word` while it reads `seen`, at most `ms` milliseconds.
void wait_a_while(std::atomic<std::uint32_t>& word, std::uint32_t seen, long ms) {
  const timespec t{ms / 1000, (ms % 1000) * 1000000L};
  futex(word, FUTEX_WAIT, seen, &t);
}

constexpr long check_ms = 200;  // how often a waiting calibration looks for dead workers or Ctrl-C

}  // namespace

private_processes_driver::private_processes_driver(const datasets::key& key, const selection& sel) {
  const auto scenario = datasets::name(datasets::scenario::private_processes);
  const std::size_t n = point_threads(scenario, key, max_processes);
  const auto cpus = point_thread_cpus(scenario, key, n, sel);
  const flavour f = flavour_of(key);
  require_fds(n * (channel_set::fds_needed(fd_kind::pipe, 1, 1) + 1) + 4, sel);
  workers_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    worker& w = workers_[i];
    w.cpu = cpus[i];
    w.set.emplace(f, static_cast<std::uint32_t>(i));
    if (!w.set->call(static_cast<std::uint32_t>(i)))  // the path works before any fork
      throw probe_failure("private_processes: set-up " + std::to_string(i) +
                          "'s call did not report its readable pipe alone");
    max_fd_ = std::max(max_fd_, w.set->fd());
  }
  shared_bytes_ = sizeof(shared_state) + n * sizeof(worker_slot);
  void* page = ::mmap(nullptr, shared_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) sys::throw_errno(errno, "mmap (private_processes' shared page)");
  shared_ = new (page) shared_state;
  for (std::size_t i = 0; i < n; ++i) new (&shared_->slots()[i]) worker_slot;
  const pid_t self = ::getpid();
  pids_.reserve(n);  // no allocation between a fork and its pid being kept
  try {
    for (std::size_t i = 0; i < n; ++i) {
      const pid_t pid = sys::call("fork (private_processes worker)", [] { return ::fork(); });
      if (pid == 0) worker_main(*shared_, shared_->slots()[i], workers_[i], static_cast<std::uint32_t>(i), self);
      pids_.push_back(pid);
    }
    wait_until_ready();
  } catch (...) {
    stop_and_reap();
    throw;
  }
}

private_processes_driver::~private_processes_driver() { stop_and_reap(); }

void private_processes_driver::wait_until_ready() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const std::uint32_t seen = shared_->ready_seq.load(std::memory_order_acquire);
    throw_if_a_process_failed("while setting up");
    const bool all = std::all_of(shared_->slots(), shared_->slots() + pids_.size(), [](const worker_slot& w) {
      return w.state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(worker_state::ready);
    });
    if (all) return;
    if (sys::stop_requested.load(std::memory_order_relaxed)) throw sys::interrupted();
    if (std::chrono::steady_clock::now() > deadline)
      throw probe_failure("private_processes: " + std::to_string(pids_.size()) +
                          " processes were not all ready within 10 s");
    wait_a_while(shared_->ready_seq, seen, check_ms);
  }
}

void private_processes_driver::throw_if_a_process_failed(const char* when) {
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    const worker_slot& w = shared_->slots()[i];
    if (w.state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(worker_state::failed)) {
      const int err = w.error.load(std::memory_order_relaxed);
      throw probe_failure("private_processes: process " + std::to_string(i) + " failed " + when + " at " +
                          step_name(static_cast<worker_step>(w.step.load(std::memory_order_relaxed))) +
                          (err ? std::string(": ") + std::strerror(err) : std::string()));
    }
    int status = 0;
    if (::waitpid(pids_[i], &status, WNOHANG) == pids_[i]) {
      pids_[i] = -1;  // reaped: stop_and_reap skips it
      throw probe_failure("private_processes: process " + std::to_string(i) + " ended " + when +
                          (WIFSIGNALED(status) ? " (killed by signal " + std::to_string(WTERMSIG(status)) + ")"
                                               : " (exit status " + std::to_string(WEXITSTATUS(status)) + ")"));
    }
  }
}

std::uint64_t private_processes_driver::calls(std::size_t ops) {
  shared_state& s = *shared_;
  const std::uint64_t goal = s.target.load(std::memory_order_relaxed) + ops;
  const std::uint64_t t0 = clock_ns();
  s.target.store(goal, std::memory_order_release);
  s.gen.fetch_add(1, std::memory_order_release);
  wake_all(s.gen);
  for (;;) {
    const std::uint32_t seen = s.done_seq.load(std::memory_order_acquire);
    if (s.done.load(std::memory_order_acquire) >= goal) break;
    wait_a_while(s.done_seq, seen, check_ms);
    if (s.done.load(std::memory_order_acquire) >= goal) break;
    throw_if_a_process_failed("during a batch");
    if (sys::stop_requested.load(std::memory_order_relaxed)) throw sys::interrupted();
  }
  const std::uint64_t elapsed = clock_ns() - t0;
  throw_if_a_process_failed("during a batch");
  std::uint64_t sum = 0;
  for (auto m : calls_per_process()) sum += m;
  if (sum != goal || s.done.load() != goal)
    throw probe_failure("private_processes: " + std::to_string(pids_.size()) + " processes made " +
                        std::to_string(sum) + " calls where " + std::to_string(goal) + " were asked");
  return elapsed;
}

std::vector<std::uint64_t> private_processes_driver::calls_per_process() const {
  std::vector<std::uint64_t> out(pids_.size());
  for (std::size_t i = 0; i < pids_.size(); ++i) out[i] = shared_->slots()[i].made.load(std::memory_order_acquire);
  return out;
}

std::uint64_t private_processes_driver::total() const { return shared_->done.load(std::memory_order_acquire); }

void private_processes_driver::stop_and_reap() noexcept {
  if (!shared_) return;
  shared_->stop.store(1, std::memory_order_release);
  shared_->gen.fetch_add(1, std::memory_order_release);
  wake_all(shared_->gen);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (pid_t& pid : pids_) {
    if (pid <= 0) continue;
    while (::waitpid(pid, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        sys::kill_and_reap(pid);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    pid = -1;
  }
  ::munmap(shared_, shared_bytes_);
  shared_ = nullptr;
}

probe_def private_processes() {
  return {datasets::name(datasets::scenario::private_processes),
          "one wait call: T pinned one-thread processes each poll their own readable pipe, timeout 0 (will-it-scale's "
          "poll1 as processes)",
          private_processes_points,
          driver_instance<private_processes_driver, &private_processes_driver::calls, batch_calls>::make};
}

}  // namespace pollscale::calibrate::probes
