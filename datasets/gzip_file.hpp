// Reading a gzip-compressed file whole (zlib). The machine corpus (datasets/machines/) keeps
// each dataset's raw samples as samples.csv.gz to stay small in the repository; everything
// else in pollscale reads plain text, so one function is the whole seam.
#pragma once

#include <filesystem>
#include <string>

namespace pollscale::datasets {

/// The decompressed bytes of a gzip file. A file that cannot be opened, is not gzip data,
/// or ends early (truncated, corrupt) throws input_error naming the path and zlib's reason.
std::string read_gzip_file(const std::filesystem::path& path);

}  // namespace pollscale::datasets
