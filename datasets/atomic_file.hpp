// Files are replaced, never half-written: content goes to a temporary file in the same
// directory, is flushed to disk, and renamed over the target in one step. What is replaced
// is the regular file a path names: a symlink stays a symlink (the file it points to is
// replaced), and a device, FIFO or socket (/dev/null, /dev/stdout on a pipe) is written to,
// never turned into a regular file.
#pragma once

#include <filesystem>
#include <string_view>

namespace pollscale::datasets {

/// Writes `content` to `path` atomically (to a device or FIFO: in order, checked). Throws
/// std::system_error naming the path; a directory is refused the same way.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace pollscale::datasets
