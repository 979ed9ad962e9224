// handler — what a server pays to answer one request, without the wait call: the
// per-reply work of the `server` scenario, priced on its own for the simulator
// (app/sim_costs.cpp takes it as the handler cost, and bench/sim_vs_server.py as the load
// generator's cost per message, which does the same two calls the other way round).
//
// One connection (fd_kind tcp: a loopback connection with TCP_NODELAY, as server.cpp's;
// socketpair: a unix stream pair), both ends non-blocking. One operation is what the
// server end does for one request already in its receive queue: recv the 64-byte request,
// check it (sequence number and pattern), send the 64-byte reply echoing it. Timed: from
// just before the recv to just after the send, one pair of clock reads per operation
// (~20 ns of the clock's own cost included: under 1% of a loopback reply). Not timed:
// - the peer's side: sending the request (on loopback the sender's CPU runs the receive
//   path that queues it here) and reading the reply;
// - the readiness check before the recv, a poll(fd, 1, 0) spun until the request is there
//   (the server's wait call did it; the wait-call scenarios price it).
// The send includes, as in the server, the loopback receive path of the reply into the
// peer's socket. It never includes waking a sleeping peer: the peer never sleeps (below);
// the simulator prices wake-ups on their own (the wakeup scenario).
// Placement (key columns threads, pinning):
//  - threads=1, pinning "A": the peer is this thread — it sends each request and reads
//    each reply itself, so the request's receive processing ran on this CPU (warm caches).
//  - threads=2, pinning "A+B": a peer thread pinned to B keeps one request outstanding:
//    it spins on poll(fd, 1, 0) for the reply (spinning, not a blocking recv: a sleeping
//    peer would make our send pay a cross-CPU wake-up; and never a spinning recv, whose
//    socket lock would push our reply onto the peer's backlog), reads and checks it, sends
//    the next request. This is the live server's placement: requests processed on the
//    generator's CPU, read here.
// Batches the thread was preempted in are run again. n_fds, n_active, blocking: empty.

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cstring>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/ipc_links.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::handler;
constexpr std::size_t message_bytes = 64;
using message = std::array<unsigned char, message_bytes>;

/// A message carrying `seq`: the number, then a pattern derived from it.
message make_message(std::uint64_t seq, unsigned char salt) {
  message m;
  std::memcpy(m.data(), &seq, sizeof seq);
  for (std::size_t i = sizeof seq; i < m.size(); ++i) m[i] = static_cast<unsigned char>(seq * 31 + i + salt);
  return m;
}

constexpr unsigned char request_salt = 0x5a, reply_salt = 0xa5;

void set_nonblocking(int fd) {
  const int fl = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(fd, F_GETFL); });
  sys::call("fcntl(F_SETFL, O_NONBLOCK)", [&] { return ::fcntl(fd, F_SETFL, fl | O_NONBLOCK); });
}

/// Spins on poll(fd, POLLIN, 0) until fd is readable; false when `stop` was set first.
bool spin_until_readable(int fd, const std::atomic<bool>* stop = nullptr) {
  pollfd p{fd, POLLIN, 0};
  while (sys::call("poll(handler, 0)", [&] { return ::poll(&p, 1, 0); }) == 0)
    if (stop && stop->load(std::memory_order_relaxed)) return false;
  return true;
}

/// Reads one whole message from a readable non-blocking stream socket. A message that
/// arrives in pieces is completed by spinning (a loopback 64-byte segment never splits).
void read_message(int fd, message& m, std::string_view what) {
  for (std::size_t got = 0; got < m.size();) {
    const ssize_t r =
        sys::call("recv(handler)", [&] { return ::recv(fd, m.data() + got, m.size() - got, 0); }, {EAGAIN});
    if (r == 0) throw probe_failure(std::string(what) + ": the connection closed");
    if (r < 0) {
      spin_until_readable(fd);
      continue;
    }
    got += static_cast<std::size_t>(r);
  }
}

void write_message(int fd, const message& m, std::string_view what) {
  const ssize_t w = sys::call("send(handler)", [&] { return ::send(fd, m.data(), m.size(), MSG_NOSIGNAL); });
  if (w != static_cast<ssize_t>(m.size()))
    throw probe_failure(std::string(what) + ": sent " + std::to_string(w) + " of " + std::to_string(m.size()) +
                        " bytes");
}

void expect_message(const message& got, std::uint64_t seq, unsigned char salt, std::string_view what) {
  if (got != make_message(seq, salt))
    throw probe_failure(std::string(what) + " " + std::to_string(seq) + " arrived altered or out of order");
}

