// accept_herd — connections accepted per second by T threads that wait on one listening
// socket, and how many of them each connection wakes.
//
// The thundering herd in its original form: a pre-forked or threaded server whose T
// workers all wait for a connection on the same listening socket. When one arrives, the
// kernel wakes the waiters on the listener's wait queue; one of them accepts it and the
// others, if they were woken too, find the queue empty (accept returns EAGAIN) and go back
// to sleep. How many are woken is the mechanism's choice, the variant column:
//  - poll (mechanism poll): every waiter's poll entry on the listener is non-exclusive, so
//    every sleeping thread is woken for every connection — the herd;
//  - lt (mechanism epoll): one epoll instance shared by all threads, the listener registered
//    once; epoll_wait sleeps exclusively on the instance's wait queue, so one thread is
//    woken, though a level-triggered item left on the ready list may wake the next;
//  - exclusive (mechanism epoll): every thread its own instance with the listener registered
//    EPOLLEXCLUSIVE (Linux 4.5, made for this case): one instance, or a few, woken.
// One operation is one connection: the measuring thread (the client, on the CPU the
// calibration pins it to, the first of the series) connects to 127.0.0.1 and waits until a
// worker has accepted it before the next, so every connection meets the workers asleep —
// the herd's condition; a worker accepts (non-blocking), closes the connection and tells
// the client. Its cost holds the client's socket, connect (the handshake runs in the
// kernel on the client's CPU and queues the connection) and close, the workers' wake-ups,
// the accept and its close, and the client's own wake-up. Two figures per point, the
// metric column, as for shared_epoll: throughput (1/s), connections per second; wakeups
// (1, a count per operation), the times a worker slept in its wait and was woken, per
// connection — each worker's voluntary context switches (getrusage(RUSAGE_THREAD)) over its
// active stretch — so T - 1 futile wake-ups per connection show as about T, one woken
// worker as about 1 (less when a worker comes back to its wait after the next connection
// has arrived: it takes it without sleeping). A wakeups batch is a throughput batch counted
// instead of timed, between two quiet moments (quiesce: every worker parked, its count in).
//
// Connections close with RST (SO_LINGER 0 on the client's end, which closes last), so
// thousands of them per point leave no TIME_WAIT behind, and their source addresses are
// spread over 127.0.0.2 and up (channel.hpp, connect_loopback). Workers do not run ahead:
// between batches they sleep (a futex); connect(ops) raises a shared target by ops and
// wakes them; a worker waits only while fewer than the target have been accepted. When a
// batch ends, workers asleep in their wait with nothing to accept are woken by the kick, an
// eventfd each of them watches beside the listener (never exclusive), which is idle while
// a batch is timed; their waits also time out every 100 ms, so that a stop is seen. A batch
// holds at least 128 connections (min_batch: about 5 ms at the 25 000 connections per
// second of a 2-vCPU KVM guest); 10 s without an accept is a stall.
//
// Timed: raising the target and waking the workers, every connection from socket() to the
// client's close, the client's waits for the accept. Not timed: the listener, instances
// and threads, T untimed connections that prove the path, and the checks. Checked: the
// client waits for each accept, so a batch accepts exactly its connections; after each
// quiesce no connection is left in the listener's queue (a probe_failure otherwise).
//
// Key columns: scenario accept_herd, mechanism poll (variant empty) or epoll (variant lt or
// exclusive), fd_kind tcp; metric throughput (1/s) or wakeups (1); n_fds = T (the waiters,
// each watching the one listening socket: the law's N, as for the other scaling scenarios);
// n_active = 1 (one connection in flight); blocking 1; threads = T (the client is the
// measuring thread and is not counted); pinning = the CPU of each worker, worker i on the
// (i mod C)-th of the series' C CPUs; cpus = min(C, T); max_fd = the listening socket.

