#include "datasets/dataset.hpp"

#include <unordered_map>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "datasets/csv_table.hpp"
#include "datasets/dataset_files.hpp"
#include "datasets/fnv1a.hpp"
#include "datasets/interruption.hpp"
#include "datasets/json_file.hpp"
#include "datasets/memory_budget.hpp"

namespace pollscale::datasets {
namespace {

constexpr const char* summary_stat_columns[] = {"n",       "median",  "mean", "stddev", "stderr_mean",
                                                "ci95_lo", "ci95_hi", "min",  "max"};

std::string round_trip_text(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, end);
}

std::string key_header() {
  std::string h;
  for (auto c : key_columns()) h += std::string(c) + ",";
  return h;
}

std::string key_text(const key& k) {
  std::string out;
  for (auto c : key_columns()) out += csv_escape(key_field(k, c)) + ",";
  return out;
}

// A context block as read from `p` (its bytes already read, or not): the checks of a context.
nlohmann::json checked_context(nlohmann::json j, const std::filesystem::path& p) {
  if (!j.is_object() || !j.contains("schema_version"))
    throw input_error(p.string() + ": not a context block (no schema_version)");
  if (j.contains("kind") && j["kind"] != context_kind)
    throw input_error(p.string() + ": a " + (j["kind"].is_string() ? j["kind"].get<std::string>() : j["kind"].dump()) +
                      " document, not a context block");
  if (j["schema_version"] != schema_version)
    throw input_error(p.string() + ": schema_version " + j["schema_version"].dump() +
                      " is not supported (this build reads " + std::to_string(schema_version) + ")");
  return j;
}

nlohmann::json read_context(const std::filesystem::path& p) { return checked_context(read_json_file(p), p); }

}  // namespace

/// A finite, non-negative number, or a input_error naming the record and column.
double parse_value(const csv_table& t, const csv_record& r, std::string_view column) {
  const std::string& s = r.fields[t.require_column(column)];
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc{} || ptr != end)
    throw input_error(t.where(r) + "column '" + std::string(column) + "': '" + s + "' is not a number");
  if (!std::isfinite(v))
    throw input_error(t.where(r) + "column '" + std::string(column) + "': not finite ('" + s + "')");
  if (v < 0) throw input_error(t.where(r) + "column '" + std::string(column) + "': negative value " + s);
  return v;
}

key parse_key(const csv_table& t, const csv_record& r) {
  key k;
  for (auto c : key_columns()) {
    const auto idx = t.column(c);
    if (!idx) {
      if (c == "pinning") continue;  // optional: older and historical tables lack it
      throw input_error(t.path.string() + ":1: missing column '" + std::string(c) + "'");
    }
    try {
      set_key_field(k, c, r.fields[*idx]);
    } catch (const std::invalid_argument& e) {
      throw input_error(t.where(r) + e.what());
    }
  }
  if (k.scenario.empty()) throw input_error(t.where(r) + "column 'scenario' is empty");
  if (k.metric.empty()) throw input_error(t.where(r) + "column 'metric' is empty");
  if (k.unit.empty()) throw input_error(t.where(r) + "column 'unit' is empty");
  return k;
}

std::vector<summary_row> summarise_samples(const std::vector<sample_row>& samples) {
  // Per key, the values of each visit (visit numbers are small: 0 .. rounds-1).
  std::map<key, std::map<std::int64_t, std::vector<double>>> groups;
  for (const auto& s : samples) groups[s.k][s.visit].push_back(s.value);
  std::vector<summary_row> out;
  out.reserve(groups.size());
  for (const auto& [k, by_visit] : groups) {
    std::vector<std::vector<double>> visits;
    visits.reserve(by_visit.size());
    for (const auto& [visit, values] : by_visit) visits.push_back(values);
    out.push_back({k, summarise_visits(visits)});
  }
  return out;
}

namespace {

std::string optional_text(const std::optional<double>& v) { return v ? round_trip_text(*v) : std::string(); }

}  // namespace

