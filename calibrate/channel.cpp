#include "calibrate/channel.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {
namespace {

constexpr std::size_t park_batch = 250;

}  // namespace

void tune_tcp(int fd) {
  const int one = 1;
  const linger lg{1, 0};
  sys::call("setsockopt(TCP_NODELAY)", [&] { return ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); });
  sys::call("setsockopt(SO_LINGER)", [&] { return ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg); });
}

sys::unique_fd make_loopback_listener() {
  sys::unique_fd l(
      sys::call("socket(AF_INET, SOCK_STREAM)", [] { return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sys::call("bind(127.0.0.1:0)", [&] { return ::bind(l.get(), reinterpret_cast<sockaddr*>(&a), sizeof a); });
  sys::call("listen", [&] { return ::listen(l.get(), 4096); });
  return l;
}

namespace {

/// Binds a client socket to source address 127.0.0.(2 + index / 8192), port left to
/// connect(): connect() takes one source address's ports from the even half of
/// ip_local_port_range first and slows down sharply once that half (~14000) is used up
/// (19000 loopback connections took 15 s instead of 1 s). All of 127/8 is on lo.
void spread_source_address(int fd, std::size_t index) {
  const int one = 1;
  sys::call("setsockopt(IP_BIND_ADDRESS_NO_PORT)",
            [&] { return ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one); });
  sockaddr_in src{};
  src.sin_family = AF_INET;
  src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + static_cast<std::uint32_t>(index / 8192));
  sys::call("bind(127.0.0.x:0)", [&] { return ::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src); });
}

}  // namespace

sys::unique_fd connect_loopback(int listener, std::size_t index) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  sys::call("getsockname", [&] { return ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len); });
  sys::unique_fd c(
      sys::call("socket(AF_INET, SOCK_STREAM)", [] { return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }));
  spread_source_address(c.get(), index);
  sys::call("connect(127.0.0.1)", [&] { return ::connect(c.get(), reinterpret_cast<sockaddr*>(&a), len); });
  tune_tcp(c.get());
  return c;
}

namespace {

/// One loopback connection: {accepted end, connecting end}; `index` spreads source addresses.
std::pair<sys::unique_fd, sys::unique_fd> tcp_pair(int listener, std::size_t index) {
  sys::unique_fd c = connect_loopback(listener, index);
  sys::unique_fd s(
      sys::call("accept4", [&] { return ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK); }));
  tune_tcp(s.get());
  return {std::move(s), std::move(c)};
}

}  // namespace

std::string_view name_of(fd_kind k) {
  switch (k) {
    case fd_kind::pipe: return datasets::name(datasets::fd_kind::pipe);
    case fd_kind::eventfd: return datasets::name(datasets::fd_kind::eventfd);
    case fd_kind::socketpair: return datasets::name(datasets::fd_kind::socketpair);
    case fd_kind::tcp: return datasets::name(datasets::fd_kind::tcp);
  }
  return "?";
}

std::optional<fd_kind> parse_fd_kind(std::string_view name) {
  for (fd_kind k : all_fd_kinds)
    if (name_of(k) == name) return k;
  return std::nullopt;
}

void write_token(fd_kind kind, int fd) {
  if (kind == fd_kind::eventfd) {
    const std::uint64_t one = 1;
    sys::call("write(eventfd)", [&] { return ::write(fd, &one, sizeof one); });
  } else {
    const char c = 't';
    sys::call("write(token)", [&] { return ::write(fd, &c, 1); });
  }
}

bool read_token(fd_kind kind, int fd) {
  if (kind == fd_kind::eventfd) {
    std::uint64_t v = 0;
    return sys::call("read(eventfd)", [&] { return ::read(fd, &v, sizeof v); }, {EAGAIN}) == sizeof v;
  }
  char c = 0;
  return sys::call("read(token)", [&] { return ::read(fd, &c, 1); }, {EAGAIN}) == 1;
}

