#include "app/shell_quote.hpp"

#include <algorithm>
#include <cctype>

namespace pollscale::app {

std::string shell_quote(std::string_view word) {
  const auto plain = [](unsigned char c) {
    return std::isalnum(c) || std::string_view("-_./,:=+@%").find(static_cast<char>(c)) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace pollscale::app
