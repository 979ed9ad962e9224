#include "app/study/threads_or_processes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "app/study/json_fields.hpp"
#include "app/table_writer.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::app::study {
namespace {

using nlohmann::json;
using sc = datasets::scenario;

/// A table's flavour for reading: its name less the scenario and the CPUs
/// ("private_sets/epoll/lt/pipe t0 throughput cpus=1" -> "epoll/lt/pipe t0 throughput").
std::string flavour_label(const std::string& table) {
  const auto slash = table.find('/');
  std::string label = slash == std::string::npos ? table : table.substr(slash + 1);
  if (const auto at = label.rfind(" cpus="); at != std::string::npos) label.erase(at);
  return label;
}

/// Measured rate by N, from a table's training and held-out rows.
std::map<double, double> measured_by_n(const json& t) {
  std::map<double, double> out;
  for (const char* part : {"train", "held_out"})
    for (const auto& r : t.value(part, json::array()))
      if (r.contains("measured") && std::isfinite(num(r, "measured")) && num(r, "measured") > 0)
        out[num(r, "n")] = num(r, "measured");
  return out;
}

/// One scenario's tables, by their key less the scenario and the CPUs (scale's JSON "key"),
/// and by their CPUs: their flavour's label and rates.
struct scenario_table {
  std::string label;
  std::map<double, double> rates;
};
using tables_by_key = std::map<std::pair<std::string, json>, scenario_table>;

tables_by_key tables_of(const json& result, sc scenario) {
  tables_by_key out;
  for (const auto& t : result.value("tables", json::array())) {
    json key = t.value("key", json::object());
    if (key.value("scenario", json()) != datasets::name(scenario)) continue;
    const json cpus = key.value("cpus", json());
    key.erase("scenario");
    key.erase("cpus");
    out[{key.dump(), cpus}] = {flavour_label(t.value("table", std::string())), measured_by_n(t)};
  }
  return out;
}

}  // namespace

std::vector<threads_or_processes_row> threads_or_processes(const json& scale_result) {
  const auto threads = tables_of(scale_result, sc::private_sets);
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> ratios, saved_ns;
  for (const auto& [key, procs] : tables_of(scale_result, sc::private_processes)) {
    const auto other = threads.find(key);
    if (other == threads.end()) continue;
    const std::string& flavour = procs.label;
    for (const auto& [n, proc_rate] : procs.rates) {
      const auto t = other->second.rates.find(n);
      if (t == other->second.rates.end()) continue;
      if (!ratios.count(flavour)) order.push_back(flavour);
      ratios[flavour].push_back(proc_rate / t->second);
      if (key.second == 1) saved_ns[flavour].push_back((1 / t->second - 1 / proc_rate) * 1e9);
    }
  }
  std::vector<threads_or_processes_row> rows;
  for (const auto& flavour : order) {
    auto& r = ratios[flavour];
    threads_or_processes_row row{flavour,
                                 r.size(),
                                 datasets::median(r),
                                 *std::min_element(r.begin(), r.end()),
                                 *std::max_element(r.begin(), r.end()),
                                 std::numeric_limits<double>::quiet_NaN()};
    if (const auto s = saved_ns.find(flavour); s != saved_ns.end()) row.ns_saved_per_call = datasets::median(s->second);
    rows.push_back(row);
  }
  return rows;
}

std::string threads_or_processes_markdown(const std::vector<threads_or_processes_row>& rows) {
  if (rows.empty()) return "";
  std::ostringstream md;
  md << "**Threads or processes.** The same timeout-0 wait loop, run as threads of one process ("
     << datasets::name(sc::private_sets) << ") and as processes of one thread each ("
     << datasets::name(sc::private_processes) << "), at every CPU count and N measured both ways:\n\n";
  for (const auto& r : rows) {
    md << "- " << r.flavour << ": processes made " << format_number(r.median_ratio, 3) << "× the calls threads made ("
       << r.points << " points, " << format_number(r.lowest, 3) << "–" << format_number(r.highest, 3) << ")";
    if (std::isfinite(r.ns_saved_per_call))
      md << ", " << format_number(std::abs(r.ns_saved_per_call), 2) << " ns "
         << (r.ns_saved_per_call >= 0 ? "less" : "more") << " a call on one CPU";
    md << "\n";
  }
  md << "\nA thread of a multi-threaded process takes and drops a reference on the file of every call; a process of "
        "one thread borrows it (docs/calibrate.md).\n\n";
  return md.str();
}

}  // namespace pollscale::app::study
