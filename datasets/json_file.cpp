#include "datasets/json_file.hpp"

#include <fstream>
#include <string>
#include <utility>

#include "datasets/csv_table.hpp"

namespace pollscale::datasets {
namespace {

struct too_deep {};

}  // namespace

namespace {

// The callback sees every value as it opens; refusing at the bound stops the parser before
// the recursion gets deep.
template <class Input>
nlohmann::json parse_bounded(Input&& input, const std::filesystem::path& origin) {
  const auto bounded = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > max_json_depth) throw too_deep{};
    return true;
  };
  try {
    return nlohmann::json::parse(std::forward<Input>(input), bounded);
  } catch (const too_deep&) {
    throw input_error(origin.string() + ": nested deeper than " + std::to_string(max_json_depth) + " levels");
  } catch (const nlohmann::json::exception& e) {
    throw input_error(origin.string() + ": invalid JSON: " + e.what());
  }
}

}  // namespace

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path.string() + ": is a directory, not a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string() + ": cannot open for reading");
  return parse_bounded(in, path);
}

nlohmann::json parse_json_text(std::string_view text, const std::filesystem::path& origin) {
  return parse_bounded(text, origin);
}

}  // namespace pollscale::datasets
