#include "datasets/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>

namespace pollscale::datasets {

std::uint64_t memory_allowance() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return UINT64_MAX;
  return static_cast<std::uint64_t>(pages) / 2 * static_cast<std::uint64_t>(page);
}

std::string gib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

std::uint64_t content_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  if (path.extension() != ".gz" || size < 4) return size;
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 4> tail{};
  if (!in.seekg(-4, std::ios::end) || !in.read(reinterpret_cast<char*>(tail.data()), 4)) return size;
  // ISIZE: the uncompressed length modulo 2^32, little-endian (RFC 1952).
  const std::uint64_t isize = std::uint64_t{tail[0]} | (std::uint64_t{tail[1]} << 8) | (std::uint64_t{tail[2]} << 16) |
                              (std::uint64_t{tail[3]} << 24);
  constexpr std::uint64_t deflate_max_ratio = 1032;  // a run of one byte, the best deflate does
  if (isize > deflate_max_ratio * size) return size;
  return std::max(isize, size);
}

}  // namespace pollscale::datasets
