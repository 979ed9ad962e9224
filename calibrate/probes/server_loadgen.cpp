#include "calibrate/probes/server_loadgen.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <map>
#include <stdexcept>

#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

// The generator's exit statuses (0: told to stop).
constexpr int exit_pin_failed = 10;
constexpr int exit_bad_reply = 11;
constexpr int exit_closed = 12;
constexpr int exit_io_error = 13;
constexpr int exit_setup_failed = 14;

/// Per-connection state of the generator, allocated before fork.
struct client_state {
  server_message req;
  alignas(8) unsigned char in[2 * sizeof(server_message)];  // room to notice an extra message
  std::size_t filled;
};

/// Everything the child needs, prepared in the parent so the child never allocates.
struct generator_plan {
  std::vector<int> clients;  // client ends, index = connection
  int control = -1;          // read end of the control pipe
  pid_t parent = 0;
  cpu_set_t cpus{};
  std::vector<int> keep;  // descriptors the child keeps, ascending
  std::vector<client_state> state;
  std::vector<epoll_event> events;
};

/// Closes every descriptor >= 3 except those in `keep` (ascending).
void close_all_but(const std::vector<int>& keep) {
  unsigned from = 3;
  for (int fd : keep) {
    const auto f = static_cast<unsigned>(fd);
    if (f > from) ::syscall(SYS_close_range, from, f - 1, 0u);
    from = std::max(from, f + 1);
  }
  ::syscall(SYS_close_range, from, ~0u, 0u);
}

/// Sends connection i's current request, stamped now.
void send_next(generator_plan& p, std::size_t i) {
  client_state& s = p.state[i];
  s.req.sent_ns = clock_ns();
  ssize_t r;
  do r = ::send(p.clients[i], &s.req, sizeof s.req, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  if (r < 0 && (errno == EPIPE || errno == ECONNRESET)) ::_exit(exit_closed);
  if (r != static_cast<ssize_t>(sizeof s.req)) ::_exit(exit_io_error);
}

/// Reads what arrived on connection i; on a whole reply, checks it and sends the next request.
void on_readable(generator_plan& p, std::size_t i) {
  client_state& s = p.state[i];
  const ssize_t r = ::recv(p.clients[i], s.in + s.filled, sizeof s.in - s.filled, 0);
  if (r == 0) ::_exit(exit_closed);
  if (r < 0) {
    if (errno == EAGAIN || errno == EINTR) return;
    ::_exit(errno == ECONNRESET ? exit_closed : exit_io_error);
  }
  s.filled += static_cast<std::size_t>(r);
  if (s.filled < sizeof(server_message)) return;
  const std::uint64_t now = clock_ns();
  server_message reply;
  std::memcpy(&reply, s.in, sizeof reply);
  if (s.filled != sizeof reply || reply.magic != reply_magic || reply.client != s.req.client ||
      reply.seq != s.req.seq || reply.sent_ns != s.req.sent_ns)
    ::_exit(exit_bad_reply);
  s.filled = 0;
  s.req.prev_sent_ns = s.req.sent_ns;
  s.req.prev_latency_ns = now - s.req.sent_ns;
  ++s.req.seq;
  send_next(p, i);
}

/// The generator's whole life: async-signal-safe calls only (the parent may have threads).
[[noreturn]] void generator_main(generator_plan& p) {
  ::signal(SIGINT, SIG_IGN);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != p.parent) ::_exit(0);  // the parent died before prctl took effect
  if (::sched_setaffinity(0, sizeof p.cpus, &p.cpus) < 0) ::_exit(exit_pin_failed);
  close_all_but(p.keep);
  const int ep = ::epoll_create1(0);
  if (ep < 0) ::_exit(exit_setup_failed);
  const std::size_t a = p.clients.size();
  for (std::size_t i = 0; i <= a; ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = static_cast<std::uint32_t>(i);
    if (::epoll_ctl(ep, EPOLL_CTL_ADD, i < a ? p.clients[i] : p.control, &ev) < 0) ::_exit(exit_setup_failed);
  }
  for (std::size_t i = 0; i < a; ++i) send_next(p, i);
  for (;;) {
    const int n = ::epoll_wait(ep, p.events.data(), static_cast<int>(p.events.size()), -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::_exit(exit_io_error);
    }
    for (int j = 0; j < n; ++j) {
      const std::size_t i = p.events[static_cast<std::size_t>(j)].data.u32;
      if (i == a) ::_exit(0);  // the control pipe closed: stop
      on_readable(p, i);
    }
  }
}

void set_nonblocking(int fd) {
  const int fl = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(fd, F_GETFL); });
  sys::call("fcntl(F_SETFL, O_NONBLOCK)", [&] { return ::fcntl(fd, F_SETFL, fl | O_NONBLOCK); });
}