std::string samples_csv(const std::vector<sample_row>& rows) {
  std::ostringstream out;
  out << key_header() << "rep,value,batch,visit,t_s,sentinel_ns,wake_sentinel_ns,placement_ns\n";
  for (const auto& r : rows)
    out << key_text(r.k) << r.rep << "," << round_trip_text(r.value) << "," << r.batch << "," << r.visit << ","
        << optional_text(r.t_s) << "," << optional_text(r.sentinel_ns) << "," << optional_text(r.wake_sentinel_ns)
        << "," << optional_text(r.placement_ns) << "\n";
  return out.str();
}

std::string summary_csv(const std::vector<summary_row>& rows, const std::vector<std::string>& marks) {
  std::ostringstream out;
  out << key_header() << "n,median,mean,stddev,stderr_mean,ci95_lo,ci95_hi,min,max,consistency\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& s = rows[i].s;
    out << key_text(rows[i].k) << s.n;
    for (double v : {s.median, s.mean, s.stddev, s.stderr_mean, s.ci95_lo, s.ci95_hi, s.min, s.max})
      out << "," << round_trip_text(v);
    out << "," << (i < marks.size() ? csv_escape(marks[i]) : std::string()) << "\n";
  }
  return out.str();
}

namespace {

// A sentinel's two files differ only in the names of their value and count columns.
constexpr const char* drift_columns[] = {"ns_per_call", "calls"};
constexpr const char* wake_columns[] = {"ns_per_round_trip", "round_trips"};

std::string series_csv(const std::vector<sentinel_reading>& rows, const char* const (&columns)[2]) {
  std::ostringstream out;
  out << "t_s," << columns[0] << "," << columns[1] << "\n";
  for (const auto& r : rows)
    out << round_trip_text(r.t_s) << "," << round_trip_text(r.ns_per_call) << "," << r.calls << "\n";
  return out.str();
}

}  // namespace

std::string sentinel_csv(const std::vector<sentinel_reading>& rows) { return series_csv(rows, drift_columns); }

std::string wake_sentinel_csv(const std::vector<sentinel_reading>& rows) { return series_csv(rows, wake_columns); }

std::string placement_sentinel_csv(const std::vector<sentinel_reading>& rows) { return series_csv(rows, wake_columns); }

void write_dataset(const std::filesystem::path& dir, const dataset& d) {
  std::map<std::string, std::string> files = {{"samples.csv", samples_csv(d.samples)},
                                              {"summary.csv", summary_csv(d.summaries, d.consistency)},
                                              {"context.json", d.context.dump(2) + "\n"}};
  if (!d.sentinel.empty()) files["sentinel.csv"] = sentinel_csv(d.sentinel);
  if (!d.wake_sentinel.empty()) files["wake_sentinel.csv"] = wake_sentinel_csv(d.wake_sentinel);
  if (!d.placement_sentinel.empty()) files["placement_sentinel.csv"] = placement_sentinel_csv(d.placement_sentinel);
  commit_dataset_files(dir, files);  // one unit: the previous dataset or this one (dataset_files.hpp)
}

namespace {

/// An optional non-negative number column: absent column or empty field -> nullopt.
std::optional<double> optional_value(const csv_table& t, const csv_record& r, std::string_view column) {
  const auto idx = t.column(column);
  if (!idx || r.fields[*idx].empty()) return std::nullopt;
  return parse_value(t, r, column);
}

/// A count column that must hold a whole number in [0, 2^53] (checked before the cast).
std::int64_t count_value(const csv_table& t, const csv_record& r, std::string_view column) {
  const double v = parse_value(t, r, column);
  if (v != std::floor(v) || v > 9007199254740992.0)
    throw input_error(t.where(r) + "column '" + std::string(column) + "': '" + r.fields[t.require_column(column)] +
                      "' is not a whole number");
  return static_cast<std::int64_t>(v);
}

}  // namespace

