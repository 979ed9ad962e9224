#include "sim/core/random.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace pollscale::sim {

std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream) {
  auto splitmix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  return splitmix(splitmix(base) ^ (stream * 0xd1b54a32d192ed03ULL + 1));
}

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0; }

// The longest duration a distribution may describe, s (about 32 years). Beyond it a
// sample added to the clock (an exponential reaches 37 x its mean) could overflow to inf;
// no workload waits that long.
constexpr double longest_s = 1e9;
// The largest squared coefficient of variation: a hyperexponential's long phase has a
// mean of about scv x mean, which must stay finite too.
constexpr double largest_scv = 1e6;

bool duration(double v) { return finite_non_negative(v) && v <= longest_s; }

}  // namespace

distribution distribution::constant(double value) {
  require(duration(value), "constant duration must be in 0..1e9 s");
  return {kind::constant, value, 0, 1};
}

distribution distribution::exponential(double mean) {
  require(duration(mean) && mean > 0, "exponential mean must be in (0, 1e9] s");
  return {kind::exponential, mean, 0, 1};
}

distribution distribution::uniform(double lo, double hi) {
  require(finite_non_negative(lo) && duration(hi) && lo <= hi, "uniform bounds must satisfy 0 <= lo <= hi <= 1e9 s");
  return {kind::uniform, lo, hi, 1};
}

distribution distribution::erlang(int phases, double mean) {
  require(phases >= 1 && phases <= 1000, "erlang phases must be in 1..1000");
  require(duration(mean) && mean > 0, "erlang mean must be in (0, 1e9] s");
  return {kind::erlang, mean, 0, phases};
}

distribution distribution::hyperexponential(double mean, double scv) {
  require(duration(mean) && mean > 0, "hyperexponential mean must be in (0, 1e9] s");
  require(std::isfinite(scv) && scv >= 1 && scv <= largest_scv, "hyperexponential scv must be in 1..1e6");
  // Balanced means: p1/mu1 = p2/mu2 (Whitt's standard two-moment fit).
  const double p = 0.5 * (1 + std::sqrt((scv - 1) / (scv + 1)));
  distribution d{kind::hyperexponential, mean / (2 * p), mean / (2 * (1 - p)), 1};
  d.p_ = p;
  return d;
}

double distribution::sample(rng& g) const {
  switch (kind_) {
    case kind::constant: return a_;
    case kind::exponential: return sim::exponential(g, a_);
    case kind::uniform: return a_ + (b_ - a_) * uniform01(g);
    case kind::erlang: {
      double sum = 0;
      for (int i = 0; i < phases_; ++i) sum += sim::exponential(g, a_ / phases_);
      return sum;
    }
    case kind::hyperexponential: return uniform01(g) < p_ ? sim::exponential(g, a_) : sim::exponential(g, b_);
  }
  return 0;
}

double distribution::mean() const {
  switch (kind_) {
    case kind::constant:
    case kind::exponential:
    case kind::erlang: return a_;
    case kind::uniform: return 0.5 * (a_ + b_);
    case kind::hyperexponential: return p_ * a_ + (1 - p_) * b_;
  }
  return 0;
}

double distribution::second_moment() const {
  switch (kind_) {
    case kind::constant: return a_ * a_;
    case kind::exponential: return 2 * a_ * a_;
    case kind::uniform: return (a_ * a_ + a_ * b_ + b_ * b_) / 3;
    case kind::erlang: return a_ * a_ * (1 + 1.0 / phases_);
    case kind::hyperexponential: return 2 * (p_ * a_ * a_ + (1 - p_) * b_ * b_);
  }
  return 0;
}

double distribution::scv() const {
  const double m = mean();
  return m > 0 ? second_moment() / (m * m) - 1 : 0;
}

namespace {

double parse_number(const std::string& field, const std::string& whole) {
  double v = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (ec != std::errc{} || ptr != end || field.empty())
    throw std::invalid_argument("distribution '" + whole + "': '" + field + "' is not a number");
  return v;
}

}  // namespace

distribution distribution::parse(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  auto arity = [&](std::size_t n) {
    if (parts.size() != n + 1)
      throw std::invalid_argument("distribution '" + text + "': '" + parts[0] + "' takes " + std::to_string(n) +
                                  " parameter(s)");
  };
  auto num = [&](std::size_t i) { return parse_number(parts[i], text); };
  try {
    if (parts.empty()) throw std::invalid_argument("empty distribution");
    if (parts[0] == "const") return arity(1), constant(num(1));
    if (parts[0] == "exp") return arity(1), exponential(num(1));
    if (parts[0] == "uniform") return arity(2), uniform(num(1), num(2));
    if (parts[0] == "hyperexp") return arity(2), hyperexponential(num(1), num(2));
    if (parts[0] == "erlang") {
      arity(2);
      const double k = num(1);
      if (k != std::floor(k) || k < 1 || k > 1000)
        throw std::invalid_argument("erlang phases must be an integer in 1..1000");
      return erlang(static_cast<int>(k), num(2));
    }
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.rfind("distribution '", 0) == 0) throw;
    throw std::invalid_argument("distribution '" + text + "': " + what);
  }
  throw std::invalid_argument("distribution '" + text +
                              "' is not const:V, exp:MEAN, uniform:LO:HI, erlang:K:MEAN or "
                              "hyperexp:MEAN:SCV");
}

std::string distribution::describe() const {
  std::ostringstream s;
  s.precision(17);
  switch (kind_) {
    case kind::constant: s << "const:" << a_; break;
    case kind::exponential: s << "exp:" << a_; break;
    case kind::uniform: s << "uniform:" << a_ << ":" << b_; break;
    case kind::erlang: s << "erlang:" << phases_ << ":" << a_; break;
    case kind::hyperexponential: s << "hyperexp:" << mean() << ":" << scv(); break;
  }
  return s.str();
}

}  // namespace pollscale::sim
