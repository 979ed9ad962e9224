#include "datasets/pinning.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

namespace pollscale::datasets {
namespace {

int checked_cpu(int cpu) {
  if (cpu < 0 || cpu > pinning::max_cpu)
    throw std::invalid_argument("CPU " + std::to_string(cpu) + " is not in 0.." + std::to_string(pinning::max_cpu));
  return cpu;
}

}  // namespace

pinning pinning::on(int cpu) { return pinning({checked_cpu(cpu)}); }

pinning pinning::pair(int first, int second) { return pinning({checked_cpu(first), checked_cpu(second)}); }

pinning pinning::parse(std::string_view text) {
  std::vector<int> cpus;
  if (text.empty()) return pinning();
  const auto bad = [&] {
    return std::invalid_argument("pinning '" + std::string(text) +
                                 "' is not CPU numbers joined by '+' (e.g. 0 or 0+1)");
  };
  for (std::size_t start = 0;;) {
    const std::size_t plus = std::min(text.find('+', start), text.size());
    const std::string_view part = text.substr(start, plus - start);
    int cpu = -1;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), cpu);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || cpu < 0 || cpu > max_cpu) throw bad();
    cpus.push_back(cpu);
    if (plus == text.size()) break;
    start = plus + 1;
  }
  return pinning(std::move(cpus));
}

bool pinning::same_cpu() const {
  return !cpus_.empty() && std::all_of(cpus_.begin(), cpus_.end(), [&](int c) { return c == cpus_.front(); });
}

std::size_t pinning::distinct_cpus() const { return std::set<int>(cpus_.begin(), cpus_.end()).size(); }

std::string pinning::text() const {
  std::string s;
  for (std::size_t i = 0; i < cpus_.size(); ++i) s += (i ? "+" : "") + std::to_string(cpus_[i]);
  return s;
}

}  // namespace pollscale::datasets
