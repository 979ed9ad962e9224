// cold_scan — what one descriptor of a scan costs once its kernel state has left L2.
//
// A timeout-0 poll over n pipes walks, per descriptor, the fd table slot and the user's
// pollfd, the struct file and the pipe (or eventfd) behind it. While n x ~144 B fits in L2
// those lines are hits; past it each descriptor pays what the core cannot hide of its chain
// of misses. How much it hides differs tenfold between the hosts of the corpus (docs/model.md
// §9, "The scans past the caches"), and a calibration whose scans stop at 1000 descriptors
// (the model's extrapolation protocol, or a user's small machine) never sees it. This probe
// measures it at n = 500 and 1000, where nothing else is past any cache.
//
// One operation is one poll(2), timeout 0, over the watched ends of n channels of one kind
// (none readable; the call must report none), timed alone between two clock reads:
//   variant ""   (warm) — the calls follow each other: the descriptors' state stays cached;
//   variant cold — before each call, untimed, the probe reads E bytes of a buffer of its own
//                  (one load per 64-byte line), E = 4 x the largest L2 the host lists (2 MiB
//                  at least, 64 MiB at most; 4 MiB when none is listed: cold_evict_bytes).
//                  The caches then hold the buffer, and the descriptors' lines lie where a
//                  working set of E pushes them: past L2, in the last level where it holds E.
// The per-descriptor slope between the two n cancels every fixed cost (entry, the clock
// reads, the pollfd copy's set-up); the cold slope minus the warm one is the walk's own
// exposed cost per descriptor past L2, in ns, which the model takes as the expected height
// of a streaming scan's step past L2 (model/working_set.hpp, working_set_prior) in place of
// a typical streaming rate. Measured over pipes and eventfds, the kinds whose scans stream;
// a socket's scattered state is priced from the memory-latency probe instead.
//
// E is recorded in context.json ("cold_scan": {"evict_bytes", "rule"}). A run on the host
// of 2026-12-06 (bench/cold_scan, the same measurement outside calibrate) read the cold
// excess at E = 4-16 MiB at 62-104% of what the same scan paid per descriptor far past the
// caches (9,800 pipes); past the guest's share of the last level (32-128 MiB there) the
// buffer pushes the state to DRAM and the excess is that of a much larger scan, which is
// why E stays near L2. A call the thread was preempted in is timed again, after a fresh
// eviction (the retry would otherwise find the state warm).
//
// Key columns: scenario cold_scan, mechanism poll, variant "" or cold, fd_kind pipe or
// eventfd, n_fds = n, n_active 0, blocking 0, threads 1, cpus 1, pinning the session's CPU,
// metric time_per_call, unit ns, max_fd the highest watched descriptor. A property of the
// machine, like memory_latency: measured whatever --mechanisms say, never fitted as a cell.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/context.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr datasets::scenario scenario = datasets::scenario::cold_scan;
constexpr std::size_t line_bytes = 64;
constexpr std::uint64_t mib = std::uint64_t{1} << 20;
constexpr std::int64_t default_n[] = {500, 1000};  // both below L2 at ~144 B a descriptor
constexpr fd_kind kinds[] = {fd_kind::pipe, fd_kind::eventfd};

/// A buffer whose reading pushes everything else out of the caches up to its size.
class eviction_buffer {
 public:
  explicit eviction_buffer(std::uint64_t bytes) : words_(bytes / sizeof(std::uint64_t), 1) {}
  /// One load per 64-byte line of the whole buffer (a stream the prefetchers follow: the
  /// fastest way to fill the caches with it).
  void read() {
    std::uint64_t sum = 0;
    constexpr std::size_t stride = line_bytes / sizeof(std::uint64_t);
    for (std::size_t i = 0; i < words_.size(); i += stride) sum += words_[i];
    sink_ = sum;
  }

 private:
  std::vector<std::uint64_t> words_;
  volatile std::uint64_t sink_ = 0;  // a use of the sum: the loads cannot be optimised away
};

