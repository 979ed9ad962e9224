// Channels: the descriptors a probe watches, of one kind each (pipe, eventfd, unix
// socketpair, tcp loopback connection). A channel has a *watched* end (registered with the
// mechanism, non-blocking) and a *trigger* end (written to make the watched end readable);
// for eventfd both are one descriptor. Pipes and socketpairs are created non-blocking at
// both ends (pipe2's and socketpair's flags; two fcntl calls per channel set the watched
// end alone before, two of a pipe channel's seven system calls from creation to close); a
// write of one token to a channel with room takes the same kernel path either way, and a
// write that would block fails (EAGAIN, probe_failure) instead of hanging. Trigger ends a
// probe will not write to are parked in a keeper process (fd_parking.hpp) so that n can
// approach the descriptor limit.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "calibrate/fd_parking.hpp"
#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate {

enum class fd_kind { pipe, eventfd, socketpair, tcp };

std::string_view name_of(fd_kind k);
std::optional<fd_kind> parse_fd_kind(std::string_view name);
inline constexpr fd_kind all_fd_kinds[] = {fd_kind::pipe, fd_kind::eventfd, fd_kind::socketpair, fd_kind::tcp};

struct channel_options {
  /// Channels whose trigger end stays in this process (the ones a probe writes to).
  std::function<bool(std::size_t)> keep_trigger = [](std::size_t) { return true; };
  /// Channels made readable once at creation, before any parking (persistent readiness).
  std::function<bool(std::size_t)> ready_initially = [](std::size_t) { return false; };
};

class channel_set {
 public:
  /// Creates n channels with ascending watched descriptors (watched(i) < watched(i+1)) when
  /// the descriptor limit leaves room to move trigger ends to the top of the table.
  /// Throws std::system_error naming the call that failed (EMFILE...).
  channel_set(fd_kind kind, std::size_t n, const channel_options& opts = {});
  ~channel_set();
  channel_set(const channel_set&) = delete;
  channel_set& operator=(const channel_set&) = delete;

  fd_kind kind() const { return kind_; }
  std::size_t size() const { return watched_.size(); }
  int watched(std::size_t i) const { return watched_[i].get(); }
  /// The trigger end, or -1 when it is parked.
  int trigger_fd(std::size_t i) const;

  /// Makes channel i readable: one byte (eventfd: counter += 1). Precondition: kept trigger.
  void trigger(std::size_t i) const;
  /// Reads back what one trigger() wrote; throws std::runtime_error if nothing was there
  /// (the probe's answer was wrong), never blocks.
  void consume(std::size_t i) const;
  /// Reads back what one trigger() wrote; false if nothing was there. Never blocks.
  bool try_consume(std::size_t i) const;

  /// Descriptors this process holds for n channels with `kept` trigger ends kept
  /// (peak during creation, parking batches included).
  static std::size_t fds_needed(fd_kind kind, std::size_t n, std::size_t kept);

 private:
  void make_pipe_like(std::size_t i, const channel_options& opts, std::vector<int>& to_park);
  void flush_parking(std::vector<int>& to_park);
  static int trigger_region_start(std::size_t n, const channel_options& opts);

  fd_kind kind_;
  std::vector<sys::unique_fd> watched_;
  std::vector<sys::unique_fd> trigger_;  // empty entries: parked (or eventfd: same as watched)
  sys::unique_fd listener_;              // tcp only
  int high_base_ = 0;                    // trigger ends live at or above this fd (0: anywhere)
  std::unique_ptr<fd_parking> parking_;
};

/// A tcp socket listening on 127.0.0.1, on a port the kernel chooses, backlog 4096.
sys::unique_fd make_loopback_listener();
/// Loopback tcp: TCP_NODELAY (small writes leave at once) and SO_LINGER {1, 0} (closing sends
/// RST, so that thousands of connections per run leave no TIME_WAIT behind).
void tune_tcp(int fd);
/// A tcp socket connected to `listener` (tuned as tune_tcp), from source address
/// 127.0.0.(2 + index / 8192): one address's ports run short past about 14000 connections.
sys::unique_fd connect_loopback(int listener, std::size_t index);

/// Writes one byte (or 1 to an eventfd) to `fd`; `kind` selects the encoding.
void write_token(fd_kind kind, int fd);
/// Reads one token written by write_token; returns false if none was available.
bool read_token(fd_kind kind, int fd);

}  // namespace pollscale::calibrate
