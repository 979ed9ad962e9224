#include "app/summary_view.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include <nlohmann/json.hpp>

#include "app/output_document.hpp"
#include "app/table_writer.hpp"

namespace pollscale::app {

nlohmann::json column_json(std::string_view column, const std::string& text) {
  constexpr std::string_view counts[] = {"n_fds", "n_active", "max_fd", "blocking", "threads", "cpus", "n_rank"};
  if (text.empty()) return nullptr;
  if (std::find(std::begin(counts), std::end(counts), column) == std::end(counts)) return text;
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc{} && end == text.data() + text.size() ? nlohmann::json(v) : nlohmann::json(text);
}

nlohmann::json key_json(const datasets::key& k) {
  nlohmann::json j = nlohmann::json::object();
  for (auto c : datasets::key_columns()) j[std::string(c)] = column_json(c, datasets::key_field(k, c));
  return j;
}

namespace {

nlohmann::json row_json(const datasets::summary_row& r, const std::string& mark) {
  nlohmann::json j = key_json(r.k);
  j["consistency"] = mark.empty() ? nlohmann::json(nullptr) : nlohmann::json(mark);
  const auto& s = r.s;
  j["n"] = s.n;
  j["median"] = json_number(s.median);
  j["mean"] = json_number(s.mean);
  j["stddev"] = json_number(s.stddev);
  j["stderr_mean"] = json_number(s.stderr_mean);
  j["ci95_lo"] = json_number(s.ci95_lo);
  j["ci95_hi"] = json_number(s.ci95_hi);
  j["min"] = json_number(s.min);
  j["max"] = json_number(s.max);
  return j;
}

text_table make_table(const std::vector<datasets::summary_row>& rows) {
  text_table t;
  t.columns = {"scenario", "mechanism", "variant", "fd_kind", "n_fds",   "k",    "pos", "blk",
               "pin",      "metric",    "median",  "ci95_lo", "ci95_hi", "unit", "n"};
  t.numeric = {false, false, false, false, true, true, false, true, false, false, true, true, true, false, true};
  for (const auto& r : rows) {
    const auto& k = r.k;
    t.rows.push_back({k.scenario, k.mechanism, k.variant, k.fd_kind, datasets::key_field(k, "n_fds"),
                      datasets::key_field(k, "n_active"), k.active_pos, datasets::key_field(k, "blocking"), k.pinning,
                      k.metric, format_number(r.s.median), format_number(r.s.ci95_lo), format_number(r.s.ci95_hi),
                      k.unit, std::to_string(r.s.n)});
  }
  return t;
}

}  // namespace

void print_summaries(std::ostream& out, const std::vector<datasets::summary_row>& rows,
                     const std::vector<std::string>& marks, output_format f) {
  if (f == output_format::json) {
    nlohmann::json a = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) a.push_back(row_json(rows[i], i < marks.size() ? marks[i] : ""));
    nlohmann::json doc = output_document(output_kind::calibration_summary);
    doc["rows"] = std::move(a);
    out << doc.dump(2) << "\n";
  } else if (f == output_format::csv) {
    out << datasets::summary_csv(rows, marks);  // lossless: what summary.csv holds
  } else {
    write_table(out, make_table(rows));
  }
}

}  // namespace pollscale::app
