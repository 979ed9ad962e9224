#include "model/line_crossings.hpp"

#include <cmath>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {

namespace {

// The lines one pass of a ring writes from both sides (the header's count).
constexpr int ring_pass_lines = 6;

}  // namespace

double crossing_charge::added_s(std::int64_t cpus) const {
  if (cpus <= 1) return 0;
  const double c = static_cast<double>(cpus);
  return static_cast<double>(lines) * (c - 1) / c * line_s;
}

double crossing_charge::crossed(double rate, std::int64_t cpus, double to_per_s) const {
  if (!(rate > 0) || std::isinf(rate)) return rate;  // 0, NaN or an open end: nothing to add to
  const double c = static_cast<double>(cpus);
  return c / (c / rate + added_s(cpus) * to_per_s);
}

int shared_lines(const datasets::key& k) {
  const bool ring = k.scenario == datasets::scenario::shared_epoll && !k.n_active;  // a token for every thread
  return ring ? ring_pass_lines : 0;
}

std::optional<crossing_charge> crossings_of(const datasets::key& k, const std::optional<line_estimate>& line,
                                            const std::optional<datasets::placement_states>& placement,
                                            std::string& note) {
  const int lines = shared_lines(k);
  if (lines == 0) return std::nullopt;
  if (!line) {
    note = "no cache line measured between two CPUs (scenario cache_line, pinning 0+1)";
    return std::nullopt;
  }
  if (!datasets::is_rate_unit(k.unit)) {
    note = "a rate in " + k.unit + ", not one that converts to 1/s";
    return std::nullopt;
  }
  const double usual_ns = placement ? placement->usual_line_ns() : NAN;
  if (std::isfinite(usual_ns) && usual_ns > 0)
    return crossing_charge{
        lines, usual_ns * 1e-9,
        std::string("the placement sentinel, ") + (placement->far_usual() ? "far" : "near") + " state"};
  return crossing_charge{lines, line->s, "the cache_line probe"};
}

}  // namespace pollscale::model
