// A number written as text, read whole: "12.5" and "1e3" are numbers, "12x", " 5" and ""
// are not (std::from_chars, so the same in every locale). Finiteness is the caller's rule:
// "inf" and "nan" read as the values they name.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>

namespace pollscale::datasets {

inline std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace pollscale::datasets
