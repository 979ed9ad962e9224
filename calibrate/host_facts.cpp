#include "calibrate/host_facts.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>

#include "calibrate/context.hpp"

namespace pollscale::calibrate {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") + 1 - b);
}

template <class T>
std::optional<T> number_of(const std::string& text) {
  T v{};
  const std::string t = trimmed(text);
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::string cpuinfo_field(const std::string& field, const std::string& cpuinfo) {
  std::ifstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trimmed(line.substr(0, colon)) == field) return trimmed(line.substr(colon + 1));
  }
  return "";
}

datasets::cpu_facts read_cpu_facts(const std::string& cpuinfo, const std::string& cpufreq_dir) {
  datasets::cpu_facts c;
  c.vendor = cpuinfo_field("vendor_id", cpuinfo);
  c.family = number_of<int>(cpuinfo_field("cpu family", cpuinfo));
  c.model = number_of<int>(cpuinfo_field("model", cpuinfo));
  c.stepping = number_of<int>(cpuinfo_field("stepping", cpuinfo));
  c.microcode = cpuinfo_field("microcode", cpuinfo);
  c.mhz = number_of<double>(cpuinfo_field("cpu MHz", cpuinfo));
  if (const auto khz = number_of<double>(read_first_line(cpufreq_dir + "/cpuinfo_max_freq"))) c.max_mhz = *khz / 1000;
  return c;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  const std::string t = trimmed(text);
  std::size_t at = 0;
  while (at < t.size()) {
    const auto comma = std::min(t.find(',', at), t.size());
    const std::string part = t.substr(at, comma - at);
    const auto dash = part.find('-');
    const auto lo = number_of<int>(part.substr(0, dash));
    const auto hi = dash == std::string::npos ? lo : number_of<int>(part.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi - *lo > 65536) return {};
    for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
    at = comma + 1;
  }
  return cpus;
}

std::optional<datasets::topology_facts> read_topology(const std::string& cpu_root, const std::string& node_root) {
  const auto online = parse_cpu_list(read_first_line(cpu_root + "/online"));
  if (online.empty()) return std::nullopt;
  std::set<int> packages;
  std::set<std::pair<int, int>> cores;
  for (int cpu : online) {
    const std::string dir = cpu_root + "/cpu" + std::to_string(cpu) + "/topology/";
    const auto package = number_of<int>(read_first_line(dir + "physical_package_id"));
    const auto core = number_of<int>(read_first_line(dir + "core_id"));
    if (!package || !core) return std::nullopt;
    packages.insert(*package);
    cores.emplace(*package, *core);
  }
  datasets::topology_facts t;
  t.sockets = static_cast<int>(packages.size());
  t.cores = static_cast<int>(cores.size());
  t.threads_per_core = static_cast<int>(online.size() / cores.size());
  if (const auto nodes = parse_cpu_list(read_first_line(node_root + "/online")); !nodes.empty())
    t.numa_nodes = static_cast<int>(nodes.size());
  t.smt = read_first_line(cpu_root + "/smt/control");
  return t;
}

std::string selected_choice(const std::string& line) {
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return trimmed(line);
  return line.substr(open + 1, close - open - 1);
}

std::optional<datasets::thp_facts> read_thp(const std::string& dir) {
  const std::string enabled = read_first_line(dir + "/enabled");
  if (enabled.empty()) return std::nullopt;
  return datasets::thp_facts{selected_choice(enabled), selected_choice(read_first_line(dir + "/defrag"))};
}

std::vector<std::pair<std::string, std::string>> read_mitigations(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) out.emplace_back(it->path().filename().string(), read_first_line(it->path().string()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pollscale::calibrate
