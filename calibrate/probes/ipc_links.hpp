// The channels of the ipc probe (ipc.cpp holds the essay) and the echo child that answers
// on the other end of a two-process ping-pong.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate::probes::ipc_channels {

/// AIM9's six IPC tests, by the channel they use.
enum class link_kind { pipe, fifo, stream, dgram, tcp, udp };

struct link_spec {
  link_kind kind;
  std::string_view fd_kind;  ///< dataset fd_kind column
  std::string_view variant;  ///< stream / dgram for socketpairs, else empty
  std::string_view aim9;     ///< AIM9's test name
};

/// The six, in AIM9's order of the seed (pipe_cpy first).
const std::vector<link_spec>& all_links();

/// The spec whose fd_kind and socketpair variant match; std::invalid_argument otherwise.
const link_spec& find_link(std::string_view fd_kind, std::string_view kind_variant);

/// True for byte streams (a read may return part of a message); false for datagrams.
bool is_stream(link_kind k);

/// One direction of a channel: bytes written to `wr` are read from `rd`. For sockets the
/// two ends are also usable the other way (a socket pair, a connection, two connected UDP
/// sockets); for pipes and FIFOs they are not. Blocking, close-on-exec descriptors; a
/// FIFO's node lives in a private temporary directory removed as soon as both ends are
/// open.
struct link {
  sys::unique_fd wr, rd;
};

/// Creates one channel of `k`. Throws std::system_error naming the call that failed.
link make_link(link_kind k);

/// Runs in a forked child, async-signal-safe only: dies with the parent, ignores SIGINT,
/// pins itself to `cpu`, closes `close_fds` (-1 entries skipped), then echoes messages of
/// `len` <= 4096 bytes from `in` to `out` until EOF or an error, and _exits. A datagram of
/// another length is answered with a 1-byte datagram (the parent then fails loudly).
[[noreturn]] void echo_child(int in, int out, std::size_t len, bool stream, int cpu, pid_t parent, const int* close_fds,
                             std::size_t n_close) noexcept;

}  // namespace pollscale::calibrate::probes::ipc_channels
