// memory_latency — nanoseconds per dependent load versus working-set size.
//
// The working set is n 64-byte lines (64 x n bytes) linked into ONE random cycle (Sattolo's
// algorithm, seeded): each line holds the address of the next. One operation is one load
// whose address is the value of the previous load (p = *p), so loads cannot overlap and a
// random order defeats the hardware prefetchers: the time per load is the latency of the
// level of the memory hierarchy the working set fits in (L1, L2, L3, DRAM).
// Timed: the chase only (an unrolled loop; the loop counter's work overlaps the loads).
// Not timed: allocation, building the cycle, and two untimed laps round it (at most 2^22
// loads) so that the caches hold what they will hold in steady state. For a working set of
// 32 MiB or more the laps go in chunks of 2^18 loads and stop once two chunks in a row cost
// the same within 3%: writing the lines while building the cycle has already left the
// caches holding as much of the set as they can (for random loads any S of its lines serve
// as well as any other S), so the first chunks already run at the steady state, and the
// laps cost up to 1.2 s a visit at DRAM latency on a 2-vCPU guest (0.27 µs a load at
// 256 MiB) for a sample that takes milliseconds. A batch during
// which the thread was preempted (getrusage's involuntary switches moved) is chased again,
// up to 8 times, after a re-warming lap for working sets up to 8 MiB: on a shared machine
// another task on this CPU both steals time and evicts the working set; neither is latency.
//
// The buffer asks for transparent huge pages (madvise MADV_HUGEPAGE; 2 MiB alignment), as
// the kernel's own structures live in its huge-page direct map: what the model prices is
// the cache miss, not a page walk. Where huge pages are refused the figures above the
// TLB's reach include page walks: the variant column says which (/proc/self/smaps'
// AnonHugePages for the buffer): "thp" = all on huge pages, "4k" = not.
//
// Key columns (docs/datasets.md): scenario memory_latency, mechanism and fd_kind empty,
// variant thp or 4k (above), metric latency, unit ns, n_fds = lines in the working set
// (64 x n_fds bytes), threads 1, pinning = the session's CPU. The model uses these rows
// to price the cache term of the per-fd cost.

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/memory_latency.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::size_t line_bytes = 64;
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t warm_loads_max = std::size_t{1} << 22;
constexpr std::size_t warm_chunk = std::size_t{1} << 18;        // 16 MiB of lines; ~70 ms at DRAM latency
constexpr double warm_agreement = 0.03;                         // two chunks this close: steady
constexpr std::size_t rewarm_lines_max = std::size_t{1} << 17;  // 8 MiB: a lap costs <= ~10 ms
constexpr std::int64_t min_lines = 2;
constexpr std::int64_t max_lines = std::int64_t{1} << 24;  // 1 GiB: far beyond any cache here

struct alignas(line_bytes) line {
  const line* next;
  char pad[line_bytes - sizeof(const line*)];
};
static_assert(sizeof(line) == line_bytes);

/// An anonymous mapping of whole lines starting on a 2 MiB boundary (huge pages need one),
/// released in the destructor.
class line_buffer {
 public:
  explicit line_buffer(std::size_t lines) : used_(round_up(lines * line_bytes, huge_page)), mapped_(used_ + huge_page) {
    map_ = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map_ == MAP_FAILED) sys::throw_errno(errno, "mmap(" + std::to_string(mapped_) + " bytes for memory_latency)");
    const auto start = round_up(reinterpret_cast<std::uintptr_t>(map_), huge_page);
    lines_ = reinterpret_cast<line*>(start);
    // A hint: where huge pages are refused it changes nothing but the page size.
    ::madvise(lines_, used_, MADV_HUGEPAGE);
  }
  ~line_buffer() { ::munmap(map_, mapped_); }
  line_buffer(const line_buffer&) = delete;
  line_buffer& operator=(const line_buffer&) = delete;

  line* data() const { return lines_; }

  /// True when every 2 MiB of the working set is backed by a huge page (read from
  /// /proc/self/smaps once the lines have been written).
  bool on_huge_pages() const {
    std::ifstream smaps("/proc/self/smaps");
    std::ostringstream head;
    // madvise split the mapping: the working set is its own block, starting at lines_.
    head << std::hex << reinterpret_cast<std::uintptr_t>(lines_) << "-";
    bool in_block = false;
    for (std::string l; std::getline(smaps, l);) {
      if (!in_block) {
        in_block = l.rfind(head.str(), 0) == 0;
      } else if (l.rfind("AnonHugePages:", 0) == 0) {
        return std::stoull(l.substr(14)) * 1024 >= used_;
      }
    }
    return false;
  }

 private:
  template <class T>
  static T round_up(T v, T to) {
    return (v + to - 1) / to * to;
  }
  std::size_t used_, mapped_;
  void* map_ = nullptr;
  line* lines_ = nullptr;
};

