// Which files make one dataset, written as one unit. A dataset is three to six files, each
// replaced atomically on its own (datasets/atomic_file.hpp); a run killed between two renames,
// or two writers taking turns, would leave new samples beside an old summary, and nothing in
// the CSVs tells them apart. Two defences:
// - The files are written into a fresh directory swapped in whole (datasets/directory_swap.hpp):
//   a kill at any moment leaves the previous dataset or the new one.
// - files.json lists every file of the write with its size and FNV-1a 64-bit hash; reading
//   checks them. Where the swap cannot be made (see directory_swap.hpp) the files are
//   replaced one by one with files.json last, the commit point: a mixture is then refused,
//   naming the file that does not belong, instead of being fitted. The same check catches
//   files copied or edited into a dataset by hand. The hash guards against accidents (an
//   interrupted write, two writers), not against forgery.
// A directory without files.json (datasets written before 2026-12-02, the machine corpus,
// hand-made test data) is read as before.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "datasets/directory_swap.hpp"

namespace pollscale::datasets {

inline constexpr const char* dataset_files_name = "files.json";

/// Every name a dataset's reader looks for (dataset.cpp): a file of these beside a files.json
/// that does not list it is a leftover of another write, and a write removes those it does
/// not write itself.
inline constexpr std::array<const char*, 11> dataset_file_names = {"context.json",
                                                                   "samples.csv",
                                                                   "samples.csv.gz",
                                                                   "summary.csv",
                                                                   "summary.csv.gz",
                                                                   "sentinel.csv",
                                                                   "sentinel.csv.gz",
                                                                   "wake_sentinel.csv",
                                                                   "wake_sentinel.csv.gz",
                                                                   "placement_sentinel.csv",
                                                                   "placement_sentinel.csv.gz"};

/// datasets::fnv1a64 of `bytes` as 16 lower-case hex digits: a file's checksum in files.json.
std::string fnv1a64_hex(std::string_view bytes);

/// The files.json document of a write: for each file name its "bytes" and "fnv1a64".
nlohmann::json dataset_files_json(const std::map<std::string, std::string>& contents);

/// Makes `dir` hold exactly `files` (name -> bytes, names of dataset_file_names) and their
/// files.json, as one unit where the directory can be swapped (returns how, for tests), else
/// file by file with files.json last. Dataset files of an earlier write that `files` does not
/// hold are removed; other entries of `dir` stay. Throws std::system_error naming the path.
directory_swap commit_dataset_files(const std::filesystem::path& dir, const std::map<std::string, std::string>& files);

/// Checks `dir` against its files.json, if it has one: every listed file present with its
/// size and hash, and no other dataset file (samples, summary, sentinels, context, plain or
/// gzipped) beside them. Throws input_error naming the file and what differs. Returns the
/// bytes it checked, by file name (none without files.json), so that the reader parses
/// exactly those: each file read once, and no writer replacing one after the check can slip
/// another file's bytes in.
std::map<std::string, std::string> check_dataset_files(const std::filesystem::path& dir);

}  // namespace pollscale::datasets