namespace {

sample_row sample_of(const csv_table& t, const csv_record& r) {
  sample_row s;
  s.k = parse_key(t, r);
  s.value = parse_value(t, r, "value");
  s.rep = count_value(t, r, "rep");
  if (t.column("batch")) s.batch = std::max<std::int64_t>(1, count_value(t, r, "batch"));
  if (t.column("visit")) s.visit = count_value(t, r, "visit");  // older datasets: one visit
  s.t_s = optional_value(t, r, "t_s");
  s.sentinel_ns = optional_value(t, r, "sentinel_ns");
  s.wake_sentinel_ns = optional_value(t, r, "wake_sentinel_ns");
  s.placement_ns = optional_value(t, r, "placement_ns");
  return s;
}

}  // namespace

std::vector<sample_row> parse_samples(const csv_table& t) {
  std::vector<sample_row> rows;
  rows.reserve(t.records.size());
  for (const auto& r : t.records) {
    if (rows.size() % 8192 == 0) interruption_point();
    rows.push_back(sample_of(t, r));
  }
  return rows;
}

std::vector<sample_row> read_samples(std::string_view text, const std::filesystem::path& name) {
  std::vector<sample_row> rows;
  rows.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));  // one row a line
  for_each_csv_record(text, name, [&](const csv_table& head, csv_record& r) { rows.push_back(sample_of(head, r)); });
  return rows;
}

namespace {

std::vector<sentinel_reading> parse_series(const csv_table& t, const char* const (&columns)[2]) {
  std::vector<sentinel_reading> rows;
  rows.reserve(t.records.size());
  for (const auto& r : t.records)
    rows.push_back({parse_value(t, r, "t_s"), parse_value(t, r, columns[0]), count_value(t, r, columns[1])});
  return rows;
}

}  // namespace

std::vector<sentinel_reading> parse_sentinel(const csv_table& t) { return parse_series(t, drift_columns); }

std::vector<sentinel_reading> parse_wake_sentinel(const csv_table& t) { return parse_series(t, wake_columns); }

std::vector<sentinel_reading> parse_placement_sentinel(const csv_table& t) { return parse_series(t, wake_columns); }

namespace {

// One summary record, checked: its key, its nine statistics, and their order.
summary_row summary_of(const csv_table& t, const csv_record& r) {
  summary_row s{parse_key(t, r), {}};
  double v[9];
  v[0] = static_cast<double>(count_value(t, r, "n"));  // checked before the cast
  for (int i = 1; i < 9; ++i) v[i] = parse_value(t, r, summary_stat_columns[i]);
  s.s = {static_cast<std::size_t>(v[0]), v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
  if (s.s.n == 0) throw input_error(t.where(r) + "column 'n': a summary of no samples");
  const auto& x = s.s;  // the mean may differ from min == max by rounding
  if (!(x.min <= x.ci95_lo && x.ci95_lo <= x.median && x.median <= x.ci95_hi && x.ci95_hi <= x.max &&
        x.min * (1 - 1e-9) <= x.mean && x.mean <= x.max * (1 + 1e-9)))
    throw input_error(
        t.where(r) +
        "inconsistent summary (min <= ci95_lo <= median <= ci95_hi <= max mean within [min, max] violated)");
  return s;
}

// One row per point: a second is a merge gone wrong. Keys are indexed by a 64-bit hash of
// their text (16 bytes a row, where a map of the keys themselves took ~400 B), compared in
// full on a hash match.
class point_index {
 public:
  void add(const csv_table& t, const csv_record& r, const std::vector<summary_row>& rows) {
    const key& k = rows.back().k;
    const std::uint64_t h = fnv1a64(key_text(k));
    auto [lo, hi] = by_hash_.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (rows[it->second].k == k)
        throw input_error(t.where(r) + "the same point as line " + std::to_string(lines_[it->second]) +
                          " (one row per point; two calibrations merged by hand?)");
    by_hash_.emplace_hint(hi, h, rows.size() - 1);
    lines_.push_back(r.line);
  }

 private:
  std::unordered_multimap<std::uint64_t, std::size_t> by_hash_;
  std::vector<std::size_t> lines_;  // per row, its line
};

}  // namespace

std::vector<summary_row> parse_summaries(const csv_table& t) {
  std::vector<summary_row> rows;
  point_index seen;
  for (const auto& r : t.records) {
    if (rows.size() % 8192 == 0) interruption_point();
    rows.push_back(summary_of(t, r));
    seen.add(t, r, rows);
  }
  return rows;
}

std::vector<summary_row> read_summaries(std::string_view text, const std::filesystem::path& name,
                                        std::vector<std::string>* consistency) {
  std::vector<summary_row> rows;
  rows.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));  // one row a line
  point_index seen;
  for_each_csv_record(text, name, [&](const csv_table& head, csv_record& r) {
    rows.push_back(summary_of(head, r));
    seen.add(head, r, rows);
    if (consistency)
      if (const auto c = head.column("consistency")) consistency->push_back(std::move(r.fields[*c]));
  });
  return rows;
}

