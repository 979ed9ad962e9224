// token_ring — the LSE pipetest (sys_epoll SMP tests, 2002; seed 003).
//
// n channels form a ring; t tokens circulate. One thread watches the read ends of all n
// channels with the mechanism; it reads the token of each channel reported ready and
// writes it to the next channel's write end, then waits again. One operation is one token
// pass: a token read from channel i and written to channel i+1 (mod n). The metric is
// passes per second (unit 1/s: the runner turns the time per pass into a rate).
//
// Timed: the wait calls, the reads and writes, re-arming where the mechanism needs it
// (EPOLLONESHOT: epoll_ctl MOD; io_uring one-shot: a new POLL_ADD) and the bookkeeping
// checks below (a few ns per pass). Not timed: building the ring and placing the tokens.
// The points of one fd kind and n share one ring per visit of their group, whatever their
// mechanism (a waiter leaves the descriptors as it found them: calibrate/waiter.hpp), as
// find_active's points share their channels: each driver watches it, places its tokens,
// and reads them all back when it goes, so the next finds it empty (a token left behind
// would fail the next driver's first wait). Creating and closing a pipe costs about 10 µs
// here, a wait call over a ring of 10,000 a fraction of that per descriptor, so the quick
// profile spent most of its token_ring time building rings.
//
// Key columns: n_fds = n channels (all watched); n_active = t tokens (1 <= t <= n,
// placed at channels j*n/t); fd_kind pipe (read end watched, write end written; both in
// this process, so n <= ~9900 under RLIMIT_NOFILE 20000) or eventfd (one descriptor per
// channel: n up to ~19900); blocking 0 = every wait has timeout 0 (the waiter spins, never
// sleeps), 1 = the wait may sleep (a 10 s timeout that never expires in a correct run:
// some token is always ready), so select and poll also register a wait entry for every
// descriptor scanned before the first ready one (docs/model.md §2); threads 1, pinning =
// the session's CPU; max_fd = the highest watched descriptor.
//
// After each wait the waiter first reads the token of every reported channel, then passes
// each one on: were each channel read and written in turn, a token written into a channel
// not yet served would catch up with the token there and the two would travel as one
// (with t = n, all at once). So t tokens stay t tokens, one per channel, and every read
// returns exactly one token; a batch always holds whole wait calls. The reads drain the
// channel all the same (as edge-triggered programs must), and a report that finds nothing
// (an edge whose token an earlier read took) counts no pass.
//
// Checked on every call: each read returns exactly the tokens the bookkeeping says the
// channel holds (one), so none is lost, duplicated or beyond t; a level-triggered wait
// reports exactly the channels holding tokens; any other report must follow a write to
// that channel since its previous report; no channel keeps a token for more than n + 64
// waits unreported. A violation throws probe_failure.
// A batch (run(ops)) ends after the wait that made its passes reach `ops`; its time is
// scaled to `ops` passes. With blocking=1 and a level-triggered mechanism the tokens are
// moved to seeded random channels before each batch (untimed): select and poll register
// a wait entry per descriptor before the first ready one, and a batch holds few passes,
// so without the move consecutive samples would all see the same token positions. A batch during which the thread was
// preempted is run again (up to 8 times): it timed another task too (a 3 ms poll over 20000 descriptors rarely escapes
// a busy CPU's time slice).

#include "calibrate/probes/token_ring.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/shared_setup.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr int blocking_timeout_ms = 10'000;
constexpr int spin_empty_limit = 1000;   // empty timeout-0 waits tolerated for edge mechanisms
constexpr int proof_empty_limit = 2000;  // at set-up: does the mechanism deliver on this kind?
constexpr std::size_t max_tokens = 4096;

std::string channel_text(std::size_t i) { return "channel " + std::to_string(i); }

}  // namespace

