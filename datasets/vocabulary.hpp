// The names every folder shares: scenarios, metrics, mechanisms (with what each one does
// per call), variants, fd kinds and positions. Datasets, model files and reports store them
// as text (docs/datasets.md); code names them only through these enums, so that a scenario
// or metric spelled wrong is a compile error rather than a row that silently never matches.
// scripts/check_architecture.py refuses scenario and metric names written as string
// literals anywhere else.
//
// The key columns stay text (datasets::key): the historical record and users' own tables
// carry names the code never branches on (a patch's variant, a kernel's own metric), and
// they must still load. Compare a column with a name directly:
//   if (k.scenario == datasets::scenario::token_ring && k.metric != datasets::metric::throughput)
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pollscale::datasets {

/// What one operation is (docs/datasets.md, "Scenarios").
enum class scenario : std::uint8_t {
  find_active,        ///< wait for k ready among n registered (Kegel's find-1-of-N)
  fd_range,           ///< one call over a range of descriptor numbers (Gooch)
  token_ring,         ///< tokens passed around a ring of pipes (LSE pipetest)
  interest_churn,     ///< adding, changing and removing interest
  wakeup,             ///< a sleeping waiter woken by a write (round trip)
  ipc,                ///< AIM9-style transfers over a link
  server,             ///< a loopback request/reply server
  handler,            ///< the work of one request without the wait
  memory_latency,     ///< a dependent load chain over a working set (the cache curve)
  producers,          ///< T threads write eventfds that one epoll consumer drains (CPU scaling)
  private_sets,       ///< T threads each wait on a descriptor of their own (CPU scaling)
  shared_epoll,       ///< T threads pass tokens through epoll over shared pipes (CPU scaling)
  cache_line,         ///< one cache line handed between two CPUs and back (round trip)
  call_spread,        ///< single calls timed one by one: how one call's cost spreads around its mean
  accept_herd,        ///< T threads wait to accept connections on one listening socket (CPU scaling)
  cold_scan,          ///< a timeout-0 scan timed after other data pushed its descriptors out of the caches
  private_processes,  ///< T one-thread processes each wait on a descriptor of their own (CPU scaling)
};

/// What was measured of one operation.
enum class metric : std::uint8_t {
  time_per_call,  ///< one wait call
  time_per_op,    ///< make ready + wait + consume
  throughput,     ///< operations per second
  latency,        ///< mean latency of one request
  latency_p99,    ///< 99th percentile latency
  round_trip,     ///< wake a sleeper and be woken back
  add,            ///< register one fd (epoll_ctl ADD, ...)
  mod,            ///< change one fd's interest
  del,            ///< unregister one fd
  arm,            ///< arm one one-shot request (io_uring)
  build_set,      ///< fill the interest array for one call (poll)
  setup,          ///< give one fd its owner and signal (rtsig)
  wakeups,        ///< waits that returned an event, per operation (unit "1"; > 1: futile wake-ups)
};

/// The readiness mechanisms: measured on Linux, and the historical ones of the record.
enum class mechanism : std::uint8_t { select, pselect, poll, ppoll, epoll, rtsig, io_uring, devpoll, poll2, kqueue };

/// The variants the code itself branches on (others, such as a patch's name, stay text).
enum class variant : std::uint8_t {
  lt,         ///< epoll level-triggered
  et,         ///< epoll edge-triggered
  oneshot,    ///< epoll EPOLLONESHOT, io_uring single-shot poll
  exclusive,  ///< epoll EPOLLEXCLUSIVE
  multishot,  ///< io_uring multishot poll
  thp,        ///< memory_latency over transparent huge pages
  cold,       ///< cold_scan: each call timed after reading a buffer larger than L2
};

/// Descriptor kinds.
enum class fd_kind : std::uint8_t { pipe, eventfd, socketpair, tcp, udp, fifo, tmpfile };

/// Where the ready descriptors sit among the registered ones.
enum class position : std::uint8_t {
  first,   ///< the lowest k
  middle,  ///< centred
  last,    ///< the highest k
  spread,  ///< evenly spaced
  random,  ///< seeded, distinct
  top,     ///< the top of a descriptor range (fd_range)
};

/// Whom one ready descriptor wakes among threads that wait on the same set.
enum class wake : std::uint8_t {
  all,  ///< every waiter (a wait queue per fd, each sleeper rescans)
  one,  ///< one waiter takes it (an exclusive or single consumer)
};

/// What a mechanism does per call, as the model and the simulator need to know it.
struct mechanism_traits {
  bool scans_every_fd;  ///< each call visits every registered fd (its cost grows with n)
  bool fd_bitmap;       ///< the interest set is a bitmap of fd numbers: copy-in per 64-bit word
  bool measured_here;   ///< calibrate measures it on Linux; the others live in the record
  bool signal_queue;    ///< readiness arrives as queued realtime signals
  wake default_wake;    ///< the wake-up policy of threads sharing one interest set
};

mechanism_traits traits(mechanism m);

/// Scenarios measured against the number of threads (CPU scaling): the scalability law
/// (model/scaling_law.hpp, `pollscale scale`) fits them, not the per-descriptor cost forms.
bool scales_with_threads(scenario s);

/// CPU-scaling scenarios whose threads (or processes) share nothing: each waits on a
/// descriptor of its own and hands nothing on (private_sets, private_processes). Their rate
/// on C CPUs is what C CPUs deliver of one CPU's — no lock, line or hand-off of theirs bends
/// it — so the capacity bound, priced by the corpus's capacity efficiency, is their answer
/// (model/cpu_scaling.hpp).
bool shares_nothing(scenario s);

/// Scenarios that measure the machine rather than a mechanism's cost (memory_latency's cache
/// curve, cache_line's transfer between CPUs, call_spread's spread of single calls,
/// cold_scan's exposed cost of a descriptor past L2): inputs of the models (the working-set
/// term and its prior, the contention primitives of docs/scaling.md), never fitted or
/// validated as cost cells.
bool is_machine_primitive(scenario s);

std::string_view name(scenario v);
std::string_view name(metric v);
std::string_view name(mechanism v);
std::string_view name(variant v);
std::string_view name(fd_kind v);
std::string_view name(position v);

/// Every value of a vocabulary, in declaration order.
template <class E>
std::span<const E> all();
template <>
std::span<const scenario> all<scenario>();
template <>
std::span<const metric> all<metric>();
template <>
std::span<const mechanism> all<mechanism>();
template <>
std::span<const variant> all<variant>();
template <>
std::span<const fd_kind> all<fd_kind>();
template <>
std::span<const position> all<position>();

template <class E>
concept vocabulary_name = requires(E e) {
  { name(e) } -> std::same_as<std::string_view>;
  all<E>();
};

/// The value named `text`, or nullopt when the text names none (case-sensitive).
template <vocabulary_name E>
std::optional<E> parse(std::string_view text) {
  for (E e : all<E>())
    if (name(e) == text) return e;
  return std::nullopt;
}

/// The name as text, for a key column or a map key.
template <vocabulary_name E>
std::string text(E e) {
  return std::string(name(e));
}

/// A mechanism with its variant as labels, flags and figure titles write them: "epoll/lt",
/// "poll". split_flavour("epoll/lt") = {"epoll", "lt"}, split_flavour("poll") = {"poll", ""};
/// text only, the names are not checked (a historical patch's variant is any text).
struct flavour_text {
  std::string mechanism;
  std::string variant;
};
flavour_text split_flavour(std::string_view label);

/// A key column compared with a name: `k.metric == metric::throughput`.
template <vocabulary_name E>
bool operator==(std::string_view text, E e) {
  return text == name(e);
}

}  // namespace pollscale::datasets
