#include "datasets/historical.hpp"

#include <algorithm>

#include "datasets/csv_table.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::datasets {
namespace {

std::string text_column(const csv_table& t, const csv_record& r, std::string_view column) {
  const auto idx = t.column(column);
  return idx ? r.fields[*idx] : std::string{};
}

std::optional<double> optional_value(const csv_table& t, const csv_record& r, std::string_view column) {
  if (text_column(t, r, column).empty()) return std::nullopt;
  return parse_value(t, r, column);
}

}  // namespace

std::vector<historical_row> read_historical(const std::filesystem::path& path) {
  const csv_table t = read_csv(path);
  for (auto c : {"value", "source", "platform"}) t.require_column(c);
  std::vector<historical_row> rows;
  for (const auto& r : t.records) {
    historical_row h;
    h.k = parse_key(t, r);
    h.value = parse_value(t, r, "value");
    h.stddev = optional_value(t, r, "stddev");
    h.cpu_mhz = optional_value(t, r, "cpu_mhz");
    h.source = text_column(t, r, "source");
    h.platform = text_column(t, r, "platform");
    h.kernel = text_column(t, r, "kernel");
    h.note = text_column(t, r, "note");
    h.line = r.line;
    if (h.source.empty()) throw input_error(t.where(r) + "column 'source' is empty");
    if (h.platform.empty()) throw input_error(t.where(r) + "column 'platform' is empty");
    rows.push_back(std::move(h));
  }
  return rows;
}

std::vector<historical_row> read_historical_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<historical_row> all;
  for (const auto& f : files) {
    auto rows = read_historical(f);
    all.insert(all.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
  }
  return all;
}

}  // namespace pollscale::datasets
