#include "datasets/vocabulary.hpp"

#include <array>
#include <cstddef>

namespace pollscale::datasets {
namespace {

// Each table lists every value with its name, in declaration order (a test checks the
// order and that names are distinct), so name() is an index and all() a view.
template <class E, std::size_t N>
struct table {
  std::array<E, N> values;
  std::array<std::string_view, N> names;
  std::string_view operator[](E e) const {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view("?");
  }
};

constexpr table<scenario, 17> scenario_table{
    {scenario::find_active, scenario::fd_range, scenario::token_ring, scenario::interest_churn, scenario::wakeup,
     scenario::ipc, scenario::server, scenario::handler, scenario::memory_latency, scenario::producers,
     scenario::private_sets, scenario::shared_epoll, scenario::cache_line, scenario::call_spread, scenario::accept_herd,
     scenario::cold_scan, scenario::private_processes},
    {"find_active", "fd_range", "token_ring", "interest_churn", "wakeup", "ipc", "server", "handler", "memory_latency",
     "producers", "private_sets", "shared_epoll", "cache_line", "call_spread", "accept_herd", "cold_scan",
     "private_processes"}};

constexpr table<metric, 13> metric_table{
    {metric::time_per_call, metric::time_per_op, metric::throughput, metric::latency, metric::latency_p99,
     metric::round_trip, metric::add, metric::mod, metric::del, metric::arm, metric::build_set, metric::setup,
     metric::wakeups},
    {"time_per_call", "time_per_op", "throughput", "latency", "latency_p99", "round_trip", "add", "mod", "del", "arm",
     "build_set", "setup", "wakeups"}};

constexpr table<mechanism, 10> mechanism_table{
    {mechanism::select, mechanism::pselect, mechanism::poll, mechanism::ppoll, mechanism::epoll, mechanism::rtsig,
     mechanism::io_uring, mechanism::devpoll, mechanism::poll2, mechanism::kqueue},
    {"select", "pselect", "poll", "ppoll", "epoll", "rtsig", "io_uring", "devpoll", "poll2", "kqueue"}};

constexpr table<variant, 7> variant_table{
    {variant::lt, variant::et, variant::oneshot, variant::exclusive, variant::multishot, variant::thp, variant::cold},
    {"lt", "et", "oneshot", "exclusive", "multishot", "thp", "cold"}};

constexpr table<fd_kind, 7> fd_kind_table{
    {fd_kind::pipe, fd_kind::eventfd, fd_kind::socketpair, fd_kind::tcp, fd_kind::udp, fd_kind::fifo, fd_kind::tmpfile},
    {"pipe", "eventfd", "socketpair", "tcp", "udp", "fifo", "tmpfile"}};

constexpr table<position, 6> position_table{
    {position::first, position::middle, position::last, position::spread, position::random, position::top},
    {"first", "middle", "last", "spread", "random", "top"}};

}  // namespace

bool scales_with_threads(scenario s) {
  return s == scenario::producers || s == scenario::private_sets || s == scenario::shared_epoll ||
         s == scenario::accept_herd || s == scenario::private_processes;
}

bool shares_nothing(scenario s) { return s == scenario::private_sets || s == scenario::private_processes; }

bool is_machine_primitive(scenario s) {
  return s == scenario::memory_latency || s == scenario::cache_line || s == scenario::call_spread ||
         s == scenario::cold_scan;
}

// Why each row: select/pselect copy three fd_set bitmaps in and out and walk every bit up
// to nfds; poll/ppoll copy the pollfd array and call each file's ->poll; the historical
// /dev/poll (Linux patch) and poll2 tables grow with n as measured, so the model treats them
// as scans too. epoll and io_uring keep interest in the kernel and hand over only what is
// ready; a ready fd wakes one waiter of an exclusive or single consumer. rtsig queues one
// signal per event (and falls back to a poll when the queue overflows).
mechanism_traits traits(mechanism m) {
  switch (m) {
    case mechanism::select:
    case mechanism::pselect: return {true, true, true, false, wake::all};
    case mechanism::poll:
    case mechanism::ppoll: return {true, false, true, false, wake::all};
    case mechanism::epoll:
    case mechanism::io_uring: return {false, false, true, false, wake::one};
    case mechanism::rtsig: return {false, false, true, true, wake::one};
    case mechanism::devpoll:
    case mechanism::poll2: return {true, false, false, false, wake::all};
    case mechanism::kqueue: return {false, false, false, false, wake::one};
  }
  return {false, false, false, false, wake::one};
}

std::string_view name(scenario v) { return scenario_table[v]; }
std::string_view name(metric v) { return metric_table[v]; }
std::string_view name(mechanism v) { return mechanism_table[v]; }
std::string_view name(variant v) { return variant_table[v]; }
std::string_view name(fd_kind v) { return fd_kind_table[v]; }
std::string_view name(position v) { return position_table[v]; }

template <>
std::span<const scenario> all<scenario>() {
  return scenario_table.values;
}
template <>
std::span<const metric> all<metric>() {
  return metric_table.values;
}
template <>
std::span<const mechanism> all<mechanism>() {
  return mechanism_table.values;
}
template <>
std::span<const variant> all<variant>() {
  return variant_table.values;
}
template <>
std::span<const fd_kind> all<fd_kind>() {
  return fd_kind_table.values;
}
template <>
std::span<const position> all<position>() {
  return position_table.values;
}

flavour_text split_flavour(std::string_view label) {
  const auto slash = label.find('/');
  if (slash == std::string_view::npos) return {std::string(label), ""};
  return {std::string(label.substr(0, slash)), std::string(label.substr(slash + 1))};
}

}  // namespace pollscale::datasets