ring_driver::ring_driver(const datasets::key& key, const selection& sel, std::shared_ptr<channel_set> ring)
    : n_(static_cast<std::size_t>(key.n_fds.value_or(0))),
      t_(static_cast<std::size_t>(key.n_active.value_or(0))),
      timeout_ms_(key.blocking.value_or(0) ? blocking_timeout_ms : 0) {
  if (n_ < 1 || t_ < 1 || t_ > n_ || t_ > max_tokens)
    throw std::invalid_argument("token_ring point " + datasets::describe(key) +
                                " needs 1 <= n_active <= n_fds and n_active <= " + std::to_string(max_tokens));
  const fd_kind kind = fd_kind_of(key);
  if (kind != fd_kind::pipe && kind != fd_kind::eventfd)
    throw std::invalid_argument("token_ring rings pipes or eventfds, not " + key.fd_kind);
  const flavour f = flavour_of(key);
  if (ring && (ring->kind() != kind || ring->size() != n_))
    throw std::invalid_argument("token_ring point " + datasets::describe(key) + " was handed a ring of " +
                                std::to_string(ring->size()) + " " + std::string(name_of(ring->kind())) + " channels");
  if (!ring) require_fds(channel_set::fds_needed(kind, n_, n_) + 4, sel);
  ch_ = ring ? std::move(ring) : std::make_shared<channel_set>(kind, n_);
  w_ = make_waiter(f, n_);
  level_ = w_->level_triggered();
  tokens_in_.assign(n_, 0);
  writes_since_.assign(n_, 0);
  occupied_since_.assign(n_, 0);
  stamp_.assign(n_, UINT64_MAX);
  buf_.resize(kind == fd_kind::pipe ? t_ + 1 : 0);
  moved_.reserve(t_);
  scratch_.reserve(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    w_->add(ch_->watched(i), static_cast<std::uint32_t>(i));
    max_fd_ = std::max(max_fd_, ch_->watched(i));
  }
  // Tokens only once every channel is watched: realtime signals never report data that was
  // already there when O_ASYNC was set.
  moving_ = true;  // until the proof below passes, the destructor reads every channel
  for (std::size_t j = 0; j < t_; ++j) send(j * n_ / t_, 1);
  try {
    refill(0, proof_empty_limit);
    serve_reported();
  } catch (const probe_failure&) {
    leave_empty();
    if (f.mech == mechanism::rtsig)
      throw probe_skipped("the kernel queues no signal for " + key.fd_kind + " (its file has no fasync)");
    throw;
  } catch (...) {
    leave_empty();
    throw;
  }
  moving_ = false;
}

ring_driver::~ring_driver() { leave_empty(); }

void ring_driver::leave_empty() noexcept {
  // The waiter goes first (its registrations with it), then every token is read back, so
  // that a shared ring reaches the next driver empty. After a call that threw, tokens may
  // sit where the bookkeeping does not say: then every channel is read.
  w_.reset();
  for (std::size_t i = 0; i < n_; ++i)
    if (moving_ || tokens_in_[i] > 0) empty(i);
}

void ring_driver::empty(std::size_t i) noexcept {
  // No checks here: whatever the channel holds goes. A read that fails for any reason
  // leaves a token behind, which the next driver's proof reports (a channel ready that
  // holds no token): loudly, never silently.
  try {
    while (read_token(ch_->kind(), ch_->watched(i))) {
    }
  } catch (const std::exception&) {
  }
}

std::size_t ring_driver::advance(std::size_t passes) {
  // Whole waits only: with t tokens one wait call pays for up to t passes, and a batch that
  // stopped between them would leave the call's cost out of some samples.
  moving_ = true;
  std::size_t done = 0;
  while (done < passes) {
    refill(timeout_ms_, timeout_ms_ == 0 && !level_ ? spin_empty_limit : 1);
    done += serve_reported();
  }
  moving_ = false;
  return done;
}

void ring_driver::refill(int timeout_ms, int max_empty) {
  for (int empty = 0;;) {
    ++waits_;
    if (w_->wait(scratch_, timeout_ms) > 0) break;
    if (++empty >= max_empty)
      throw probe_failure("no channel reported ready after " + std::to_string(empty) + " waits while " +
                          std::to_string(occupied_) + " channels hold the " + std::to_string(t_) + " tokens");
  }
  validate(scratch_);
  if (waits_ - last_stuck_check_ > n_ + 64) check_for_stuck_tokens();
}