class chase_instance final : public probe_instance {
 public:
  chase_instance(const datasets::key& key, const selection& sel) : n_(checked_lines(key)), buf_(n_) {
    link_random_cycle(sel.seed);
    huge_ = buf_.on_huge_pages();
    p_ = buf_.data();
    warm();
  }

  /// variant: "thp" when the working set sits on huge pages, "4k" when it does not.
  void annotate(datasets::key& k) const override { k.variant = huge_ ? "thp" : "4k"; }

  /// A batch during which this thread was preempted measured someone else's time and a
  /// cache that task disturbed: it is chased again, after a re-warming lap when the
  /// working set is small enough to be worth one.
  std::uint64_t run(std::size_t ops) override {
    return time_unpreempted(
        [&] {
          const std::uint64_t t0 = clock_ns();
          chase(ops);
          return clock_ns() - t0;
        },
        [&] {
          if (n_ <= rewarm_lines_max) chase(n_);
        });
  }

 private:
  static std::size_t checked_lines(const datasets::key& key) {
    if (!key.n_fds)
      throw std::invalid_argument("memory_latency point " + datasets::describe(key) + ": no n_fds (lines)");
    const std::int64_t n = *key.n_fds;
    // A size outside the probe's range (a --n meant for the descriptor probes) cannot run
    // here: skipped with the reason, before anything is allocated.
    if (n < min_lines || n > max_lines)
      throw probe_skipped("n = " + std::to_string(n) + " lines is outside the memory-latency probe's " +
                          std::to_string(min_lines) + ".." + std::to_string(max_lines) + " (128 B to 1 GiB)");
    return static_cast<std::size_t>(n);
  }

  void link_random_cycle(std::uint64_t seed) {
    const auto next = random_cycle(n_, seed);
    line* l = buf_.data();
    for (std::size_t i = 0; i < n_; ++i) l[i].next = &l[next[i]];
  }

  /// The untimed laps (the essay): two, at most warm_loads_max loads; from four chunks of
  /// loads on, in chunks that stop once two in a row agree.
  void warm() {
    const std::size_t laps = std::min(warm_loads_max, 2 * n_);
    if (laps < 4 * warm_chunk) {
      chase(laps);
      return;
    }
    double before_ns = 0;
    for (std::size_t done = 0; done < laps; done += warm_chunk) {
      const std::uint64_t t0 = clock_ns();
      chase(warm_chunk);
      const auto ns = static_cast<double>(clock_ns() - t0);
      if (before_ns > 0 && std::abs(ns / before_ns - 1) <= warm_agreement) return;
      before_ns = ns;
    }
  }

  /// `loads` dependent loads from where the last chase stopped.
  void chase(std::size_t loads) {
    const line* p = p_;
    std::size_t i = 0;
    for (; i + 8 <= loads; i += 8) {
      p = p->next, p = p->next, p = p->next, p = p->next;
      p = p->next, p = p->next, p = p->next, p = p->next;
    }
    for (; i < loads; ++i) p = p->next;
    p_ = p;  // a use of the chain's end: the loads cannot be optimised away
  }

  std::size_t n_;
  line_buffer buf_;
  bool huge_ = false;
  const line* p_ = nullptr;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<chase_instance>(key, sel);
}

}  // namespace

std::vector<std::uint32_t> random_cycle(std::size_t n, std::uint64_t seed) {
  // Sattolo's algorithm over the visiting order, then each line points at its successor.
  // rng() % k (not a distribution) keeps the cycle identical across standard libraries.
  std::vector<std::uint32_t> order(n), next(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::mt19937_64 rng(seed);
  for (std::size_t i = n - 1; i > 0 && n > 1; --i) std::swap(order[i], order[static_cast<std::size_t>(rng() % i)]);
  for (std::size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  return next;
}

std::vector<datasets::key> memory_latency_points(const selection& sel, std::span<const flavour> mechs) {
  (void)mechs;  // a property of the machine, measured whatever mechanisms were chosen
  // 25 sizes (a step of 1.5x) in both profiles: the model places each cache's capacity at
  // the probe's cliff, which a coarser grid (2.9x steps) can only bracket. About 6 s quick.
  constexpr std::int64_t lo = (16 << 10) / line_bytes, hi = (256 << 20) / line_bytes;
  const auto lines = sel.n_override.empty() ? log_grid(lo, hi, 25) : sel.n_override;
  std::vector<datasets::key> out;
  for (auto n : lines) {
    datasets::key k;
    k.scenario = datasets::name(datasets::scenario::memory_latency);
    k.n_fds = n;
    k.threads = 1;
    k.cpus = 1;
    k.pinning = sel.cpus.empty() ? "0" : std::to_string(sel.cpus[0]);
    k.metric = datasets::name(datasets::metric::latency);
    k.unit = "ns";
    out.push_back(std::move(k));
  }
  return out;
}

probe_def memory_latency() {
  return {datasets::name(datasets::scenario::memory_latency),
          "one dependent load in a random cycle of n 64-byte lines (cache and DRAM latency)", memory_latency_points,
          make_instance};
}

}  // namespace pollscale::calibrate::probes
