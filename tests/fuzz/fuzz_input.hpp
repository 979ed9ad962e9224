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
#include <system_error>

#include <unistd.h>

namespace pollscale::fuzz {

/// A directory of this process's own under the temporary directory, created on first use
/// and removed when the process exits normally (a crash keeps it, with the input that did it).
class scratch_directory {
 public:
  scratch_directory()
      : path_(std::filesystem::temp_directory_path() / ("pollscale-fuzz-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~scratch_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  scratch_directory(const scratch_directory&) = delete;
  scratch_directory& operator=(const scratch_directory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline const std::filesystem::path& scratch() {
  static const scratch_directory dir;
  return dir.path();
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