channel_set::channel_set(fd_kind kind, std::size_t n, const channel_options& opts) : kind_(kind) {
  watched_.reserve(n);
  trigger_.reserve(n);
  if (kind == fd_kind::tcp) listener_ = make_loopback_listener();
  if (kind != fd_kind::eventfd) high_base_ = trigger_region_start(n, opts);
  std::vector<int> to_park;
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == fd_kind::eventfd) {
      watched_.emplace_back(sys::call("eventfd", [] { return ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }));
      trigger_.emplace_back();
      if (opts.ready_initially(i)) trigger(i);
      continue;
    }
    make_pipe_like(i, opts, to_park);
    if (to_park.size() >= park_batch) flush_parking(to_park);
  }
  flush_parking(to_park);
  listener_.reset();
}

channel_set::~channel_set() = default;

void channel_set::make_pipe_like(std::size_t i, const channel_options& opts, std::vector<int>& to_park) {
  sys::unique_fd w, t;
  if (kind_ == fd_kind::pipe) {
    int p[2];
    sys::call("pipe2", [&] { return ::pipe2(p, O_CLOEXEC | O_NONBLOCK); });
    w.reset(p[0]);
    t.reset(p[1]);
  } else if (kind_ == fd_kind::socketpair) {
    int sv[2];
    sys::call("socketpair(AF_UNIX, SOCK_STREAM)",
              [&] { return ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv); });
    w.reset(sv[0]);
    t.reset(sv[1]);
  } else {
    std::tie(w, t) = tcp_pair(listener_.get(), i);
  }
  if (high_base_ > 0) {
    // Move the trigger end to the top of the table so that its low number is reused by
    // the next watched end: watched descriptors stay ascending with the channel index,
    // and "first"/"last" mean the same in fd order (select) and array order (poll).
    t.reset(sys::call("fcntl(F_DUPFD_CLOEXEC)", [&] { return ::fcntl(t.get(), F_DUPFD_CLOEXEC, high_base_); }));
  }
  if (opts.ready_initially(i)) write_token(kind_, t.get());
  watched_.push_back(std::move(w));
  if (opts.keep_trigger(i)) {
    trigger_.push_back(std::move(t));
  } else {
    to_park.push_back(t.release());
    trigger_.emplace_back();
  }
}

int channel_set::trigger_region_start(std::size_t n, const channel_options& opts) {
  const std::uint64_t soft = sys::current_nofile_limit().soft;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) kept += opts.keep_trigger(i) ? 1u : 0u;
  const std::size_t region = kept + park_batch + 16;
  if (soft == RLIM_INFINITY || soft < n + region + 64 || soft > (1u << 30)) return 0;
  return static_cast<int>(soft - region);
}

void channel_set::flush_parking(std::vector<int>& to_park) {
  if (to_park.empty()) return;
  std::vector<sys::unique_fd> owned;
  owned.reserve(to_park.size());
  for (int fd : to_park) owned.emplace_back(fd);  // closed here once the keeper holds them
  to_park.clear();
  if (!parking_) parking_ = std::make_unique<fd_parking>();
  std::vector<int> raw;
  for (const auto& o : owned) raw.push_back(o.get());
  parking_->park(raw);
}

int channel_set::trigger_fd(std::size_t i) const {
  if (kind_ == fd_kind::eventfd) return watched_[i].get();
  return trigger_[i].get();
}

void channel_set::trigger(std::size_t i) const {
  const int fd = trigger_fd(i);
  if (fd < 0) throw std::logic_error("channel " + std::to_string(i) + ": trigger end is parked");
  write_token(kind_, fd);
}

bool channel_set::try_consume(std::size_t i) const { return read_token(kind_, watched_[i].get()); }

void channel_set::consume(std::size_t i) const {
  if (!try_consume(i))
    throw std::runtime_error(std::string(name_of(kind_)) + " channel " + std::to_string(i) +
                             " reported ready but had nothing to read");
}

std::size_t channel_set::fds_needed(fd_kind kind, std::size_t n, std::size_t kept) {
  if (kind == fd_kind::eventfd) return n;
  const std::size_t parked = n - std::min(n, kept);
  // + the keeper's socket, the transient F_DUPFD copy, and the tcp listener.
  return n + std::min(n, kept) + std::min(parked, park_batch) + (parked ? 1 : 0) + 1 + (kind == fd_kind::tcp ? 1 : 0);
}

}  // namespace pollscale::calibrate
