#include "calibrate/probe.hpp"

#include <algorithm>
#include <cmath>

namespace pollscale::calibrate {

std::vector<std::int64_t> log_grid(std::int64_t lo, std::int64_t hi, int count) {
  std::vector<std::int64_t> g;
  if (lo < 1 || hi < lo || count < 1) return g;
  if (count == 1) return {hi};
  const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi));
  for (int i = 0; i < count; ++i) {
    const double x = std::exp(a + (b - a) * i / (count - 1));
    g.push_back(std::clamp(static_cast<std::int64_t>(std::llround(x)), lo, hi));
  }
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

flavour flavour_of(const datasets::key& k) {
  const auto m = parse_mechanism(k.mechanism);
  if (!m) throw std::invalid_argument("unknown mechanism '" + k.mechanism + "'");
  const auto vs = variants_of(*m);
  if (std::find(vs.begin(), vs.end(), k.variant) == vs.end())
    throw std::invalid_argument("mechanism " + k.mechanism + " has no variant '" + k.variant + "'");
  return {*m, k.variant};
}

fd_kind fd_kind_of(const datasets::key& k) {
  const auto f = parse_fd_kind(k.fd_kind);
  if (!f) throw std::invalid_argument("unknown fd kind '" + k.fd_kind + "'");
  return *f;
}

}  // namespace pollscale::calibrate
