#include "app/table_writer.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "datasets/csv_table.hpp"

namespace pollscale::app {

void write_table(std::ostream& out, const text_table& t) {
  write_table_rows(out, t.columns, t.numeric, t.rows.size(), [&](std::size_t i) { return t.rows[i]; });
}

void write_table_rows(std::ostream& out, const std::vector<std::string>& columns, const std::vector<bool>& numeric,
                      std::size_t n, const std::function<std::vector<std::string>(std::size_t)>& row) {
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = row(i);
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const bool right = c < numeric.size() && numeric[c];
      const std::string& cell = c < cells.size() ? cells[c] : std::string{};
      out << (c ? "  " : "") << (right ? std::right : std::left) << std::setw(static_cast<int>(width[c])) << cell;
    }
    out << "\n";
  };
  line(columns);
  std::vector<std::string> rule;
  for (auto w : width) rule.emplace_back(w, '-');
  line(rule);
  for (std::size_t i = 0; i < n; ++i) line(row(i));
}

void write_csv_line(std::ostream& out, const std::vector<std::string>& cells) {
  for (std::size_t c = 0; c < cells.size(); ++c) out << (c ? "," : "") << datasets::csv_escape(cells[c]);
  out << "\n";
}

void write_csv(std::ostream& out, const text_table& t) {
  write_csv_line(out, t.columns);
  for (const auto& r : t.rows) write_csv_line(out, r);
}

std::string format_number(double v, int significant) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  if (v == 0) return "0";  // exactly nothing, not "0.0000" (which reads as a rounded value)
  std::ostringstream s;
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e9)) {
    s << std::setprecision(significant) << v;
  } else {
    const int digits = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a))) + 1;
    s << std::fixed << std::setprecision(std::max(0, significant - digits)) << v;
  }
  return s.str();
}

std::string duration_text(double ns) {
  if (!std::isfinite(ns)) return "-";
  const double a = std::abs(ns);
  if (a < 1e3) return format_number(ns, 3) + " ns";
  if (a < 1e6) return format_number(ns / 1e3, 3) + " µs";
  if (a < 1e9) return format_number(ns / 1e6, 3) + " ms";
  return format_number(ns / 1e9, 3) + " s";
}

std::string number_cell(double v, int significant, bool csv) {
  return csv ? csv_number(v) : format_number(v, significant);
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

std::string count_text(double n) {
  if (!std::isfinite(n)) return "-";
  if (std::fabs(n) < 9e18) return std::to_string(std::llround(n));
  std::ostringstream o;  // beyond long long: every digit, still no fraction or exponent
  o << std::fixed << std::setprecision(0) << n;
  return o.str();
}

std::string percent_text(double fraction) {
  return std::isfinite(fraction) ? format_number(100 * fraction, 3) + "%" : "-";
}

nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json json_number(const std::optional<double>& v) { return v ? json_number(*v) : nlohmann::json(nullptr); }

}  // namespace pollscale::app
