#include "calibrate/probes/ipc_links.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>

#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate::probes::ipc_channels {
namespace {

sys::unique_fd inet_socket(int type) {
  return sys::unique_fd(sys::call(type == SOCK_STREAM ? "socket(AF_INET, SOCK_STREAM)" : "socket(AF_INET, SOCK_DGRAM)",
                                  [&] { return ::socket(AF_INET, type | SOCK_CLOEXEC, 0); }));
}

sockaddr_in bound_loopback(int fd) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sys::call("bind(127.0.0.1:0)", [&] { return ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a); });
  socklen_t len = sizeof a;
  sys::call("getsockname", [&] { return ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len); });
  return a;
}

void connect_to(int fd, const sockaddr_in& a) {
  sys::call("connect(127.0.0.1)", [&] { return ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a); });
}

link socket_pair(int type) {
  int sv[2];
  sys::call(type == SOCK_STREAM ? "socketpair(AF_UNIX, SOCK_STREAM)" : "socketpair(AF_UNIX, SOCK_DGRAM)",
            [&] { return ::socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv); });
  return {sys::unique_fd(sv[0]), sys::unique_fd(sv[1])};
}

/// A loopback connection; small writes leave at once (TCP_NODELAY), closing sends RST.
link tcp_link() {
  sys::unique_fd listener = inet_socket(SOCK_STREAM);
  const sockaddr_in a = bound_loopback(listener.get());
  sys::call("listen", [&] { return ::listen(listener.get(), 1); });
  sys::unique_fd client = inet_socket(SOCK_STREAM);
  connect_to(client.get(), a);
  sys::unique_fd server(
      sys::call("accept4", [&] { return ::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC); }));
  const int one = 1;
  const linger lg{1, 0};
  for (int fd : {client.get(), server.get()}) {
    sys::call("setsockopt(TCP_NODELAY)", [&] { return ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); });
    sys::call("setsockopt(SO_LINGER)", [&] { return ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg); });
  }
  return {std::move(client), std::move(server)};
}

/// Two UDP sockets on 127.0.0.1, each connected to the other.
link udp_link() {
  sys::unique_fd a = inet_socket(SOCK_DGRAM), b = inet_socket(SOCK_DGRAM);
  const sockaddr_in aa = bound_loopback(a.get()), ba = bound_loopback(b.get());
  connect_to(a.get(), ba);
  connect_to(b.get(), aa);
  return {std::move(a), std::move(b)};
}

/// Removes a FIFO node and its private directory when it goes out of scope.
struct fifo_node {
  std::filesystem::path dir, path;
  ~fifo_node() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove(path, ec);
    if (!dir.empty()) std::filesystem::remove(dir, ec);
  }
};

link fifo_link() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "pollscale-fifo-XXXXXX").string();
  fifo_node node;
  sys::call("mkdtemp", [&] { return ::mkdtemp(tmpl.data()) ? 0 : -1; });
  node.dir = tmpl;
  const std::string path = (node.dir / "fifo").string();
  sys::call("mkfifo", [&] { return ::mkfifo(path.c_str(), 0600); });
  node.path = path;
  // Reader first, non-blocking, so that opening the writer does not wait for a reader.
  sys::unique_fd rd(
      sys::call("open(fifo, O_RDONLY)", [&] { return ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC); }));
  sys::unique_fd wr(sys::call("open(fifo, O_WRONLY)", [&] { return ::open(path.c_str(), O_WRONLY | O_CLOEXEC); }));
  const int fl = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(rd.get(), F_GETFL); });
  sys::call("fcntl(F_SETFL, blocking)", [&] { return ::fcntl(rd.get(), F_SETFL, fl & ~O_NONBLOCK); });
  return {std::move(wr), std::move(rd)};
}

}  // namespace

const std::vector<link_spec>& all_links() {
  static const std::vector<link_spec> links = {{link_kind::pipe, "pipe", "", "pipe_cpy"},
                                               {link_kind::fifo, "fifo", "", "fifo_test"},
                                               {link_kind::stream, "socketpair", "stream", "stream_pipe"},
                                               {link_kind::dgram, "socketpair", "dgram", "dgram_pipe"},
                                               {link_kind::tcp, "tcp", "", "tcp_test"},
                                               {link_kind::udp, "udp", "", "udp_test"}};
  return links;
}

const link_spec& find_link(std::string_view fd_kind, std::string_view kind_variant) {
  for (const auto& l : all_links())
    if (l.fd_kind == fd_kind && l.variant == kind_variant) return l;
  throw std::invalid_argument("ipc has no channel '" + std::string(fd_kind) +
                              (kind_variant.empty() ? "" : "/" + std::string(kind_variant)) + "'");
}

bool is_stream(link_kind k) { return k != link_kind::dgram && k != link_kind::udp; }

link make_link(link_kind k) {
  switch (k) {
    case link_kind::pipe: {
      int p[2];
      sys::call("pipe2", [&] { return ::pipe2(p, O_CLOEXEC); });
      return {sys::unique_fd(p[1]), sys::unique_fd(p[0])};
    }
    case link_kind::fifo: return fifo_link();
    case link_kind::stream: return socket_pair(SOCK_STREAM);
    case link_kind::dgram: return socket_pair(SOCK_DGRAM);
    case link_kind::tcp: return tcp_link();
    case link_kind::udp: return udp_link();
  }
  throw std::logic_error("unknown ipc link kind");
}

void echo_child(int in, int out, std::size_t len, bool stream, int cpu, pid_t parent, const int* close_fds,
                std::size_t n_close) noexcept {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the parent died before prctl took effect
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ign, nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  if (::syscall(SYS_sched_setaffinity, 0, sizeof set, &set) != 0) ::_exit(4);
  for (std::size_t i = 0; i < n_close; ++i)
    if (close_fds[i] >= 0) ::close(close_fds[i]);
  char buf[4096];
  if (len > sizeof buf) ::_exit(5);
  for (;;) {
    std::size_t got = 0;
    while (got < len) {
      const ssize_t r = ::read(in, buf + got, len - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) ::_exit(r == 0 ? 0 : 1);
      got += static_cast<std::size_t>(r);
      if (!stream) break;
    }
    const std::size_t answer = got == len ? len : 1;  // a wrong datagram: the parent sees a 1-byte reply
    for (std::size_t put = 0; put < answer;) {
      const ssize_t w = ::write(out, buf + put, answer - put);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) ::_exit(3);
      put += static_cast<std::size_t>(w);
    }
  }
}

}  // namespace pollscale::calibrate::probes::ipc_channels
