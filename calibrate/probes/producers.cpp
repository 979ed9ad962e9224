// producers — events per second from T producer threads into one epoll consumer.
//
// The shape of Roman Penyaev's stress-epoll test (kernel commit a218cc491420, "epoll: use
// rwlock in order to reduce ep_poll_callback() contention", 2019: "generating events
// (write to pipe or eventfd) from many threads, while consumer thread does polling"; Nam
// Cao's 2025 patch "eventpoll: Replace rwlock with spinlock" puts the spinlock back, so
// which lock is taken depends on the kernel), run as will-it-scale runs its tests: the
// same loop at a growing number of threads, on one CPU and spread over several. T producer
// threads each own one non-blocking eventfd and write 1 to it in a loop; one consumer
// thread — the calling thread, the one the runner times — waits in epoll_wait (level-
// triggered, blocking) over all T eventfds and reads each one reported: the read returns
// the eventfd's counter, every write since the last read, and resets it. Every write runs
// the eventfd's wake-up, ep_poll_callback, which queues the item on the epoll instance's
// ready list under its lock and wakes the consumer if it sleeps; T producers on C CPUs
// contend for that lock, and on fewer CPUs than threads they take turns with the consumer.
// That is the question this scenario answers: what one more CPU (or one more producer)
// does to the rate at which events reach a single poller.
//
// One operation is one event consumed: one unit of an eventfd's counter read by the
// consumer (one producer's write of 1). Two figures per point, the metric column:
//  - throughput (1/s): run(ops) returns the nanoseconds the consumer took to receive `ops`
//    events, and the runner turns the time per event into events per second, as for
//    token_ring's passes and server's replies;
//  - wakeups (1, a count per event): the times the consumer slept in epoll_wait and was
//    woken, per event consumed — its voluntary context switches (getrusage(RUSAGE_THREAD))
//    over the batch, read just outside the timed stretch, divided by the events. On one CPU
//    the consumer sleeps whenever it has drained everything and a producer must run to write
//    more: each such sleep is two switches and a wake-up the one-CPU rate pays and two CPUs,
//    where consumer and producer run side by side, need not (a throwaway replica on the ninth
//    host: 0.083 sleeps an event with one producer, about 1/(12 T) up to four, near 0 from six,
//    where the consumer no longer runs dry; on two CPUs 0.0001). The CPU-scaling rule for one
//    producer beside its consumer takes them out of the one-CPU series (docs/scaling.md). The
//    producers' own sleeps (their park between batches) are not counted: each batch ends
//    with every claimed event read, so it is its own quiet moment.
//
// Producers do not run ahead. Between batches they sleep (a futex, through
// std::atomic::wait) with nothing unread anywhere. run(ops) starts the clock, raises a
// shared budget by ops and wakes them; each producer claims up to 16 events at a time
// from the budget (one compare-and-swap per claim) and writes them one by one, and goes
// back to sleep once the budget is spent. The consumer stops the clock when it has read
// ops events — by then every claimed write is done and read, so a batch is the time to
// deliver exactly ops events, and the threads are quiet between batches. The budget is
// shared rather than split per producer (stress-epoll gives each thread N events and times
// the whole run, including the tail in which the last producers finish alone), so a batch
// ends when the machine has delivered ops events, not when the slowest producer has. A
// batch holds at least 16384 events (min_batch): waking the producers at its start costs
// a futex wake and, across CPUs, an IPI — 50-70 µs on this VM with one producer on the
// other CPU (batches of 256 to 65536 events compared), against the 10 ms that batch lasts.
//
// Timed: raising the budget and waking the producers, every epoll_wait and read of the
// consumer, the producers' writes in so far as the consumer waits for them. Not timed:
// creating the eventfds and the epoll set, starting and pinning the threads, one untimed
// batch that proves the path, and the checks after each batch. Checked: each read returns
// at least 1 (a level-triggered report of an empty eventfd is wrong), the consumer never
// receives more than the budget, and after every batch each eventfd gave exactly what its
// producer wrote; a violation is a probe_failure. The consumer waits with a 1 s timeout,
// which never expires in a correct run (a batch lasts milliseconds); 10 s without an event
// is a stall, a probe_failure naming how far the batch got, and a producer's own error is
// rethrown within a second. Every thread is started once per instance, at set-up, and
// joined when the instance goes — on every path, the constructor's exceptions included.
//
// Key columns: scenario producers, mechanism epoll, variant lt, fd_kind eventfd; n_fds = T
// (the eventfds registered), n_active = T (every one is written, so any of them may be
// ready at a wait); blocking 1; threads = T + 1 (the producers and the consumer); pinning
// = the CPU of each thread, consumer first, then producers 0..T-1, joined by '+'; cpus =
// the distinct CPUs among them; max_fd = the highest eventfd watched; metric throughput
// (1/s) or wakeups (1). The grid (producers_points.cpp) pins every thread to the first CPU
// of the mask (a one-CPU machine), or the consumer to the first and producer i to the
// ((i + 1) mod C)-th of the first C CPUs. The consumer is the calling thread: the
// calibration pins it to the first CPU for the whole run; the producers are pinned here.

