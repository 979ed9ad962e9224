#include "app/summary_view.hpp"

#include <nlohmann/json.hpp>

#include "app/table_writer.hpp"

namespace pollscale::app {

nlohmann::json key_json(const datasets::key& k) {
  nlohmann::json j;
  for (auto c : datasets::key_columns()) {
    const std::string v = datasets::key_field(k, c);
    j[std::string(c)] = v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
  }
  for (auto c : {"n_fds", "n_active", "max_fd", "blocking", "threads", "cpus"}) {
    const std::string v = datasets::key_field(k, c);
    if (!v.empty()) j[c] = std::stoll(v);
  }
  return j;
}

namespace {

nlohmann::json row_json(const datasets::summary_row& r) {
  nlohmann::json j = key_json(r.k);
  const auto& s = r.s;
  j["n"] = s.n;
  j["median"] = s.median;
  j["mean"] = s.mean;
  j["stddev"] = s.stddev;
  j["stderr_mean"] = s.stderr_mean;
  j["ci95_lo"] = s.ci95_lo;
  j["ci95_hi"] = s.ci95_hi;
  j["min"] = s.min;
  j["max"] = s.max;
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

void print_summaries(std::ostream& out, const std::vector<datasets::summary_row>& rows, output_format f) {
  if (f == output_format::json) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& r : rows) a.push_back(row_json(r));
    out << a.dump(2) << "\n";
  } else if (f == output_format::csv) {
    write_csv(out, make_table(rows));
  } else {
    write_table(out, make_table(rows));
  }
}

}  // namespace pollscale::app