#include "calibrate/probes/accept_herd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "calibrate/channel.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/thread_series.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr int accept_wait_ms = 100;                            // a worker's wait (see the essay)
constexpr auto accept_stall_limit = std::chrono::seconds(10);  // no accept for this long: a stall
constexpr std::size_t batch_connections = 128;                 // min_batch
constexpr std::uint32_t listener_tag = 0, kick_tag = 1;        // epoll data of the two descriptors

}  // namespace

accept_herd_driver::accept_herd_driver(const datasets::key& key, const selection& sel)
    : n_(point_threads(datasets::name(datasets::scenario::accept_herd), key, max_threads)),
      kind_(kind_of(key)),
      crew_(std::string(datasets::name(datasets::scenario::accept_herd)), [this] { gate_.stop(); }) {
  const auto cpus = point_thread_cpus(datasets::name(datasets::scenario::accept_herd), key, n_, sel);
  // The listener, the kick, the instances, and a connection's two ends in flight.
  require_fds(2 + (kind_ == wait_kind::exclusive_epoll ? n_ : 1) + 2 + 4, sel);
  listener_ = make_loopback_listener();
  const int flags = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(listener_.get(), F_GETFL); });
  sys::call("fcntl(F_SETFL, O_NONBLOCK)", [&] { return ::fcntl(listener_.get(), F_SETFL, flags | O_NONBLOCK); });
  kick_ = sys::unique_fd(sys::call("eventfd", [] { return ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }));
  if (kind_ != wait_kind::poll) {
    const bool own = kind_ == wait_kind::exclusive_epoll;
    for (std::size_t e = 0; e < (own ? n_ : 1); ++e) {
      epfds_.emplace_back(sys::call("epoll_create1", [] { return ::epoll_create1(EPOLL_CLOEXEC); }));
      watch(epfds_.back().get(), listener_.get(), listener_tag, own ? std::uint32_t{EPOLLEXCLUSIVE} : 0u);
      watch(epfds_.back().get(), kick_.get(), kick_tag, 0);  // never exclusive: a kick is for every waiter
    }
  }
  workers_ = std::make_unique<worker[]>(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    workers_[i].cpu = cpus[i];
    workers_[i].epfd = epfds_.empty() ? -1 : epfds_[kind_ == wait_kind::exclusive_epoll ? i : 0].get();
  }
  crew_.start(0, n_, [this](std::size_t i) { serve(i); });
  crew_.wait_until_running();
  connect(n_);  // untimed: the path works
  quiesce();
}

accept_herd_driver::~accept_herd_driver() = default;  // crew_ (last member) stops and joins first

accept_herd_driver::wait_kind accept_herd_driver::kind_of(const datasets::key& key) {
  const auto m = datasets::parse<datasets::mechanism>(key.mechanism);
  const auto v = datasets::parse<datasets::variant>(key.variant);
  if (m == datasets::mechanism::poll && key.variant.empty()) return wait_kind::poll;
  if (m == datasets::mechanism::epoll && v == datasets::variant::lt) return wait_kind::shared_epoll;
  if (m == datasets::mechanism::epoll && v == datasets::variant::exclusive) return wait_kind::exclusive_epoll;
  throw std::invalid_argument("accept_herd point " + datasets::describe(key) + ": '" + key.mechanism + "/" +
                              key.variant + "' is not poll, epoll/lt or epoll/exclusive");
}

void accept_herd_driver::watch(int epfd, int fd, std::uint32_t tag, std::uint32_t mode) {
  epoll_event ev{};
  ev.events = EPOLLIN | mode;
  ev.data.u32 = tag;
  sys::call("epoll_ctl(ADD)", [&] { return ::epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev); });
}

bool accept_herd_driver::wait_ready(const worker& me) {
  if (kind_ == wait_kind::poll) {
    pollfd p[2] = {{listener_.get(), POLLIN, 0}, {kick_.get(), POLLIN, 0}};
    if (sys::call("poll", [&] { return ::poll(p, 2, accept_wait_ms); }) == 0) return false;
    return (p[0].revents & POLLIN) != 0;
  }
  epoll_event ev{};
  if (sys::call("epoll_wait", [&] { return ::epoll_wait(me.epfd, &ev, 1, accept_wait_ms); }) == 0) return false;
  if (ev.data.u32 != listener_tag && ev.data.u32 != kick_tag)
    throw probe_failure("accept_herd: epoll reported unknown tag " + std::to_string(ev.data.u32));
  return ev.data.u32 == listener_tag;
}

