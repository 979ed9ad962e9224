// The historical record: published figures transcribed from the seeds into the dataset
// key columns plus provenance (docs/historical.md). Values keep the published unit.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "datasets/schema.hpp"

namespace pollscale::datasets {

struct historical_row {
  key k;
  double value = 0;              ///< as published, in k.unit
  std::optional<double> stddev;  ///< the published "±", when the source gives one
  std::string source;            ///< seed file name, author, date
  std::string platform;          ///< machine, e.g. "dual PIII 650 MHz"
  std::string kernel;            ///< kernel or OS release
  std::optional<double> cpu_mhz;
  std::string note;
  std::size_t line = 0;  ///< line in the file it came from
};

/// Reads one historical CSV and validates every row (file:line in each complaint):
/// the key columns, `value` (finite, >= 0), `stddev` (empty or finite >= 0), `source`
/// and `platform` non-empty.
std::vector<historical_row> read_historical(const std::filesystem::path& path);

/// Reads every *.csv in `dir`, sorted by file name.
std::vector<historical_row> read_historical_dir(const std::filesystem::path& dir);

}  // namespace pollscale::datasets