/// No Nagle (small messages leave at once) and RST on close (no TIME_WAIT left behind).
void tune(int fd) {
  const int one = 1;
  const linger lg{1, 0};
  sys::call("setsockopt(TCP_NODELAY)", [&] { return ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); });
  sys::call("setsockopt(SO_LINGER)", [&] { return ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg); });
  set_nonblocking(fd);
}

std::uint16_t port_of(int fd, bool peer) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (peer)
    sys::call("getpeername", [&] { return ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len); });
  else
    sys::call("getsockname", [&] { return ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len); });
  return ntohs(a.sin_port);
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (!WIFEXITED(status)) return "ended with wait status " + std::to_string(status);
  switch (WEXITSTATUS(status)) {
    case 0: return "exited when told to stop";
    case exit_pin_failed: return "exited 10: could not pin itself to its CPU";
    case exit_bad_reply: return "exited 11: a reply did not echo its request";
    case exit_closed: return "exited 12: the server closed a connection";
    case exit_io_error: return "exited 13: a send, recv or epoll_wait failed";
    case exit_setup_failed: return "exited 14: could not set up its epoll instance";
    default: return "exited " + std::to_string(WEXITSTATUS(status));
  }
}

}  // namespace

load_generator::load_generator(std::size_t clients) {
  if (clients < 1) throw std::invalid_argument("a load generator needs at least one client");
  sys::unique_fd listener(
      sys::call("socket(AF_INET, SOCK_STREAM)", [] { return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  sys::call("bind(127.0.0.1:0)", [&] { return ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), len); });
  sys::call("listen", [&] { return ::listen(listener.get(), static_cast<int>(clients) + 16); });
  sys::call("getsockname", [&] { return ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len); });
  // All client ends first, then all server ends: the server ends get consecutive numbers.
  std::map<std::uint16_t, std::size_t> index_of_port;
  for (std::size_t i = 0; i < clients; ++i) {
    client_.emplace_back(
        sys::call("socket(AF_INET, SOCK_STREAM)", [] { return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }));
    sys::call("connect(127.0.0.1)",
              [&] { return ::connect(client_.back().get(), reinterpret_cast<sockaddr*>(&addr), len); });
    tune(client_.back().get());
    index_of_port[port_of(client_.back().get(), false)] = i;
  }
  std::vector<sys::unique_fd> accepted;
  for (std::size_t i = 0; i < clients; ++i) {
    accepted.emplace_back(
        sys::call("accept4", [&] { return ::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC); }));
    tune(accepted.back().get());
  }
  // The accept queue is FIFO in practice; matching ports makes the pairing certain.
  server_.resize(clients);
  for (auto& s : accepted) {
    const auto it = index_of_port.find(port_of(s.get(), true));
    if (it == index_of_port.end())
      throw std::runtime_error("load generator: accepted a connection from an unknown port");
    server_[it->second] = std::move(s);
  }
}

load_generator::~load_generator() { stop(); }

void load_generator::start(int cpu) {
  if (pid_ > 0) throw std::logic_error("load generator already started");
  int fds[2];
  sys::call("pipe2 (load generator control)", [&] { return ::pipe2(fds, O_CLOEXEC); });
  sys::unique_fd control_read(fds[0]);
  control_.reset(fds[1]);
  generator_plan p;
  for (const auto& c : client_) p.clients.push_back(c.get());
  p.control = control_read.get();
  p.parent = ::getpid();
  CPU_ZERO(&p.cpus);
  CPU_SET(static_cast<std::size_t>(cpu), &p.cpus);
  p.keep = p.clients;
  p.keep.push_back(p.control);
  std::sort(p.keep.begin(), p.keep.end());
  p.state.resize(client_.size());
  for (std::size_t i = 0; i < client_.size(); ++i) {
    std::memset(&p.state[i], 0, sizeof p.state[i]);
    p.state[i].req.magic = request_magic;
    p.state[i].req.client = static_cast<std::uint32_t>(i);
  }
  p.events.resize(client_.size() + 1);
  pid_ = sys::call("fork (load generator)", [] { return ::fork(); });
  if (pid_ == 0) generator_main(p);
  client_.clear();  // the generator holds them now; a dead generator shows as EOF here
}

void load_generator::stop() noexcept {
  control_.reset();
  if (pid_ > 0 && !reaped_) {
    status_ = sys::reap(pid_);
    reaped_ = true;
  }
}

std::string load_generator::end_reason() {
  if (pid_ <= 0) return "the load generator was never started";
  stop();
  return "the load generator " + describe_exit(status_);
}

}  // namespace pollscale::calibrate::probes