#include "calibrate/probes/producers.hpp"

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

constexpr std::uint64_t claim_chunk = 16;    // events a producer claims at a time
constexpr int wait_timeout_ms = 1000;        // the consumer's epoll_wait
constexpr int stall_waits = 10;              // empty waits in a row: a stall (10 s)
constexpr std::size_t batch_events = 16384;  // min_batch (see the essay)

/// The CPUs of a point: the consumer's, then one per producer.
std::vector<int> thread_cpus(const datasets::key& key, std::size_t producers) {
  const auto p = datasets::pinning::parse(key.pinning);
  if (p.cpus().size() != producers + 1)
    throw std::invalid_argument("producers point " + datasets::describe(key) + ": pinning '" + key.pinning +
                                "' must name " + std::to_string(producers + 1) +
                                " CPUs (the consumer's, then one per producer)");
  return p.cpus();
}

std::size_t producer_count(const datasets::key& key) {
  const std::int64_t t = key.n_fds.value_or(0);
  if (t < 1) throw std::invalid_argument("producers point " + datasets::describe(key) + " needs n_fds >= 1");
  if (t > producers_driver::max_producers)
    throw probe_skipped(std::to_string(t) + " producer threads: the probe starts at most " +
                        std::to_string(producers_driver::max_producers));
  return static_cast<std::size_t>(t);
}

}  // namespace

producers_driver::producers_driver(const datasets::key& key, const selection& sel)
    : n_(producer_count(key)),
      consumed_(n_, 0),
      crew_(std::string(datasets::name(datasets::scenario::producers)), [this] { stop_all(); }) {
  const auto cpus = thread_cpus(key, n_);
  const std::size_t distinct = datasets::pinning::parse(key.pinning).distinct_cpus();
  for (int cpu : cpus)
    if (std::find(sel.cpus.begin(), sel.cpus.end(), cpu) == sel.cpus.end())
      throw probe_skipped("CPU " + std::to_string(cpu) + " is not in the affinity mask (" +
                          std::to_string(sel.cpus.size()) + " CPUs; this point spreads its threads over " +
                          std::to_string(distinct) + ")");
  require_fds(channel_set::fds_needed(fd_kind::eventfd, n_, n_) + 4, sel);
  ch_ = std::make_unique<channel_set>(fd_kind::eventfd, n_);
  w_ = make_waiter(flavour{mechanism::epoll, std::string(datasets::name(datasets::variant::lt))}, n_);
  for (std::size_t i = 0; i < n_; ++i) {
    w_->add(ch_->watched(i), static_cast<std::uint32_t>(i));
    max_fd_ = std::max(max_fd_, ch_->watched(i));
  }
  scratch_.reserve(n_);
  slots_ = std::make_unique<slot[]>(n_);
  for (std::size_t i = 0; i < n_; ++i) slots_[i].cpu = cpus[i + 1];
  crew_.start(0, n_, [this](std::size_t i) { produce(i); });
  crew_.wait_until_running();
  deliver(claim_chunk * n_);  // untimed: the whole path works
}

producers_driver::~producers_driver() = default;  // crew_ (last member) stops and joins first

void producers_driver::stop_all() noexcept {
  stop_.store(true);
  gen_.fetch_add(1);
  gen_.notify_all();
}

