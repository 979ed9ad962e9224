#include "datasets/dataset_files.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "datasets/atomic_file.hpp"
#include "datasets/directory_swap.hpp"
#include "datasets/fnv1a.hpp"
#include "datasets/input_error.hpp"
#include "datasets/json_file.hpp"

namespace pollscale::datasets {
namespace {

std::string read_bytes(const std::filesystem::path& p) {
  std::error_code is_dir;
  if (std::filesystem::is_directory(p, is_dir)) throw input_error(p.string() + ": is a directory, not a file");
  std::ifstream in(p, std::ios::binary);
  if (!in) throw input_error(p.string() + ": cannot be read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool is_dataset_file(std::string_view name) {
  return name == dataset_files_name ||
         std::find(dataset_file_names.begin(), dataset_file_names.end(), name) != dataset_file_names.end();
}

}  // namespace

directory_swap commit_dataset_files(const std::filesystem::path& dir, const std::map<std::string, std::string>& files) {
  const std::string list = dataset_files_json(files).dump(2) + "\n";
  const auto fill = [&](const std::filesystem::path& fresh) {
    for (const auto& [name, bytes] : files) write_file_atomically(fresh / name, bytes);
    write_file_atomically(fresh / dataset_files_name, list);
  };
  const directory_swap how = replace_directory(dir, fill, is_dataset_file);
  if (how != directory_swap::unavailable) return how;
  // File by file: files.json last, so that until it lands the old list names the old files
  // and a reader refuses the mixture.
  std::filesystem::create_directories(dir);
  for (const auto& [name, bytes] : files) write_file_atomically(dir / name, bytes);
  // Files of an earlier write that this one does not replace would be read with it.
  for (const char* stale : dataset_file_names)
    if (!files.contains(stale)) std::filesystem::remove(dir / stale);
  write_file_atomically(dir / dataset_files_name, list);
  return how;
}

std::string fnv1a64_hex(std::string_view bytes) {
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(fnv1a64(bytes)));
  return out;
}

nlohmann::json dataset_files_json(const std::map<std::string, std::string>& contents) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [name, bytes] : contents) files[name] = {{"bytes", bytes.size()}, {"fnv1a64", fnv1a64_hex(bytes)}};
  return {{"kind", "dataset_files"}, {"schema_version", 1}, {"files", files}};
}

std::map<std::string, std::string> check_dataset_files(const std::filesystem::path& dir) {
  std::map<std::string, std::string> checked;
  const auto path = dir / dataset_files_name;
  if (!std::filesystem::exists(path)) return checked;
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object() || j.value("kind", "") != "dataset_files" || !j.contains("files") || !j["files"].is_object())
    throw input_error(path.string() + ": not a dataset's list of files (kind dataset_files with files)");
  const auto& files = j["files"];
  for (const auto& [name, want] : files.items()) {
    if (name.find('/') != std::string::npos || name.empty() || name[0] == '.')
      throw input_error(path.string() + ": '" + name + "' is not a file name of this directory");
    if (!want.is_object() || !want.contains("bytes") || !want["bytes"].is_number_unsigned() ||
        !want.contains("fnv1a64") || !want["fnv1a64"].is_string())
      throw input_error(path.string() + ": " + name + ": needs bytes and fnv1a64");
    const auto file = dir / name;
    if (!std::filesystem::exists(file))
      throw input_error(file.string() + ": missing, but " + dataset_files_name +
                        " lists it: the dataset's write did not finish");
    std::string bytes = read_bytes(file);
    if (bytes.size() != want["bytes"].get<std::uint64_t>() || fnv1a64_hex(bytes) != want["fnv1a64"])
      throw input_error(file.string() + ": not the file " + dataset_files_name +
                        " lists (another write, or one that did not finish, left it): measure again, or delete " +
                        dataset_files_name + " to read the files as they are");
    checked.emplace(name, std::move(bytes));
  }
  for (const char* name : dataset_file_names)
    if (!files.contains(name) && std::filesystem::exists(dir / name))
      throw input_error((dir / name).string() + ": not part of the dataset " + dataset_files_name +
                        " lists (left by an earlier write): remove it, or delete " + dataset_files_name +
                        " to read the files as they are");
  return checked;
}

}  // namespace pollscale::datasets