class cold_scan_instance final : public probe_instance {
 public:
  cold_scan_instance(const datasets::key& key, const selection& sel)
      : n_(descriptors(key, sel)),
        ch_(fd_kind_of(key), n_, parked()),
        w_(make_waiter({mechanism::poll, ""}, n_)),  // "cold" is this probe's variant, not poll's
        evict_(key.variant == datasets::name(datasets::variant::cold)
                   ? std::make_unique<eviction_buffer>(cold_evict_bytes(host_caches()))
                   : nullptr) {
    for (std::size_t i = 0; i < n_; ++i) w_->add(ch_.watched(i), static_cast<std::uint32_t>(i));
    scratch_.reserve(n_);
    call();  // proves the answer (none ready) before anything is timed
  }

  /// Each call timed alone; a call the thread was preempted in again, after a fresh eviction.
  std::uint64_t run(std::size_t ops) override {
    std::uint64_t ns = 0;
    for (std::size_t i = 0; i < ops; ++i)
      ns += time_unpreempted(
          [&] {
            if (evict_) evict_->read();
            const std::uint64_t t0 = clock_ns();
            call();
            return clock_ns() - t0;
          },
          [] {});
    return ns;
  }
  void annotate(datasets::key& k) const override { k.max_fd = ch_.watched(n_ - 1); }

 private:
  static std::size_t descriptors(const datasets::key& key, const selection& sel) {
    const auto n = static_cast<std::size_t>(std::max<std::int64_t>(key.n_fds.value_or(0), 0));
    if (n == 0) throw std::invalid_argument("cold_scan point " + datasets::describe(key) + ": no n_fds");
    require_fds(channel_set::fds_needed(fd_kind_of(key), n, 0) + 4, sel);
    return n;
  }
  static channel_options parked() {
    channel_options o;
    o.keep_trigger = [](std::size_t) { return false; };  // as find_active's: only the watched ends here
    return o;
  }
  void call() {
    if (w_->wait(scratch_, 0) != 0)
      throw probe_failure("poll reported " + std::to_string(scratch_.size()) + " ready of " + std::to_string(n_) +
                          " descriptors nobody wrote to");
  }

  std::size_t n_;
  channel_set ch_;
  std::unique_ptr<waiter> w_;
  std::unique_ptr<eviction_buffer> evict_;
  std::vector<std::uint32_t> scratch_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<cold_scan_instance>(key, sel);
}

std::vector<datasets::key> cold_scan_points(const selection& sel, std::span<const flavour> mechs) {
  (void)mechs;  // a property of the machine, measured whatever mechanisms were chosen
  std::vector<std::int64_t> ns(std::begin(default_n), std::end(default_n));
  if (!sel.n_override.empty()) ns = sel.n_override;
  const std::string cpu0 = datasets::pinning::on(sel.cpus.empty() ? 0 : sel.cpus[0]).text();
  std::vector<datasets::key> out;
  for (fd_kind kind : kinds)
    for (std::int64_t n : ns)
      for (const char* variant : {"", "cold"}) {
        datasets::key k = base_key(scenario, {mechanism::poll, variant}, kind, datasets::metric::time_per_call, "ns");
        k.n_fds = n;
        k.n_active = 0;
        k.blocking = 0;
        k.threads = 1;
        k.cpus = 1;
        k.pinning = cpu0;
        out.push_back(std::move(k));
      }
  return out;
}

nlohmann::json context_facts(const selection& sel) {
  (void)sel;
  return {{"evict_bytes", cold_evict_bytes(host_caches())},
          {"rule", "4 x the largest L2 listed in caches, from 2 MiB to 64 MiB (4 MiB when none is listed)"}};
}

}  // namespace

std::uint64_t cold_evict_bytes(const std::vector<datasets::cache_facts>& caches) {
  std::uint64_t l2 = 0;
  for (const auto& c : caches)
    if (c.level == 2) l2 = std::max(l2, c.size_bytes);
  if (l2 == 0) return 4 * mib;
  return std::clamp<std::uint64_t>(4 * l2, 2 * mib, 64 * mib);
}

probe_def cold_scan() {
  probe_def p{datasets::name(scenario),
              "one timeout-0 poll over n pipes or eventfds, warm or after a buffer 4x L2 was read (cost past L2)",
              cold_scan_points, make_instance};
  p.context_facts = context_facts;
  return p;
}

}  // namespace pollscale::calibrate::probes