void accept_herd_driver::accept_one() {
  const int fd = sys::call(
      "accept4", [&] { return ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK); }, {EAGAIN});
  if (fd < 0) {
    futile_.fetch_add(1, std::memory_order_relaxed);  // another worker took it first
    return;
  }
  ::close(fd);
  accepted_.fetch_add(1, std::memory_order_acq_rel);
  const std::lock_guard lock(accepted_mutex_);  // the client is inside wait_for, or has not checked yet
  accepted_cv_.notify_all();
}

void accept_herd_driver::serve(std::size_t i) {
  const worker& me = workers_[i];
  try {
    sys::pin_current_thread(me.cpu);
    crew_.running();
    gate_.work(accepted_, [&] {
      if (wait_ready(me)) accept_one();
    });
  } catch (...) {
    crew_.failed(std::current_exception());
    const std::lock_guard lock(accepted_mutex_);  // the client, in its wait_for, sees it at once
    accepted_cv_.notify_all();
  }
}

void accept_herd_driver::wait_accepted(std::uint64_t count) {
  std::unique_lock lock(accepted_mutex_);
  auto since = std::chrono::steady_clock::now();
  while (accepted_.load(std::memory_order_acquire) < count) {
    accepted_cv_.wait_for(lock, std::chrono::seconds(1));
    crew_.rethrow_if_failed();
    if (std::chrono::steady_clock::now() - since > accept_stall_limit)
      throw probe_failure("accept_herd: no connection accepted for 10 s; " +
                          std::to_string(accepted_.load(std::memory_order_acquire)) + " of " + std::to_string(count) +
                          " so far, " + std::to_string(n_) + " threads");
  }
}

std::uint64_t accept_herd_driver::connect(std::size_t connections) {
  const std::uint64_t base = accepted_.load(std::memory_order_acquire);
  const std::uint64_t t0 = clock_ns();
  gate_.raise(base + connections);
  for (std::size_t i = 1; i <= connections; ++i) {
    // Source addresses cycle through 127.0.0.2-9 (8192 each): closed with RST, none lingers.
    const sys::unique_fd client = connect_loopback(listener_.get(), next_client_++ % (8 * 8192));
    wait_accepted(base + i);
  }
  const std::uint64_t elapsed = clock_ns() - t0;
  crew_.rethrow_if_failed();
  return elapsed;
}

void accept_herd_driver::quiesce() {
  // Every connection of the batch is accepted (the client waited for each): workers awake
  // park at once, those asleep in their wait are woken by the kick, which stays readable
  // until all are parked.
  const std::uint64_t one = 1;
  sys::call("write(eventfd)", [&] { return ::write(kick_.get(), &one, sizeof one); });
  gate_.wait_parked(n_, crew_, datasets::name(datasets::scenario::accept_herd));
  std::uint64_t count = 0;
  sys::call("read(eventfd)", [&] { return ::read(kick_.get(), &count, sizeof count); });
  const int left = sys::call(
      "accept4", [&] { return ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK); }, {EAGAIN});
  if (left >= 0) {
    ::close(left);
    throw probe_failure("accept_herd: a connection was left in the listener's queue after a batch");
  }
}

probe_def accept_herd() {
  return {datasets::name(datasets::scenario::accept_herd),
          "one connection accepted: T pinned threads wait on one listening socket (poll, one epoll instance, or "
          "EPOLLEXCLUSIVE); the client connects one at a time",
          accept_herd_points,
          wakeup_counting_instance<accept_herd_driver, &accept_herd_driver::connect, &accept_herd_driver::accepted,
                                   batch_connections>::make};
}

}  // namespace pollscale::calibrate::probes
