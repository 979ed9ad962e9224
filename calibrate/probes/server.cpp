// server — a real loopback server (dphttpd measured with httperf, seed 003).
//
// One process (the calling thread, pinned to sel.cpus[0]) runs an event loop with the
// chosen mechanism over c idle tcp connections (connected, never sending; their client
// ends parked in the fd keeper, so c reaches ~19000 under RLIMIT_NOFILE = 20000) and `a`
// active ones, opened after the idle ones: the highest descriptors, the end of the poll
// array — the worst place for select and poll, which register a wait entry on every
// descriptor they scan before the first ready one (seed 003 does not say where dphttpd's
// active connections sat; opening the dead ones first makes them last). A load
// generator *process* (server_loadgen.hpp) pinned to the second CPU of `pinning` keeps one
// 64-byte request outstanding on each active connection (a closed loop). The loop: wait
// (blocking, infinite timeout, as a real server), then for each reported connection read
// the request, check it (magic, connection, sequence number), send the 64-byte reply
// echoing it, and re-arm where the mechanism needs it (EPOLLONESHOT, io_uring one-shot).
// Every event a wait reports is served before the next wait, across run() calls too, so
// edge-, one-shot- and signal-based mechanisms never lose one.
//
// One operation is one reply. run(ops) first serves `a` replies untimed — the requests
// that queued while the runner was between samples — so the timed part starts in the
// closed loop's steady state; then it serves `ops` replies. By metric:
//  - throughput (1/s): ops / the time to serve them. Everything the server does is
//    timed: wait calls, reads, checks, replies; the load generator runs on its own CPU
//    (pinning "0+1") or shares the server's ("0+0", where its work is in the time too).
//  - latency (ns): the mean round trip as the load generator sees it (send of a request
//    to read of its reply), over the round trips that began during this run() — each
//    request carries its client's previous round trip, so the server reads them from the
//    traffic; round trips that straddled the pause between samples are left out.
//  - latency_p99 (ns): the 99th percentile (nearest rank) of those round trips.
// A sample is one batch of replies spanning several rounds of the closed loop (a round:
// each client served once): 16 rounds, or fewer (down to 4) where a round takes over
// 0.25 ms, judged from an untimed trial when the point is set up; latency_p99 batches
// hold at least 1000 replies. The runner's median and its 95% interval are then over
// batch throughputs, batch mean latencies and batch 99th percentiles.
//
// Key columns: n_fds = c idle connections; n_active = a active clients; active_pos
// "last"; fd_kind tcp; blocking 1; threads 2 (server and load-generator processes);
// pinning "server CPU+generator CPU"; max_fd = the highest descriptor watched.
// Not timed: setting up the connections. Points with the same c share one set of idle
// connections (the grid lists them together); every point has its own mechanism
// instance, registrations and load generator.

#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/server_loadgen.hpp"
#include "calibrate/shared_setup.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

/// One active connection's server-side state.
struct connection {
  alignas(8) unsigned char in[2 * sizeof(server_message)];  // room to notice a second request
  std::size_t filled = 0;
  std::uint64_t next_seq = 0;
};

enum class server_metric { throughput, latency, latency_p99 };

/// The idle connections of the last point, kept for the next point with the same c
/// (shared_setup.hpp). The probe's release hook frees them when the session moves on.
shared_setup& idle_cache() {
  static shared_setup cached;
  return cached;
}

std::string idle_setup_name(const datasets::key& key) { return "tcp idle c=" + std::to_string(key.n_fds.value_or(0)); }

std::shared_ptr<channel_set> idle_connections(const datasets::key& key) {
  const auto c = static_cast<std::size_t>(key.n_fds.value_or(0));
  if (c == 0) {
    idle_cache().release();
    return nullptr;
  }
  return idle_cache().get(idle_setup_name(key), [c] {
    channel_options opts;
    opts.keep_trigger = [](std::size_t) { return false; };  // nobody ever writes to them
    return std::make_unique<channel_set>(fd_kind::tcp, c, opts);
  });
}

server_metric metric_of(const datasets::key& k) {
  using datasets::metric;
  if (k.metric == metric::throughput) return server_metric::throughput;
  if (k.metric == metric::latency) return server_metric::latency;
  if (k.metric == metric::latency_p99) return server_metric::latency_p99;
  throw std::invalid_argument("server: unknown metric '" + k.metric + "'");
}

class server_instance final : public probe_instance {
 public:
  server_instance(const datasets::key& key, const selection& sel);
  ~server_instance() override {
    if (gen_) gen_->stop();  // quiet first: no request arrives while the waiter is torn down
  }

