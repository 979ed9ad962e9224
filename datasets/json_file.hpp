// Reading a JSON file that pollscale did not necessarily write (context.json, model.json)
// without trusting it: a directory, unreadable bytes, invalid JSON and absurd nesting all
// become one input_error naming the file. The nesting bound matters because nlohmann's
// parser and its copies recurse once per level: a 2 MB file of nested arrays would
// otherwise exhaust the stack instead of being refused.
#pragma once

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pollscale::datasets {

/// Deeper than this is refused; pollscale's own files nest four or five levels.
inline constexpr int max_json_depth = 64;

/// Parses the file at `path`. Throws input_error ("path: what") when it is not a readable
/// regular file, not JSON, or nested deeper than max_json_depth.
nlohmann::json read_json_file(const std::filesystem::path& path);

/// Parses `text` as read_json_file parses a file's bytes; messages name `origin`.
nlohmann::json parse_json_text(std::string_view text, const std::filesystem::path& origin);

}  // namespace pollscale::datasets