void producers_driver::produce(std::size_t i) {
  slot& me = slots_[i];
  try {
    sys::pin_current_thread(me.cpu);
    const int fd = ch_->trigger_fd(i);
    crew_.running();
    const std::uint64_t one = 1;
    for (;;) {
      // gen_ before the budget: a raise after these loads changes gen_, so the wait returns.
      const std::uint32_t gen = gen_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_acquire)) return;
      const std::uint64_t target = target_.load(std::memory_order_acquire);
      std::uint64_t claimed = claimed_.load(std::memory_order_relaxed);
      if (claimed >= target) {
        gen_.wait(gen, std::memory_order_acquire);
        continue;
      }
      const std::uint64_t take = std::min(claim_chunk, target - claimed);
      if (!claimed_.compare_exchange_weak(claimed, claimed + take, std::memory_order_acq_rel,
                                          std::memory_order_relaxed))
        continue;
      for (std::uint64_t k = 0; k < take; ++k) {
        // Counted before the write, so the consumer never reads more than `written` says.
        me.written.store(me.written.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        sys::call("write(eventfd)", [&] { return ::write(fd, &one, sizeof one); });
      }
    }
  } catch (...) {
    crew_.failed(std::current_exception());
  }
}

std::uint64_t producers_driver::drain(std::uint32_t tag) {
  if (tag >= n_) throw probe_failure("producers: epoll reported unknown tag " + std::to_string(tag));
  std::uint64_t v = 0;
  const auto r = sys::call("read(eventfd)", [&] { return ::read(ch_->watched(tag), &v, sizeof v); }, {EAGAIN});
  if (r < 0 || v == 0)
    throw probe_failure("producers: level-triggered epoll reported eventfd #" + std::to_string(tag) +
                        ", which held no event");
  return v;
}

std::uint64_t producers_driver::deliver(std::size_t events) {
  const std::uint64_t goal = delivered_ + events;
  const std::uint64_t slept = sys::voluntary_switches();  // read outside the timed stretch
  const std::uint64_t t0 = clock_ns();
  target_.store(goal, std::memory_order_release);
  gen_.fetch_add(1, std::memory_order_release);
  gen_.notify_all();
  int empty = 0;
  while (delivered_ < goal) {
    if (w_->wait(scratch_, wait_timeout_ms) == 0) {
      crew_.rethrow_if_failed();
      if (++empty >= stall_waits)
        throw probe_failure("producers: no event for " + std::to_string(stall_waits * wait_timeout_ms / 1000) + " s; " +
                            std::to_string(delivered_ + events - goal) + " of " + std::to_string(events) +
                            " events of this batch delivered, " + std::to_string(n_) + " producers");
      continue;
    }
    empty = 0;
    for (std::uint32_t tag : scratch_) {
      const std::uint64_t v = drain(tag);
      consumed_[tag] += v;
      delivered_ += v;
    }
    if (delivered_ > goal)
      throw probe_failure("producers: the consumer read " + std::to_string(delivered_ + events - goal) +
                          " events where the producers may write only " + std::to_string(events));
  }
  const std::uint64_t elapsed = clock_ns() - t0;
  sleeps_ += sys::voluntary_switches() - slept;
  crew_.rethrow_if_failed();
  for (std::size_t i = 0; i < n_; ++i) {
    const std::uint64_t w = slots_[i].written.load(std::memory_order_acquire);
    if (w != consumed_[i])
      throw probe_failure("producers: producer " + std::to_string(i) + " wrote " + std::to_string(w) +
                          " events, the consumer read " + std::to_string(consumed_[i]) + " from its eventfd");
  }
  return elapsed;
}

std::vector<std::uint64_t> producers_driver::written() const {
  std::vector<std::uint64_t> out(n_);
  for (std::size_t i = 0; i < n_; ++i) out[i] = slots_[i].written.load(std::memory_order_acquire);
  return out;
}

probe_def producers() {
  return {datasets::name(datasets::scenario::producers),
          "one event consumed: T pinned threads write 1 to their eventfds, one thread drains them with epoll",
          producers_points,
          wakeup_counting_instance<producers_driver, &producers_driver::deliver, &producers_driver::delivered,
                                   batch_events>::make};
}

}  // namespace pollscale::calibrate::probes