  std::uint64_t run(std::size_t ops) override;
  std::size_t min_batch() const override;
  void annotate(datasets::key& k) const override { k.max_fd = max_fd_; }

 private:
  void serve(std::size_t replies);
  bool handle(std::uint32_t tag);
  bool read_request(std::uint32_t tag, connection& c);
  void reply(std::uint32_t tag, connection& c);
  std::uint64_t latency_result(std::size_t ops);

  server_metric metric_;
  std::size_t idle_count_, active_count_;
  std::shared_ptr<channel_set> idle_;
  std::unique_ptr<load_generator> gen_;
  std::unique_ptr<waiter> w_;  // declared last: torn down first, while its descriptors are open
  std::vector<connection> conns_;
  std::vector<std::uint32_t> pending_;  // reported by the last wait, not yet served
  std::size_t next_pending_ = 0;
  std::vector<std::uint64_t> latencies_;  // round trips begun in this run()
  std::uint64_t window_start_ns_ = 0;     // round trips begun before this are left out
  bool recording_ = false;
  int max_fd_ = -1;
  std::size_t rounds_per_batch_ = 16;
};

server_instance::server_instance(const datasets::key& key, const selection& sel)
    : metric_(metric_of(key)),
      idle_count_(static_cast<std::size_t>(key.n_fds.value_or(0))),
      active_count_(static_cast<std::size_t>(key.n_active.value_or(1))) {
  if (active_count_ < 1) throw std::invalid_argument("server: n_active must be >= 1");
  const auto [server_cpu, generator_cpu] = parse_pinning_pair(key.pinning);
  if (std::find(sel.cpus.begin(), sel.cpus.end(), generator_cpu) == sel.cpus.end())
    throw probe_skipped("load generator CPU " + std::to_string(generator_cpu) + " is not in the affinity mask");
  (void)server_cpu;  // the session pins this thread; the key records where
  // idle connections, a server and a client end per active one, control pipe, waiter.
  require_fds(channel_set::fds_needed(fd_kind::tcp, idle_count_, 0) + 2 * active_count_ + 8, sel);
  idle_ = idle_connections(key);
  gen_ = std::make_unique<load_generator>(active_count_);
  w_ = make_waiter(flavour_of(key), idle_count_ + active_count_);
  // Tags: active connections 0..a-1, idle ones a..a+c-1; idle ones registered first.
  for (std::size_t i = 0; i < idle_count_; ++i) {
    w_->add(idle_->watched(i), static_cast<std::uint32_t>(active_count_ + i));
    max_fd_ = std::max(max_fd_, idle_->watched(i));
  }
  for (std::size_t i = 0; i < active_count_; ++i) {
    w_->add(gen_->server_fd(i), static_cast<std::uint32_t>(i));
    max_fd_ = std::max(max_fd_, gen_->server_fd(i));
  }
  conns_.resize(active_count_);
  pending_.reserve(idle_count_ + active_count_);
  latencies_.reserve(1 << 16);
  gen_->start(generator_cpu);
  serve(2 * active_count_);  // proves the loop and every answer before anything is timed
  double round_ns = 1e18;    // the fastest of three rounds: a preempted one says nothing
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t t0 = clock_ns();
    serve(active_count_);
    round_ns = std::min(round_ns, static_cast<double>(clock_ns() - t0));
  }
  rounds_per_batch_ = static_cast<std::size_t>(std::clamp(std::ceil(4e6 / std::max(round_ns, 1.0)), 4.0, 16.0));
}

std::size_t server_instance::min_batch() const {
  const std::size_t rounds = rounds_per_batch_ * active_count_;
  return metric_ == server_metric::latency_p99 ? std::max<std::size_t>(rounds, 1000) : rounds;
}

std::uint64_t server_instance::run(std::size_t ops) {
  window_start_ns_ = clock_ns();
  recording_ = false;
  serve(active_count_);  // the requests that queued between samples
  latencies_.clear();
  recording_ = metric_ != server_metric::throughput;
  const std::uint64_t t0 = clock_ns();
  serve(ops);
  const std::uint64_t elapsed = clock_ns() - t0;
  return metric_ == server_metric::throughput ? elapsed : latency_result(ops);
}

