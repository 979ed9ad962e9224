#include "calibrate/mechanism.hpp"

#include <array>

#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {
namespace {

// The vocabulary's value for a measured mechanism (datasets/vocabulary.hpp spells it).
datasets::mechanism vocabulary_of(mechanism m) {
  switch (m) {
    case mechanism::select: return datasets::mechanism::select;
    case mechanism::pselect: return datasets::mechanism::pselect;
    case mechanism::poll: return datasets::mechanism::poll;
    case mechanism::ppoll: return datasets::mechanism::ppoll;
    case mechanism::epoll: return datasets::mechanism::epoll;
    case mechanism::rtsig: return datasets::mechanism::rtsig;
    case mechanism::io_uring: return datasets::mechanism::io_uring;
  }
  return datasets::mechanism::kqueue;  // unreachable: every enumerator is listed
}

}  // namespace

std::string_view name_of(mechanism m) { return datasets::name(vocabulary_of(m)); }

std::optional<mechanism> parse_mechanism(std::string_view name) {
  for (mechanism m : all_mechanisms)
    if (name_of(m) == name) return m;
  return std::nullopt;
}

std::span<const std::string_view> variants_of(mechanism m) {
  using datasets::variant;
  static const std::array<std::string_view, 1> plain = {""};
  static const std::array<std::string_view, 3> epoll_variants = {
      datasets::name(variant::lt), datasets::name(variant::et), datasets::name(variant::oneshot)};
  static const std::array<std::string_view, 2> uring_variants = {datasets::name(variant::oneshot),
                                                                 datasets::name(variant::multishot)};
  if (m == mechanism::epoll) return epoll_variants;
  if (m == mechanism::io_uring) return uring_variants;
  return plain;
}

std::string flavour::label() const { return std::string(name_of(mech)) + (variant.empty() ? "" : "/" + variant); }

std::vector<flavour> all_flavours() {
  std::vector<flavour> fs;
  for (mechanism m : all_mechanisms)
    for (auto v : variants_of(m)) fs.push_back({m, std::string(v)});
  return fs;
}

}  // namespace pollscale::calibrate