void ring_driver::validate(const std::vector<std::uint32_t>& tags) {
  if (level_ && tags.size() != occupied_)
    throw probe_failure("a level-triggered wait reported " + std::to_string(tags.size()) + " channels ready while " +
                        std::to_string(occupied_) + " hold tokens");
  for (std::uint32_t tag : tags) {
    if (tag >= n_) throw probe_failure("wait reported unknown tag " + std::to_string(tag));
    const bool again = stamp_[tag] == waits_;
    stamp_[tag] = waits_;
    if (level_ && (again || tokens_in_[tag] == 0))
      throw probe_failure("wait reported " + channel_text(tag) + (again ? " twice" : ", which holds no token"));
    if (!level_) {
      // Each report must be paid for by a write since the channel's previous report.
      if (writes_since_[tag] == 0)
        throw probe_failure("wait reported " + channel_text(tag) + " more often than it was written to");
      --writes_since_[tag];
    }
  }
  for (std::uint32_t tag : tags) writes_since_[tag] = 0;
}

std::size_t ring_driver::serve_reported() {
  // Every reported channel is read before any token is passed on: a token written into a
  // channel not yet served would catch up with the token there and the two would travel
  // as one from then on (with t = n, all at once).
  moved_.clear();
  for (std::uint32_t tag : scratch_) {
    const std::size_t got = drain(tag);
    if (got != tokens_in_[tag])
      throw probe_failure(channel_text(tag) + " gave " + std::to_string(got) + " tokens where it should hold " +
                          std::to_string(tokens_in_[tag]) + ": the ring lost or gained tokens");
    w_->rearm(ch_->watched(tag), tag);
    if (got == 0) continue;  // an edge reported after an earlier read had taken the token
    tokens_in_[tag] = 0;
    --occupied_;
    moved_.emplace_back(tag, got);
  }
  std::size_t passes = 0;
  for (const auto& [tag, got] : moved_) {
    send((tag + 1) % n_, got);
    passes += got;
  }
  return passes;
}

std::size_t ring_driver::drain(std::size_t i) {
  const int fd = ch_->watched(i);
  if (ch_->kind() == fd_kind::eventfd) {
    std::uint64_t v = 0;
    const auto r = sys::call("read(eventfd)", [&] { return ::read(fd, &v, sizeof v); }, {EAGAIN});
    if (r < 0) return 0;
    if (v > t_)
      throw probe_failure(channel_text(i) + " holds " + std::to_string(v) + " tokens, more than the ring's " +
                          std::to_string(t_));
    return static_cast<std::size_t>(v);
  }
  const auto r = sys::call("read(token)", [&] { return ::read(fd, buf_.data(), buf_.size()); }, {EAGAIN});
  if (r < 0) return 0;
  if (static_cast<std::size_t>(r) > t_)
    throw probe_failure(channel_text(i) + " holds more tokens than the ring's " + std::to_string(t_));
  return static_cast<std::size_t>(r);
}

void ring_driver::send(std::size_t i, std::size_t count) {
  if (tokens_in_[i] == 0) {
    ++occupied_;
    occupied_since_[i] = waits_;
  }
  tokens_in_[i] += count;
  ++writes_since_[i];
  const int fd = ch_->trigger_fd(i);
  if (ch_->kind() == fd_kind::eventfd) {
    const std::uint64_t v = count;
    sys::call("write(eventfd)", [&] { return ::write(fd, &v, sizeof v); });
    return;
  }
  std::fill_n(buf_.begin(), count, 't');
  if (sys::call("write(token)", [&] { return ::write(fd, buf_.data(), count); }) != static_cast<ssize_t>(count))
    throw probe_failure("a short write of " + std::to_string(count) + " tokens to " + channel_text(i));
}

