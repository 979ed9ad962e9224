// Files are replaced, never half-written: content goes to a temporary file in the same
// directory, is flushed to disk, and renamed over the target in one step.
#pragma once

#include <filesystem>
#include <string_view>

namespace pollscale::datasets {

/// Writes `content` to `path` atomically. Throws std::system_error naming the path.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace pollscale::datasets
