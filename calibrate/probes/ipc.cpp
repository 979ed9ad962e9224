// ipc — AIM9's IPC tests (seed 002): messages through a pipe (pipe_cpy), a FIFO
// (fifo_test), a unix stream socketpair (stream_pipe, variant stream), a unix datagram
// socketpair (dgram_pipe, variant dgram), a tcp loopback connection (tcp_test) and a pair
// of connected udp loopback sockets (udp_test). metric throughput, unit 1/s.
//
// One operation is one message:
//  - threads=1 (AIM9's style): this process writes a message to the channel and reads it
//    back from the channel's other end. Nothing sleeps: the data is there when read.
//    Unlike AIM9, the channel is set up once, before timing: AIM9 creates and closes the
//    channel inside each iteration, which mixes set-up cost into its rate — so our rates
//    are not comparable with the historical rows in absolute terms, only in their ratios.
//  - threads=2: two processes ping-pong the message: this one writes it, a forked echo
//    child (pinned per `pinning`: "0+0" same CPU, "0+1" the other) reads it and writes it
//    back, this one reads the echo. One op = the message once each way (a round trip).
//    Pipes and FIFOs use one channel per direction; sockets carry both directions.
// Message size: 64 bytes (AIM9 uses small messages); the full profile adds 4096 bytes,
// marked in `variant` as "4096B" ("stream+4096B" for socketpairs). Every message carries a
// sequence number and a fixed pattern, and what is read back is compared with what was
// written, byte for byte, inside the timed loop (a 64-byte memcmp costs nanoseconds).
// Timed: the loop of operations only. Not timed: creating the channel, forking the child.
// With one process, a batch the thread was preempted in is run again.
// The descriptors are blocking. In threads=2 a datagram reader (dgram, udp) also has
// SO_RCVTIMEO = 10 s, because nothing else would wake it if the child died; a timed sleep
// arms a timer, which adds roughly 0.1-0.2 us to each of those round trips. Stream kinds
// need no timeout: the child's death is an EOF.

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/ipc_links.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::ipc;
constexpr std::size_t default_bytes = 64;

/// An ipc variant split into its socketpair kind ("stream", "dgram" or "") and its
/// message size ("4096B"; 64 when absent).
struct ipc_variant {
  std::string kind;
  std::size_t bytes = default_bytes;
};

