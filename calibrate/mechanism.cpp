#include "calibrate/mechanism.hpp"

#include <array>

namespace pollscale::calibrate {
namespace {
constexpr std::array<std::string_view, 1> plain = {""};
constexpr std::array<std::string_view, 3> epoll_variants = {"lt", "et", "oneshot"};
constexpr std::array<std::string_view, 2> uring_variants = {"oneshot", "multishot"};
}  // namespace

std::string_view name_of(mechanism m) {
  switch (m) {
    case mechanism::select:
      return "select";
    case mechanism::pselect:
      return "pselect";
    case mechanism::poll:
      return "poll";
    case mechanism::ppoll:
      return "ppoll";
    case mechanism::epoll:
      return "epoll";
    case mechanism::rtsig:
      return "rtsig";
    case mechanism::io_uring:
      return "io_uring";
  }
  return "?";
}

std::optional<mechanism> parse_mechanism(std::string_view name) {
  for (mechanism m : all_mechanisms)
    if (name_of(m) == name) return m;
  return std::nullopt;
}

std::span<const std::string_view> variants_of(mechanism m) {
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
