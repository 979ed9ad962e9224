// What every harness shares: the fuzzer's bytes as a file a reader can open (the readers
// take paths, as the CLI gives them), in a directory of this process's own, and the one
// rule of every harness: a reader may refuse its input only with its documented error
// (datasets::input_error, which names file and line); anything else — another exception,
// a crash, a sanitizer report, a hang — is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace pollscale::fuzz {

/// A directory of this process's own under the temporary directory, created once.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("pollscale-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

/// Writes `bytes` to scratch()/name and returns the path.
inline std::filesystem::path as_file(std::string_view name, std::string_view bytes) {
  const auto p = scratch() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

inline std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace pollscale::fuzz
