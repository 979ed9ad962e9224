#include "calibrate/context.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "calibrate/cpuid_caches.hpp"
#include "calibrate/host_facts.hpp"
#include "calibrate/sys/process.hpp"
#include "datasets/build_info.hpp"
#include "datasets/schema.hpp"

namespace pollscale::calibrate {
namespace {

nlohmann::json text_or_null(const std::string& path) {
  const std::string s = read_first_line(path);
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

// A /proc/sys or /proc file of whitespace-separated numbers as a JSON array of numbers
// ("32768\t60999" -> [32768, 60999]); null when the file is missing or holds anything else.
nlohmann::json numbers_or_null(const std::string& path, std::size_t count) {
  std::istringstream in(read_first_line(path));
  nlohmann::json out = nlohmann::json::array();
  for (double v; out.size() < count && in >> v;)
    out.push_back(v == std::floor(v) && std::abs(v) < 9e15 ? nlohmann::json(static_cast<std::int64_t>(v))
                                                           : nlohmann::json(v));
  return out.size() == count ? out : nlohmann::json(nullptr);
}

nlohmann::json number_or_null(const std::string& path) {
  const auto a = numbers_or_null(path, 1);
  return a.is_null() ? a : a[0];
}

// /proc/loadavg: "0.52 0.58 0.59 1/94 21764" -> the three averages and the runnable and
// total scheduling entities at that moment.
nlohmann::json loadavg_or_null() {
  std::istringstream in(read_first_line("/proc/loadavg"));
  double one = 0, five = 0, fifteen = 0;
  long running = 0, total = 0;
  char slash = 0;
  if (!(in >> one >> five >> fifteen >> running >> slash >> total) || slash != '/') return nullptr;
  return {{"avg_1min", one}, {"avg_5min", five}, {"avg_15min", fifteen}, {"runnable", running}, {"tasks", total}};
}

nlohmann::json virtualization() {
  const std::string flags = " " + cpuinfo_field("flags");
  nlohmann::json v;
  v["hypervisor_flag"] = flags.find(" hypervisor") != std::string::npos;
  v["sys_vendor"] = text_or_null("/sys/class/dmi/id/sys_vendor");
  v["product_name"] = text_or_null("/sys/class/dmi/id/product_name");
  v["hypervisor_type"] = text_or_null("/sys/hypervisor/type");
  return v;
}

std::optional<datasets::limit_facts> limit_of(int resource) {
  const auto r = sys::resource_limit(resource);
  if (!r) return std::nullopt;
  return datasets::limit_facts{r->soft, r->hard};
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

std::uint64_t parse_size_text(const std::string& text) {
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (...) {
    return 0;
  }
  const std::string suffix = text.substr(used);
  if (suffix == "K") return v << 10;
  if (suffix == "M") return v << 20;
  if (suffix == "G") return v << 30;
  return suffix.empty() ? v : 0;
}

std::vector<datasets::cache_facts> read_caches(const std::string& cpu_dir) {
  std::vector<datasets::cache_facts> caches;
  for (int i = 0;; ++i) {
    const std::string d = cpu_dir + "/cache/index" + std::to_string(i);
    if (!std::filesystem::exists(d)) break;
    datasets::cache_facts c;
    c.type = read_first_line(d + "/type");
    if (c.type == "Instruction") continue;
    // A level that is not a small number (a broken or unusual sysfs) leaves the cache out
    // rather than stopping the calibration: the caches only shape the model's priors.
    const std::string level = read_first_line(d + "/level");
    const auto [end, ec] = std::from_chars(level.data(), level.data() + level.size(), c.level);
    if (ec != std::errc{} || end != level.data() + level.size() || c.level < 1 || c.level > 9) continue;
    c.size_bytes = parse_size_text(read_first_line(d + "/size"));
    c.line_bytes = parse_size_text(read_first_line(d + "/coherency_line_size"));
    c.shared_cpus = read_first_line(d + "/shared_cpu_list");
    caches.push_back(std::move(c));
  }
  return caches;
}

std::vector<datasets::cache_facts> host_caches(std::string* source) {
  auto caches = read_caches();
  std::string from = "sysfs";
  if (caches.empty()) {
    caches = caches_from_cpuid();
    from = "cpuid";
  }
  if (source) *source = caches.empty() ? "" : from;
  return caches;
}

nlohmann::json capture_context(const sys::nofile_limit& nofile, const timer_facts& timer) {
  nlohmann::json c;
  c["kind"] = datasets::context_kind;
  c["schema_version"] = datasets::schema_version;
  c["time_utc"] = utc_now();
  utsname u{};
  ::uname(&u);
  c["host"] = u.nodename;
  c["kernel"] = u.release;
  c["kernel_version"] = u.version;
  c["machine"] = u.machine;
  c["cpu_model"] = cpuinfo_field("model name");
  c["cpus_online"] = ::sysconf(_SC_NPROCESSORS_ONLN);
  c["cpus_allowed"] = sys::allowed_cpus();
  c["virtualization"] = virtualization();
  c["clocksource"] = text_or_null("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  c["governor"] = text_or_null("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  c["rlimit_nofile"] = {{"soft_at_start", nofile.soft_before}, {"soft", nofile.soft}, {"hard", nofile.hard}};
  std::string source;
  auto caches = host_caches(&source);
  c["caches_source"] = source.empty() ? nlohmann::json(nullptr) : nlohmann::json(source);
  datasets::write_machine_facts(c, {std::move(caches), limit_of(RLIMIT_SIGPENDING), limit_of(RLIMIT_MEMLOCK),
                                    read_cpu_facts(), read_topology(), read_thp(), read_mitigations()});
  c["tool"] = datasets::tool_json(datasets::this_build());
  c["io_uring_disabled"] = number_or_null("/proc/sys/kernel/io_uring_disabled");
  c["pipe_user_pages_soft"] = number_or_null("/proc/sys/fs/pipe-user-pages-soft");
  c["ip_local_port_range"] = numbers_or_null("/proc/sys/net/ipv4/ip_local_port_range", 2);
  c["loadavg_at_start"] = loadavg_or_null();
  c["timer"] = {{"clock", "CLOCK_MONOTONIC"},
                {"overhead_ns", timer.overhead_ns},
                {"resolution_ns", timer.resolution_ns},
                {"min_step_ns", timer.min_step_ns}};
  c["warnings"] = nlohmann::json::array();
  c["skipped"] = nlohmann::json::array();
  return c;
}

}  // namespace pollscale::calibrate