std::optional<std::filesystem::path> plain_or_gzip(const std::filesystem::path& dir, const std::string& name) {
  for (auto p : {dir / name, dir / (name + ".gz")})
    if (std::filesystem::exists(p)) return p;
  return std::nullopt;
}

void check_dataset_memory(const std::filesystem::path& dir, std::uint64_t allowance) {
  const auto samples = plain_or_gzip(dir, "samples.csv").value_or(dir / "samples.csv");
  const auto summary = plain_or_gzip(dir, "summary.csv").value_or(dir / "summary.csv");
  const std::uint64_t summary_bytes = content_bytes(summary), samples_bytes = content_bytes(samples);
  const double need = read_bytes_per_summary_byte * static_cast<double>(summary_bytes) +
                      read_bytes_per_samples_byte * static_cast<double>(samples_bytes);
  if (need <= static_cast<double>(allowance)) return;
  throw input_error(dir.string() + ": reading it would take about " + gib_text(static_cast<std::uint64_t>(need)) +
                    " (" + std::to_string(summary_bytes) + " B of summary.csv x " +
                    std::to_string(static_cast<int>(read_bytes_per_summary_byte)) + ", " +
                    std::to_string(samples_bytes) + " B of samples x " +
                    std::to_string(static_cast<int>(read_bytes_per_samples_byte)) +
                    ", as measured), more than half of this machine's memory (" + gib_text(2 * allowance) + ")");
}

dataset read_dataset(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) throw input_error(dir.string() + ": not a dataset directory");
  check_dataset_memory(dir, memory_allowance());
  const auto checked = check_dataset_files(dir);
  // A file files.json lists is parsed from the bytes its check read, not a copy of them; the
  // others (no files.json, or a gzipped copy, which pollscale never writes) are read here,
  // one at a time into `read`, each parsed before the next is read.
  std::string read;
  const auto bytes = [&](const std::filesystem::path& p) -> std::string_view {
    const auto it = checked.find(p.filename().string());
    if (it != checked.end() && p.extension() != ".gz") return it->second;
    read = read_csv_text(p);
    return read;
  };
  dataset d;
  const auto context = dir / "context.json";
  const auto ctx = checked.find(context.filename().string());
  d.context =
      ctx == checked.end() ? read_context(context) : checked_context(parse_json_text(ctx->second, context), context);
  const auto samples = plain_or_gzip(dir, "samples.csv").value_or(dir / "samples.csv");
  // The two large tables are parsed record by record, never held as a table of strings.
  d.samples = read_samples(bytes(samples), samples);
  const auto summary = plain_or_gzip(dir, "summary.csv").value_or(dir / "summary.csv");
  d.summaries = read_summaries(bytes(summary), summary, &d.consistency);
  if (const auto p = plain_or_gzip(dir, "sentinel.csv")) d.sentinel = parse_sentinel(parse_csv(bytes(*p), *p));
  if (const auto p = plain_or_gzip(dir, "wake_sentinel.csv"))
    d.wake_sentinel = parse_wake_sentinel(parse_csv(bytes(*p), *p));
  if (const auto p = plain_or_gzip(dir, "placement_sentinel.csv"))
    d.placement_sentinel = parse_placement_sentinel(parse_csv(bytes(*p), *p));
  return d;
}

}  // namespace pollscale::datasets
