// A parsed CSV file (RFC 4180, via libcsv) that remembers the line each record ended on,
// so every complaint about a value can name file:line.
#pragma once

#include <functional>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/input_error.hpp"

namespace pollscale::datasets {

// Malformed input is a datasets::input_error whose message starts with "file:line: ".

struct csv_record {
  std::size_t line = 0;  ///< 1-based line on which the record ends
  std::vector<std::string> fields;
};

struct csv_table {
  std::filesystem::path path;
  std::vector<std::string> header;
  std::vector<csv_record> records;

  /// Index of `column` in the header, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  /// Like column(), but throws input_error naming the file when absent.
  std::size_t require_column(std::string_view name) const;
  /// "path:line: " for messages about `r`.
  std::string where(const csv_record& r) const;
};

/// Parses CSV text. Blank lines are skipped; a record whose field count differs from the
/// header's throws input_error naming the line; so do an unterminated quote and an
/// empty input without a header.
csv_table parse_csv(std::string_view text, const std::filesystem::path& name);

/// Called with each record after the header as it is parsed (it may take the record's
/// fields); `head` holds the path and the header, and no records.
using csv_record_sink = std::function<void(const csv_table& head, csv_record& record)>;

/// The same checks as parse_csv, handing each record to `each` instead of keeping it: a
/// file of a million rows is never held as strings (a summary of 10^6 points as a table
/// took about 1 GB). Returns the head (path and header). An exception from `each`
/// propagates.
csv_table for_each_csv_record(std::string_view text, const std::filesystem::path& name, const csv_record_sink& each);

/// The bytes of a file (gunzipped when its name ends in .gz); I/O failures and corrupt
/// compressed data throw input_error naming the path.
std::string read_csv_text(const std::filesystem::path& path);

/// Reads and parses a file (gzip-compressed when its name ends in .gz); I/O failures and
/// corrupt compressed data throw input_error naming the path.
csv_table read_csv(const std::filesystem::path& path);

/// Quotes one field when it holds a comma, quote or line break (RFC 4180).
std::string csv_escape(std::string_view field);

}  // namespace pollscale::datasets
