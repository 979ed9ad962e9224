#include "calibrate/fd_parking.hpp"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>

#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate {
namespace {

constexpr std::size_t max_fds_per_message = 250;  // the kernel's SCM_MAX_FD is 253

/// The keeper's whole life; async-signal-safe calls only (the parent may have threads).
[[noreturn]] void keeper_main(int sock) {
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::dup2(sock, 3) < 0) ::_exit(2);
  ::syscall(SYS_close_range, 4u, ~0u, 0u);
  for (;;) {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_fds_per_message)];
    std::uint32_t expected = 0;
    iovec iov{&expected, sizeof expected};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t r = ::recvmsg(3, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) ::_exit(0);
    std::uint32_t got = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        got += static_cast<std::uint32_t>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    const std::uint32_t ok = (msg.msg_flags & MSG_CTRUNC) ? 0 : got;
    while (::send(3, &ok, sizeof ok, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace

fd_parking::fd_parking() {
  int sv[2];
  sys::call("socketpair(AF_UNIX, SOCK_SEQPACKET)",
            [&] { return ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv); });
  sys::unique_fd ours(sv[0]), theirs(sv[1]);
  pid_ = sys::call("fork (fd keeper)", [] { return ::fork(); });
  if (pid_ == 0) keeper_main(theirs.get());
  socket_ = std::move(ours);
}

fd_parking::~fd_parking() {
  socket_.reset();  // EOF: the keeper exits, closing everything it holds
  if (pid_ > 0) sys::reap(pid_);
}

void fd_parking::park(std::span<const int> fds) {
  for (std::size_t i = 0; i < fds.size(); i += max_fds_per_message)
    send_batch(fds.subspan(i, std::min(max_fds_per_message, fds.size() - i)));
}

void fd_parking::send_batch(std::span<const int> fds) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_fds_per_message)] = {};
  auto count = static_cast<std::uint32_t>(fds.size());
  iovec iov{&count, sizeof count};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  sys::call("sendmsg(SCM_RIGHTS to fd keeper)", [&] { return ::sendmsg(socket_.get(), &msg, MSG_NOSIGNAL); });
  std::uint32_t ack = 0;
  const ssize_t r = sys::call("recv(fd keeper ack)", [&] { return ::recv(socket_.get(), &ack, sizeof ack, 0); });
  if (r != sizeof ack || ack != count)
    throw std::runtime_error("fd keeper could not take " + std::to_string(count) + " descriptors (it holds " +
                             std::to_string(parked_) + "; its RLIMIT_NOFILE is the same as ours)");
  parked_ += count;
}

}  // namespace pollscale::calibrate
