#include "datasets/schema.hpp"
#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

namespace pollscale::datasets {
namespace {

constexpr std::array<std::string_view, 14> key_column_names = {
    "scenario", "mechanism", "variant", "fd_kind", "n_fds",   "n_active", "active_pos",
    "max_fd",   "blocking",  "threads", "cpus",    "pinning", "metric",   "unit"};
constexpr std::array<std::string_view, 8> unit_names = {"ns", "us", "ms", "s", "1/s", "1/ms", "B", "1"};

bool contains(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The names of the vocabulary's values that pass `keep`, in declaration order.
template <class E, class Keep>
std::vector<std::string_view> names_of(Keep keep) {
  std::vector<std::string_view> out;
  for (E e : all<E>())
    if (keep(e)) out.push_back(name(e));
  return out;
}

std::optional<std::int64_t> parse_count(std::string_view column, std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t v = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || ptr != end || v < 0)
    throw std::invalid_argument("column '" + std::string(column) + "': '" + std::string(text) +
                                "' is not a non-negative integer");
  return v;
}

std::string count_text(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string{}; }

void check_name(std::string_view column, std::string_view text, bool ok) {
  if (!text.empty() && !ok)
    throw std::invalid_argument("column '" + std::string(column) + "': unknown name '" + std::string(text) + "'");
}

}  // namespace

std::span<const std::string_view> key_columns() { return key_column_names; }
std::span<const std::string_view> measured_mechanisms() {
  static const auto names = names_of<mechanism>([](mechanism m) { return traits(m).measured_here; });
  return names;
}
std::span<const std::string_view> historical_mechanisms() {
  static const auto names = names_of<mechanism>([](mechanism m) { return !traits(m).measured_here; });
  return names;
}
std::span<const std::string_view> fd_kinds() {
  static const auto names = names_of<fd_kind>([](fd_kind) { return true; });
  return names;
}
std::span<const std::string_view> units() { return unit_names; }

bool is_known_mechanism(std::string_view n) { return parse<mechanism>(n).has_value(); }
bool is_known_fd_kind(std::string_view n) { return parse<fd_kind>(n).has_value(); }
bool is_known_unit(std::string_view n) { return contains(unit_names, n); }

std::string key_field(const key& k, std::string_view c) {
  if (c == "scenario") return k.scenario;
  if (c == "mechanism") return k.mechanism;
  if (c == "variant") return k.variant;
  if (c == "fd_kind") return k.fd_kind;
  if (c == "n_fds") return count_text(k.n_fds);
  if (c == "n_active") return count_text(k.n_active);
  if (c == "active_pos") return k.active_pos;
  if (c == "max_fd") return count_text(k.max_fd);
  if (c == "blocking") return count_text(k.blocking);
  if (c == "threads") return count_text(k.threads);
  if (c == "cpus") return count_text(k.cpus);
  if (c == "pinning") return k.pinning;
  if (c == "metric") return k.metric;
  if (c == "unit") return k.unit;
  throw std::invalid_argument("unknown key column '" + std::string(c) + "'");
}

void set_key_field(key& k, std::string_view c, std::string_view t) {
  const std::string s(t);
  if (c == "mechanism") check_name(c, t, is_known_mechanism(t));
  if (c == "fd_kind") check_name(c, t, is_known_fd_kind(t));
  if (c == "unit") check_name(c, t, is_known_unit(t));
  if (c == "scenario")
    k.scenario = s;
  else if (c == "mechanism")
    k.mechanism = s;
  else if (c == "variant")
    k.variant = s;
  else if (c == "fd_kind")
    k.fd_kind = s;
  else if (c == "n_fds")
    k.n_fds = parse_count(c, t);
  else if (c == "n_active")
    k.n_active = parse_count(c, t);
  else if (c == "active_pos")
    k.active_pos = s;
  else if (c == "max_fd")
    k.max_fd = parse_count(c, t);
  else if (c == "blocking")
    k.blocking = parse_count(c, t);
  else if (c == "threads")
    k.threads = parse_count(c, t);
  else if (c == "cpus")
    k.cpus = parse_count(c, t);
  else if (c == "pinning")
    k.pinning = pinning::parse(s).text();
  else if (c == "metric")
    k.metric = s;
  else if (c == "unit")
    k.unit = s;
  else
    throw std::invalid_argument("unknown key column '" + std::string(c) + "'");
  if (c == "blocking" && k.blocking && *k.blocking > 1)
    throw std::invalid_argument("column 'blocking': '" + s + "' is not 0 or 1");
}

namespace {

// The units that are a time or a rate: their factor to seconds (or per second) and which
// they are. One list for to_si_factor, is_time_unit and is_rate_unit.
struct time_or_rate {
  std::string_view name;
  double si_factor;
  bool time;
};
constexpr time_or_rate times_and_rates[] = {{"ns", 1e-9, true}, {"us", 1e-6, true},  {"ms", 1e-3, true},
                                            {"s", 1.0, true},   {"1/s", 1.0, false}, {"1/ms", 1e3, false}};

const time_or_rate* find_time_or_rate(std::string_view unit) {
  for (const auto& u : times_and_rates)
    if (u.name == unit) return &u;
  return nullptr;
}

}  // namespace

double to_si_factor(std::string_view unit) {
  if (const auto* u = find_time_or_rate(unit)) return u->si_factor;
  throw std::invalid_argument("unit '" + std::string(unit) + "' is neither a time nor a rate");
}

bool is_time_unit(std::string_view unit) {
  const auto* u = find_time_or_rate(unit);
  return u && u->time;
}

bool is_rate_unit(std::string_view unit) {
  const auto* u = find_time_or_rate(unit);
  return u && !u->time;
}

std::string describe(const key& k) {
  std::string out = k.scenario + "/" + (k.mechanism.empty() ? "-" : k.mechanism);
  if (!k.variant.empty()) out += "/" + k.variant;
  if (!k.fd_kind.empty()) out += "/" + k.fd_kind;
  if (k.n_fds) out += " n=" + std::to_string(*k.n_fds);
  if (k.n_active) out += " k=" + std::to_string(*k.n_active);
  if (!k.active_pos.empty()) out += " pos=" + k.active_pos;
  if (k.max_fd) out += " maxfd=" + std::to_string(*k.max_fd);
  if (k.blocking) out += *k.blocking ? " blocking" : " t0";
  if (!k.pinning.empty()) out += " cpu=" + k.pinning;
  out += " " + k.metric;
  return out;
}

}  // namespace pollscale::datasets
