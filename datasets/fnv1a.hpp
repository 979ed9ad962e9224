// FNV-1a, 64 bits (Fowler, Noll, Vo): a cheap, stable hash of bytes, the same on every
// platform and standard library (std::hash is neither). Used where a name or a file must
// map to the same number every time: a dataset's file checksums, a model cell's draw.
// Not a defence against forgery.
#pragma once

#include <cstdint>
#include <string_view>

namespace pollscale::datasets {

inline std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3;
  return h;
}

}  // namespace pollscale::datasets