std::uint64_t server_instance::latency_result(std::size_t ops) {
  // A very short batch may end before any round trip begun in it was reported back;
  // serving on (untimed) a little longer fixes that. Bounded: each client reports one
  // round trip per two of its replies.
  for (std::size_t extra = 0; latencies_.empty() && extra < 4 * active_count_ + 4; ++extra) serve(1);
  if (latencies_.empty()) throw probe_failure("server: no round trip was reported back by the load generator");
  double value = 0;
  if (metric_ == server_metric::latency) {
    long double sum = 0;
    for (auto l : latencies_) sum += static_cast<long double>(l);
    value = static_cast<double>(sum / static_cast<long double>(latencies_.size()));
  } else {
    const std::size_t rank = (latencies_.size() * 99 + 99) / 100;  // nearest rank, 1-based
    std::nth_element(latencies_.begin(), latencies_.begin() + static_cast<std::ptrdiff_t>(rank - 1), latencies_.end());
    value = static_cast<double>(latencies_[rank - 1]);
  }
  return static_cast<std::uint64_t>(value * static_cast<double>(ops) + 0.5);
}

void server_instance::serve(std::size_t replies) {
  std::size_t done = 0;
  while (done < replies) {
    if (next_pending_ == pending_.size()) {
      next_pending_ = 0;
      while (w_->wait(pending_, -1) == 0) {
      }  // a signal for something else (rtsig POLL_OUT): wait again
    }
    if (handle(pending_[next_pending_++])) ++done;
  }
}

bool server_instance::handle(std::uint32_t tag) {
  if (tag >= active_count_)
    throw probe_failure("server: idle connection #" + std::to_string(tag - active_count_) + " reported ready");
  connection& c = conns_[tag];
  const bool whole = read_request(tag, c);
  if (whole) reply(tag, c);
  w_->rearm(gen_->server_fd(tag), tag);
  return whole;
}

/// Reads what is there; true once a whole request is in. Throws on a closed connection,
/// on data that is not one request, and on a level-triggered report with nothing to read.
bool server_instance::read_request(std::uint32_t tag, connection& c) {
  const int fd = gen_->server_fd(tag);
  const std::size_t before = c.filled;
  while (c.filled < sizeof(server_message)) {
    const ssize_t r = sys::call(
        "recv (request)", [&] { return ::recv(fd, c.in + c.filled, sizeof c.in - c.filled, 0); }, {EAGAIN, ECONNRESET});
    if (r == 0 || (r < 0 && errno == ECONNRESET))
      throw probe_failure("server: active connection #" + std::to_string(tag) + " closed: " + gen_->end_reason());
    if (r < 0) break;  // EAGAIN: the rest is still on its way
    c.filled += static_cast<std::size_t>(r);
  }
  if (c.filled == before && w_->level_triggered())
    throw probe_failure("server: connection #" + std::to_string(tag) + " reported ready with nothing to read");
  if (c.filled > sizeof(server_message))
    throw probe_failure("server: connection #" + std::to_string(tag) + " sent more than one request at once");
  return c.filled == sizeof(server_message);
}

void server_instance::reply(std::uint32_t tag, connection& c) {
  server_message m;
  std::memcpy(&m, c.in, sizeof m);
  c.filled = 0;
  if (m.magic != request_magic || m.client != tag || m.seq != c.next_seq)
    throw probe_failure("server: connection #" + std::to_string(tag) + " got request (client " +
                        std::to_string(m.client) + ", seq " + std::to_string(m.seq) + "), expected seq " +
                        std::to_string(c.next_seq));
  ++c.next_seq;
  if (recording_ && m.prev_sent_ns >= window_start_ns_ && m.prev_latency_ns > 0)
    latencies_.push_back(m.prev_latency_ns);
  m.magic = reply_magic;
  const int fd = gen_->server_fd(tag);
  const ssize_t w =
      sys::call("send (reply)", [&] { return ::send(fd, &m, sizeof m, MSG_NOSIGNAL); }, {EPIPE, ECONNRESET});
  if (w < 0)
    throw probe_failure("server: reply on connection #" + std::to_string(tag) + " failed: " + gen_->end_reason());
  if (w != static_cast<ssize_t>(sizeof m))
    throw probe_failure("server: short reply (" + std::to_string(w) + " bytes) on connection #" + std::to_string(tag));
}

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<server_instance>(key, sel);
}

}  // namespace

probe_def server() {
  return {datasets::name(datasets::scenario::server),
          "one reply from a loopback server holding c idle tcp connections, a active clients in a closed loop",
          server_points,
          make_instance,
          [] { idle_cache().release(); },
          idle_setup_name};
}

}  // namespace pollscale::calibrate::probes
