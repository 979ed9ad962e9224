// The server scenario's load generator (httperf style, closed loop): `a` loopback tcp
// connections whose client ends live in a child process that keeps exactly one request
// outstanding on each — send a 64-byte request, wait for its 64-byte reply, check it,
// send the next. The server ends stay in this process for the server loop to watch.
//
// Latency travels back inside the traffic itself: every request carries the round trip
// of its client's previous request (when it was sent and how long it took), so the server
// learns each round trip one cycle later at no extra system call, without shared memory
// or a side channel that could itself become the bottleneck.
//
// The child does async-signal-safe work only (raw system calls on memory allocated before
// fork): no malloc, exceptions or iostream. It dies with its parent (PR_SET_PDEATHSIG),
// ignores SIGINT (the parent decides when to stop) and is reaped by stop().
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate::probes {

/// One request or reply on the wire: 64 bytes; a reply echoes its request with
/// magic = reply_magic.
struct server_message {
  std::uint32_t magic;
  std::uint32_t client;           ///< connection index, 0..a-1
  std::uint64_t seq;              ///< per-connection request number, from 0
  std::uint64_t sent_ns;          ///< CLOCK_MONOTONIC when this request was sent
  std::uint64_t prev_sent_ns;     ///< when this client's previous request was sent (0: none)
  std::uint64_t prev_latency_ns;  ///< that previous request's round trip, send to reply read
  std::uint8_t pad[24];
};
static_assert(sizeof(server_message) == 64);

inline constexpr std::uint32_t request_magic = 0x31514552;  // "REQ1"
inline constexpr std::uint32_t reply_magic = 0x314c5052;    // "RPL1"

class load_generator {
 public:
  /// Opens `clients` >= 1 loopback tcp connections (TCP_NODELAY, RST on close); no
  /// process yet. Throws std::system_error naming the call that failed.
  explicit load_generator(std::size_t clients);
  ~load_generator();
  load_generator(const load_generator&) = delete;
  load_generator& operator=(const load_generator&) = delete;

  std::size_t size() const { return server_.size(); }
  /// The server end of connection i (non-blocking), ascending with i.
  int server_fd(std::size_t i) const { return server_[i].get(); }

  /// Forks the generator pinned to `cpu`; it sends the first request on every connection
  /// at once. Register the server ends with the mechanism first: a realtime-signal
  /// waiter never hears of data that arrived before it was set up.
  void start(int cpu);

  /// Tells the generator to exit and reaps it; idempotent, never throws.
  void stop() noexcept;

  /// Why the generator ended ("exited 11: a reply did not echo its request"); reaps it.
  /// For error messages after its connections closed unexpectedly.
  std::string end_reason();

 private:
  std::vector<sys::unique_fd> server_, client_;
  sys::unique_fd control_;  // write end of a pipe; closing it tells the generator to exit
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

}  // namespace pollscale::calibrate::probes