class handler_instance final : public probe_instance {
 public:
  handler_instance(const datasets::key& key, const selection& sel) {
    require_fds(8, sel);
    const auto fd = parse_fd_kind(key.fd_kind);
    const auto kind = fd == fd_kind::tcp ? ipc_channels::link_kind::tcp : ipc_channels::link_kind::stream;
    if (fd != fd_kind::tcp && fd != fd_kind::socketpair)
      throw std::invalid_argument("handler runs over tcp or socketpair, not '" + key.fd_kind + "'");
    ipc_channels::link l = ipc_channels::make_link(kind);
    peer_ = std::move(l.wr);
    server_ = std::move(l.rd);
    set_nonblocking(peer_.get());
    set_nonblocking(server_.get());
    const auto threads = key.threads.value_or(1);
    if (threads == 2) {
      const int cpu = checked_partner_cpu(key, sel);
      write_message(peer_.get(), make_message(0, request_salt), "handler request");  // the first one outstanding
      peer_thread_ = std::make_unique<partner_thread>(
          cpu, [this](const std::atomic<bool>& stop) { peer_loop(stop); },
          [] {});  // the peer spins and sees stop itself
    } else if (threads != 1) {
      throw std::invalid_argument("handler runs with 1 or 2 threads, not " + std::to_string(threads));
    }
    run(2);  // proves the path before anything is timed
  }
  ~handler_instance() override { peer_thread_.reset(); }

  std::uint64_t run(std::size_t ops) override {
    const std::uint64_t ns = time_unpreempted([&] { return replies(ops); }, [] {});
    if (peer_thread_) peer_thread_->check();
    return ns;
  }

 private:
  std::uint64_t replies(std::size_t ops) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < ops; ++i) {
      if (!peer_thread_) write_message(peer_.get(), make_message(seq_, request_salt), "handler request");
      spin_until_readable(server_.get());
      const std::uint64_t t0 = clock_ns();
      read_message(server_.get(), in_, "handler request");
      expect_message(in_, seq_, request_salt, "handler: request");
      write_message(server_.get(), make_message(seq_, reply_salt), "handler reply");
      total += clock_ns() - t0;
      if (!peer_thread_) {
        spin_until_readable(peer_.get());
        read_message(peer_.get(), peer_in_, "handler reply");
        expect_message(peer_in_, seq_, reply_salt, "handler: reply");
      }
      ++seq_;
    }
    return total;
  }

  // The peer thread: for each reply, check it and send the next request at once.
  void peer_loop(const std::atomic<bool>& stop) {
    message in;
    for (std::uint64_t seq = 0;; ++seq) {
      if (!spin_until_readable(peer_.get(), &stop)) return;
      read_message(peer_.get(), in, "handler reply");
      expect_message(in, seq, reply_salt, "handler: reply");
      write_message(peer_.get(), make_message(seq + 1, request_salt), "handler request");
    }
  }

  sys::unique_fd peer_, server_;
  message in_{}, peer_in_{};
  std::uint64_t seq_ = 0;
  std::unique_ptr<partner_thread> peer_thread_;  // last: joined first, while the sockets are open
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<handler_instance>(key, sel);
}

/// tcp (full: and socketpair), the peer on this thread and on the other CPU. No
/// mechanism and no n: measured whatever --mechanisms and --n say.
std::vector<datasets::key> handler_points(const selection& sel, std::span<const flavour>) {
  const int cpu0 = sel.cpus.empty() ? 0 : sel.cpus[0];
  const int cpu1 = sel.cpus.size() > 1 ? sel.cpus[1] : cpu0 + 1;  // not in the mask: make() skips it
  const std::string c0 = datasets::pinning::on(cpu0).text();
  std::vector<fd_kind> kinds{fd_kind::tcp};
  if (sel.profile == profile_kind::full) kinds.push_back(fd_kind::socketpair);
  std::vector<datasets::key> out;
  for (fd_kind kind : kinds)
    for (const auto& [threads, pin] : {std::pair{1, c0}, std::pair{2, datasets::pinning::pair(cpu0, cpu1).text()}}) {
      datasets::key k;
      k.scenario = datasets::name(scenario);
      k.fd_kind = std::string(name_of(kind));
      k.metric = datasets::name(datasets::metric::time_per_op);
      k.unit = "ns";
      k.threads = threads;
      k.cpus = distinct_cpus(pin);
      k.pinning = pin;
      out.push_back(std::move(k));
    }
  return out;
}

}  // namespace

probe_def handler() {
  return {datasets::name(scenario),
          "one request read and its reply written on an established connection (the server's per-reply work)",
          handler_points, make_instance};
}

}  // namespace pollscale::calibrate::probes