void ring_driver::scatter(std::mt19937_64& rng) {
  if (!level_) throw std::logic_error("token_ring: scatter needs a level-triggered mechanism");
  moving_ = true;
  std::size_t held = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    if (tokens_in_[i] == 0) continue;
    if (drain(i) != tokens_in_[i]) throw probe_failure(channel_text(i) + " lost its token before a scatter");
    held += tokens_in_[i];
    tokens_in_[i] = 0;
  }
  occupied_ = 0;
  if (held != t_) throw probe_failure("the ring held " + std::to_string(held) + " tokens, not " + std::to_string(t_));
  draw_.resize(n_);
  for (std::size_t i = 0; i < n_; ++i) draw_[i] = static_cast<std::uint32_t>(i);
  for (std::size_t j = 0; j < t_; ++j) {  // partial Fisher-Yates: t distinct channels
    std::swap(draw_[j], draw_[j + static_cast<std::size_t>(rng() % (n_ - j))]);
    send(draw_[j], 1);
  }
  moving_ = false;
}

void ring_driver::check_for_stuck_tokens() {
  for (std::size_t i = 0; i < n_; ++i)
    if (tokens_in_[i] > 0 && occupied_since_[i] < last_stuck_check_)
      throw probe_failure(channel_text(i) + " has held a token for " + std::to_string(waits_ - occupied_since_[i]) +
                          " waits without being reported ready");
  last_stuck_check_ = waits_;
}

namespace {

/// The ring kept between the points of one group (shared_setup.hpp).
shared_setup& kept_rings() {
  static shared_setup kept;
  return kept;
}

/// setup_of: one ring per fd kind and n, handed empty from point to point, for every
/// mechanism (a waiter leaves the descriptors as it found them: waiter.hpp) and every t
/// and blocking. Building and closing a ring of 9,900 pipes takes
/// about 0.1 s here; the quick profile visits 87 such points per round, in 12 groups.
std::string ring_name(const datasets::key& key) {
  return "ring of " + key.fd_kind + " n=" + std::to_string(key.n_fds.value_or(0));
}

/// The kept ring a point shares (nullptr: it builds its own), checked against the limit
/// before anything is built.
std::shared_ptr<channel_set> shared_ring(const datasets::key& key, const selection& sel) {
  const std::string name = ring_name(key);
  if (name.empty()) return nullptr;
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(key.n_fds.value_or(0), 0));
  const fd_kind kind = fd_kind_of(key);
  if (n == 0 || (kind != fd_kind::pipe && kind != fd_kind::eventfd)) return nullptr;  // the driver says why
  require_fds(channel_set::fds_needed(kind, n, n) + 4, sel);
  return kept_rings().get(name, [&] { return std::make_unique<channel_set>(kind, n); });
}

class ring_instance final : public probe_instance {
 public:
  ring_instance(const datasets::key& key, const selection& sel)
      : ring_(key, sel, shared_ring(key, sel)),
        scatter_(key.blocking.value_or(0) == 1 && ring_.level_triggered()),
        rng_(sel.seed) {}

  std::uint64_t run(std::size_t ops) override {
    if (scatter_) ring_.scatter(rng_);
    std::size_t done = 0;
    const std::uint64_t ns = time_unpreempted(
        [&] {
          const std::uint64_t t0 = clock_ns();
          done = ring_.advance(ops);
          return clock_ns() - t0;
        },
        [] {});
    if (done == ops) return ns;
    return static_cast<std::uint64_t>(static_cast<double>(ns) * static_cast<double>(ops) / static_cast<double>(done));
  }

  void annotate(datasets::key& k) const override { k.max_fd = ring_.max_watched_fd(); }

 private:
  ring_driver ring_;
  bool scatter_;
  std::mt19937_64 rng_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<ring_instance>(key, sel);
}

}  // namespace

probe_def token_ring() {
  return {datasets::name(datasets::scenario::token_ring),
          "one token pass through a ring of n pipes/eventfds with t tokens (LSE pipetest)",
          token_ring_points,
          make_instance,
          [] { kept_rings().release(); },
          ring_name};
}

}  // namespace pollscale::calibrate::probes
