// The grid of fd_range points per profile. Grid A is Gooch's four tests (hi = 1023); grid
// B holds n_fds at 100 and grows hi in whole 64-bit words (hi = 64w-1) up to what the
// descriptor limit leaves. quick: pipes, grid A for select/pselect/poll/ppoll and grid B
// for select and poll at 9 word counts (~30 points, ~10 s); full: pipes and eventfds,
// every mechanism, 16 word counts. --n replaces both with n_fds = n at hi = max(1023, n+23).

#include <algorithm>
#include <set>

#include "calibrate/probes/probes.hpp"

namespace pollscale::calibrate::probes {
namespace {

constexpr std::int64_t gooch_hi = 1023;
constexpr std::int64_t gooch_lo[] = {24, 524, 824, 924};
constexpr std::int64_t active_top = 10;
constexpr std::int64_t fixed_count = 100;

struct range_grid {
  const selection& sel;
  std::span<const flavour> mechs;
  std::set<datasets::key> out;  // grid A's (100, 1023) is also a grid B point: kept once

  bool wanted(mechanism m) const {
    return std::any_of(mechs.begin(), mechs.end(), [&](const flavour& f) { return f.mech == m; });
  }

  void add(mechanism m, fd_kind kind, std::int64_t n, std::int64_t hi) {
    if (!wanted(m) || n < 1 || hi < n - 1) return;
    datasets::key k = base_key(datasets::scenario::fd_range, {m, ""}, kind, datasets::metric::time_per_call, "ns");
    k.n_fds = n;
    k.max_fd = hi;
    k.n_active = std::min(active_top, n);
    k.active_pos = "top";
    k.blocking = 0;
    k.threads = 1;
    k.cpus = 1;
    k.pinning = sel.cpus.empty() ? "0" : std::to_string(sel.cpus[0]);
    out.insert(std::move(k));
  }
};

/// hi = 64w - 1 for the word counts of grid B, up to the largest the limit allows.
std::vector<std::int64_t> grid_b_highs(const selection& sel) {
  const auto budget = static_cast<std::int64_t>(sel.max_fds) - 2 * fixed_count - 8;
  const std::int64_t w_max = std::max<std::int64_t>(budget + 1, 0) / 64;
  std::vector<std::int64_t> words;
  if (sel.profile == profile_kind::full) {
    words = log_grid(2, w_max, 16);
  } else {
    for (std::int64_t w = 2; w <= std::min<std::int64_t>(256, w_max); w *= 2) words.push_back(w);
    if (w_max >= 2) words.push_back(w_max);
  }
  std::vector<std::int64_t> highs;
  for (auto w : words) highs.push_back(64 * w - 1);
  std::sort(highs.begin(), highs.end());
  highs.erase(std::unique(highs.begin(), highs.end()), highs.end());
  return highs;
}

}  // namespace

std::vector<datasets::key> fd_range_points(const selection& sel, std::span<const flavour> mechs) {
  range_grid g{sel, mechs, {}};
  const bool full = sel.profile == profile_kind::full;
  const std::vector<fd_kind> kinds = full ? std::vector{fd_kind::pipe, fd_kind::eventfd} : std::vector{fd_kind::pipe};
  const mechanism every[] = {mechanism::select, mechanism::pselect, mechanism::poll, mechanism::ppoll};
  const std::vector<mechanism> grid_b = full ? std::vector<mechanism>(std::begin(every), std::end(every))
                                             : std::vector{mechanism::select, mechanism::poll};
  for (fd_kind kind : kinds) {
    if (!sel.n_override.empty()) {
      for (auto n : sel.n_override)
        for (mechanism m : every) g.add(m, kind, n, std::max(gooch_hi, n + 23));
      continue;
    }
    for (auto lo : gooch_lo)
      for (mechanism m : every) g.add(m, kind, gooch_hi - lo + 1, gooch_hi);
    for (auto hi : grid_b_highs(sel))
      for (mechanism m : grid_b) g.add(m, kind, fixed_count, hi);
  }
  return {g.out.begin(), g.out.end()};
}

}  // namespace pollscale::calibrate::probes