ipc_variant parse_variant(const std::string& v) {
  ipc_variant p;
  for (std::size_t start = 0; start < v.size();) {
    const std::size_t plus = std::min(v.find('+', start), v.size());
    const std::string part = v.substr(start, plus - start);
    start = plus + 1;
    const bool size = part.size() > 1 && part.back() == 'B' &&
                      std::all_of(part.begin(), part.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
    if (size) {
      p.bytes = std::stoul(part);
      if (p.bytes < sizeof(std::uint64_t) || p.bytes > 4096)
        throw std::invalid_argument("ipc message size " + part + " is not in 8B..4096B");
    } else if (p.kind.empty()) {
      p.kind = part;
    } else {
      throw std::invalid_argument("ipc variant '" + v + "' names two channel kinds");
    }
  }
  return p;
}

std::string make_variant(std::string_view kind, std::size_t bytes) {
  const std::string size = bytes == default_bytes ? "" : std::to_string(bytes) + "B";
  if (kind.empty()) return size;
  return size.empty() ? std::string(kind) : std::string(kind) + "+" + size;
}

/// A forked echo child, killed and reaped when this goes away (also on a failed make()).
struct child_process {
  pid_t pid = -1;
  child_process() = default;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() {
    if (pid > 0) sys::kill_and_reap(pid);
  }
};

class ipc_instance final : public probe_instance {
 public:
  ipc_instance(const datasets::key& key, const selection& sel)
      : v_(parse_variant(key.variant)),
        spec_(ipc_channels::find_link(key.fd_kind, v_.kind)),
        stream_(ipc_channels::is_stream(spec_.kind)),
        out_(v_.bytes),
        in_(v_.bytes) {
    require_fds(8, sel);
    for (std::size_t i = 0; i < out_.size(); ++i) out_[i] = static_cast<char>('a' + i % 26);
    const auto threads = key.threads.value_or(1);
    if (threads == 1) {
      ipc_channels::link l = ipc_channels::make_link(spec_.kind);
      wr_ = l.wr.get();
      rd_ = l.rd.get();
      own(std::move(l.wr));
      own(std::move(l.rd));
    } else if (threads == 2) {
      start_child(checked_partner_cpu(key, sel));
    } else {
      throw std::invalid_argument("ipc runs with 1 or 2 threads, not " + std::to_string(threads));
    }
    run(1);  // proves the path before anything is timed
  }

  std::uint64_t run(std::size_t ops) override {
    // One process never sleeps: a batch it was preempted in timed another task too and
    // is run again. Two processes sleep by design (and a same-CPU echo preempts us).
    if (child_.pid <= 0) return time_unpreempted([&] { return messages(ops); }, [] {});
    return messages(ops);
  }

 private:
  std::uint64_t messages(std::size_t ops) {
    const std::uint64_t t0 = clock_ns();
    for (std::size_t i = 0; i < ops; ++i) {
      ++seq_;
      std::memcpy(out_.data(), &seq_, sizeof seq_);
      send();
      receive();
      if (std::memcmp(in_.data(), out_.data(), out_.size()) != 0)
        throw probe_failure(std::string(spec_.aim9) + ": message " + std::to_string(seq_) + " came back altered");
    }
    return clock_ns() - t0;
  }

  void own(sys::unique_fd fd) { fds_.push_back(std::move(fd)); }

  void start_child(int cpu) {
    const bool two_way = spec_.kind != ipc_channels::link_kind::pipe && spec_.kind != ipc_channels::link_kind::fifo;
    ipc_channels::link a = ipc_channels::make_link(spec_.kind);
    ipc_channels::link b = two_way ? ipc_channels::link{} : ipc_channels::make_link(spec_.kind);
    // Sockets: this side uses a.wr both ways, the child a.rd. Pipes: a forth, b back.
    wr_ = a.wr.get();
    rd_ = two_way ? a.wr.get() : b.rd.get();
    const int child_in = a.rd.get(), child_out = two_way ? a.rd.get() : b.wr.get();
    const int close_in_child[2] = {wr_, two_way ? -1 : rd_};
    const pid_t parent = ::getpid();
    child_.pid = sys::call("fork", [] { return ::fork(); });
    if (child_.pid == 0)
      ipc_channels::echo_child(child_in, child_out, v_.bytes, stream_, cpu, parent, close_in_child, 2);
    own(std::move(a.wr));  // the child's ends close here, so its death reads as EOF
    if (!two_way) own(std::move(b.rd));
    if (!stream_) {
      const timeval tv{10, 0};
      sys::call("setsockopt(SO_RCVTIMEO)", [&] { return ::setsockopt(rd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv); });
    }
  }

  void send() {
    for (std::size_t put = 0; put < out_.size();) {
      const auto w = sys::call("write(ipc)", [&] { return ::write(wr_, out_.data() + put, out_.size() - put); });
      if (!stream_ && static_cast<std::size_t>(w) != out_.size())
        throw probe_failure(std::string(spec_.aim9) + ": a datagram was sent short");
      put += static_cast<std::size_t>(w);
    }
  }

  void receive() {
    for (std::size_t got = 0; got < in_.size();) {
      const auto r = sys::call("read(ipc)", [&] { return ::read(rd_, in_.data() + got, in_.size() - got); }, {EAGAIN});
      if (r < 0) throw probe_failure(std::string(spec_.aim9) + ": no reply within 10 s (is the echo child alive?)");
      if (r == 0) throw probe_failure(std::string(spec_.aim9) + ": end of file (the echo child is gone)");
      if (!stream_ && static_cast<std::size_t>(r) != in_.size())
        throw probe_failure(std::string(spec_.aim9) + ": received a " + std::to_string(r) +
                            "-byte datagram, expected " + std::to_string(in_.size()));
      got += static_cast<std::size_t>(r);
    }
  }

  ipc_variant v_;
  const ipc_channels::link_spec& spec_;
  bool stream_;
  std::vector<char> out_, in_;
  std::vector<sys::unique_fd> fds_;
  int wr_ = -1, rd_ = -1;
  std::uint64_t seq_ = 0;
  child_process child_;  // last: killed and reaped first
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<ipc_instance>(key, sel);
}

/// Every channel at 64 bytes (full: and 4096), one process and two processes on the same
/// and on the other CPU. No mechanism: measured whatever --mechanisms says; --n ignored.
std::vector<datasets::key> ipc_points(const selection& sel, std::span<const flavour>) {
  const int c0 = sel.cpus.empty() ? 0 : sel.cpus[0];
  const int c1 = sel.cpus.size() > 1 ? sel.cpus[1] : c0 + 1;  // not in the mask: make() skips it
  using datasets::pinning;
  const std::vector<std::pair<int, std::string>> placements = {
      {1, pinning::on(c0).text()}, {2, pinning::pair(c0, c0).text()}, {2, pinning::pair(c0, c1).text()}};
  std::vector<std::size_t> sizes = {default_bytes};
  if (sel.profile == profile_kind::full) sizes.push_back(4096);
  std::vector<datasets::key> out;
  for (std::size_t bytes : sizes)
    for (const auto& l : ipc_channels::all_links())
      for (const auto& [threads, pin] : placements) {
        datasets::key k;
        k.scenario = datasets::name(scenario);
        k.variant = make_variant(l.variant, bytes);
        k.fd_kind = std::string(l.fd_kind);
        k.threads = threads;
        k.cpus = distinct_cpus(pin);
        k.pinning = pin;
        k.metric = datasets::name(datasets::metric::throughput);
        k.unit = "1/s";
        out.push_back(std::move(k));
      }
  return out;
}

}  // namespace

probe_def ipc() {
  return {datasets::name(scenario),
          "one message through pipe, fifo, unix stream/dgram, tcp or udp loopback (AIM9), 1 or 2 processes", ipc_points,
          make_instance};
}

}  // namespace pollscale::calibrate::probes
