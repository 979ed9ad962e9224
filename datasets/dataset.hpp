// A calibration dataset: a directory with context.json, samples.csv and summary.csv
// (docs/datasets.md). Writing is atomic per file; reading validates
// every row and names file:line for the first one it cannot trust.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/schema.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::datasets {

struct csv_table;
struct csv_record;

/// One timed repetition. `value` is in `k.unit`, finite and >= 0.
struct sample_row {
  key k;
  std::int64_t rep = 0;
  double value = 0;
  std::int64_t batch = 1;  ///< operations timed back to back in this sample (extra column)
  /// Which visit of the point the sample belongs to (0-based): every visit sets the point up
  /// afresh at another moment of the run; intervals are built from the spread between visits.
  std::int64_t visit = 0;
  std::optional<double> t_s;          ///< seconds from the run's start to the visit's start
  std::optional<double> sentinel_ns;  ///< the drift sentinel's reading just before the visit
  /// The cross-CPU wake sentinel's latest reading at the visit (at most a couple of seconds
  /// old; calibrate/wake_sentinel.hpp); none on one CPU or in older datasets.
  std::optional<double> wake_sentinel_ns;
  /// The placement sentinel's latest reading at the visit (a cache line's round trip between
  /// the first two CPUs, at most 3 s old; calibrate/placement_sentinel.hpp): which placement
  /// of the two CPUs the visit met; none on one CPU or in older datasets.
  std::optional<double> placement_ns;
};

/// One reading of a sentinel: a fixed cheap operation measured again and again through a
/// run, so that the machine's speed at each moment is known. The drift sentinel
/// (calibrate/sentinel.hpp, one CPU's speed) is kept in sentinel.csv, the cross-CPU wake
/// sentinel (calibrate/wake_sentinel.hpp, one operation = a round trip) in wake_sentinel.csv,
/// the placement sentinel (calibrate/placement_sentinel.hpp, a cache line's round trip
/// between the first two CPUs) in placement_sentinel.csv.
struct sentinel_reading {
  double t_s = 0;          ///< seconds from the run's start
  double ns_per_call = 0;  ///< median over the reading's batches, nanoseconds per operation
  std::int64_t calls = 0;  ///< operations timed in the reading, all batches together
};

/// One measured point, summarised over its repetitions.
struct summary_row {
  key k;
  summary s;
};

/// A probe point that could not run here, with the reason (kept in context.json).
struct skipped_point {
  key k;
  std::string reason;
};

struct dataset {
  nlohmann::json context;  ///< the context block; "warnings" and "skipped" live here
  std::vector<sample_row> samples;
  std::vector<summary_row> summaries;
  std::vector<sentinel_reading> sentinel;            ///< empty when the run had none (sentinel.csv absent)
  std::vector<sentinel_reading> wake_sentinel;       ///< empty without one (wake_sentinel.csv absent)
  std::vector<sentinel_reading> placement_sentinel;  ///< empty without one (placement_sentinel.csv absent)
  /// Per summary row (same order), rules of datasets/consistency.hpp the point still breaks,
  /// joined by ';' (summary.csv column `consistency`); empty or shorter: none.
  std::vector<std::string> consistency;
};

/// Summarises samples grouped by key, in key order; a point measured in several visits is
/// summarised from its visits (statistics.hpp, summarise_visits).
std::vector<summary_row> summarise_samples(const std::vector<sample_row>& samples);

std::string samples_csv(const std::vector<sample_row>& rows);
/// `marks` (optional) gives the consistency column per row; absent: the column is empty.
std::string summary_csv(const std::vector<summary_row>& rows, const std::vector<std::string>& marks = {});
std::string sentinel_csv(const std::vector<sentinel_reading>& rows);
/// The same series with the wake sentinel's columns: t_s, ns_per_round_trip, round_trips.
std::string wake_sentinel_csv(const std::vector<sentinel_reading>& rows);
std::string placement_sentinel_csv(const std::vector<sentinel_reading>& rows);

/// Creates `dir` if needed and writes the files (each sentinel's file only when it has readings)
/// as one unit: a reader, or a kill at any moment, finds the previous dataset or this one
/// (datasets/dataset_files.hpp).
void write_dataset(const std::filesystem::path& dir, const dataset& d);

/// Memory a dataset takes read in full (its points, their samples, and what fit and validate
/// build on them), per byte of its summary.csv and of its samples.csv: measured on a
/// 10^6-row summary (187 MB: 1.04 GB read, 1.05 GB for a whole fit) and a 880 000-row
/// samples.csv (91 MB: 0.47 GB read), rounded up.
inline constexpr double read_bytes_per_summary_byte = 6, read_bytes_per_samples_byte = 5;

/// Throws input_error, with the arithmetic, when reading `dir` in full would take more than
/// `allowance` bytes (read_dataset passes half this machine's memory): a refusal before
/// reading rather than the kernel's OOM killer halfway through.
void check_dataset_memory(const std::filesystem::path& dir, std::uint64_t allowance);

/// Reads and validates a dataset directory. Throws input_error ("file:line: what") for
/// missing files, bad JSON, missing columns, unknown names, non-numeric, NaN, infinite
/// or negative values, and summaries inconsistent with their own fields (min > max).
dataset read_dataset(const std::filesystem::path& dir);

/// `dir`/`name`, or `name`.gz when only the compressed copy is there (the machine corpus keeps
/// samples compressed, and the summary of a dataset too large for its budget otherwise);
/// nullopt when neither exists. read_dataset reads each CSV file where this finds it.
std::optional<std::filesystem::path> plain_or_gzip(const std::filesystem::path& dir, const std::string& name);

/// The key columns of record `r` of table `t`; input_error naming file:line when invalid.
key parse_key(const csv_table& t, const csv_record& r);

/// A finite, non-negative number from `column` of record `r`; input_error otherwise.
double parse_value(const csv_table& t, const csv_record& r, std::string_view column);

/// Parsers for the two CSV tables alone (used by read_dataset and by tests).
std::vector<sample_row> parse_samples(const csv_table& t);
std::vector<summary_row> parse_summaries(const csv_table& t);
std::vector<sentinel_reading> parse_sentinel(const csv_table& t);
std::vector<sentinel_reading> parse_wake_sentinel(const csv_table& t);
std::vector<sentinel_reading> parse_placement_sentinel(const csv_table& t);

/// The same from CSV text, record by record (read_dataset's way: a table of strings of a
/// million-row summary took about 1 GB); `consistency` (if given) receives the column of
/// that name, one entry per row, when the table has it.
std::vector<sample_row> read_samples(std::string_view text, const std::filesystem::path& name);
std::vector<summary_row> read_summaries(std::string_view text, const std::filesystem::path& name,
                                        std::vector<std::string>* consistency = nullptr);

}  // namespace pollscale::datasets
