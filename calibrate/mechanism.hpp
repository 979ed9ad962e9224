// The readiness mechanisms pollscale measures, their variants, and their names as they
// appear in datasets (datasets/schema.hpp holds the vocabulary; this maps it to code).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pollscale::calibrate {

enum class mechanism { select, pselect, poll, ppoll, epoll, rtsig, io_uring };

inline constexpr mechanism all_mechanisms[] = {mechanism::select,  mechanism::pselect, mechanism::poll,
                                               mechanism::ppoll,   mechanism::epoll,   mechanism::rtsig,
                                               mechanism::io_uring};

std::string_view name_of(mechanism m);
std::optional<mechanism> parse_mechanism(std::string_view name);

/// The variants a mechanism supports: epoll {lt, et, oneshot}, io_uring {oneshot,
/// multishot}, the others {""}. The first is the default.
std::span<const std::string_view> variants_of(mechanism m);

/// A mechanism with one of its variants, e.g. {epoll, "et"}.
struct flavour {
  mechanism mech;
  std::string variant;
  std::string label() const;  ///< "epoll/et", "poll"
};

/// Every mechanism with every one of its variants, in all_mechanisms order.
std::vector<flavour> all_flavours();

}  // namespace pollscale::calibrate
