// Renders rows of named columns as an aligned text table or as CSV. JSON output is built
// by each command with nlohmann::json, because its shape is richer than a table's.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pollscale::app {

struct text_table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  /// Columns whose cells are right-aligned (numbers); others are left-aligned.
  std::vector<bool> numeric;
};

void write_table(std::ostream& out, const text_table& t);
/// The table write_table prints for rows row(0) .. row(n - 1), each made twice — once to
/// measure the widths, once to print it — so that no more than one row's strings are held
/// at a time: for tables of every row of a dataset (a million rows' strings took ~1 GB).
void write_table_rows(std::ostream& out, const std::vector<std::string>& columns, const std::vector<bool>& numeric,
                      std::size_t n, const std::function<std::vector<std::string>(std::size_t)>& row);
void write_csv(std::ostream& out, const text_table& t);
/// One CSV line (RFC 4180 quoting), for output written row by row rather than as a table.
void write_csv_line(std::ostream& out, const std::vector<std::string>& cells);

/// A number with `significant` significant digits, no exponent for 1e-3 <= |v| < 1e9.
std::string format_number(double v, int significant = 4);

/// A time given in ns as a person reads it, 3 significant digits: "576 ns", "3.57 ms".
std::string duration_text(double ns);

/// A number for a CSV cell: 10 significant digits, "" for NaN (no value), "inf"/"-inf".
std::string csv_number(double v);

/// A table cell: format_number(v, significant) for reading, csv_number(v) for CSV (which
/// must not lose what the JSON output keeps).
std::string number_cell(double v, int significant, bool csv);

/// A count (descriptors, connections, replies per second) as a whole number: "100", "41406";
/// "-" when not finite. Counts carried as doubles through JSON must not print as "100.0".
std::string count_text(double n);

/// A fraction as a percentage with 3 significant digits ("4.21%"), "-" when not finite.
std::string percent_text(double fraction);

/// A number for JSON, which has neither NaN nor infinity: those become null.
nlohmann::json json_number(double v);

/// The same for a value that may be absent: absent becomes null too.
nlohmann::json json_number(const std::optional<double>& v);

}  // namespace pollscale::app
