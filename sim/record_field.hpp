// One field of a simulator input record (the workload, the server's configuration) as users
// spell it: its key in a file and in every answer's JSON, its command-line flag and help,
// and how a value sets and reads it. Each record keeps one table of these, and every place
// that names a field walks that table — the flags (app/sim_options), the workload file's
// reader, the JSON writers, the quantities a sweep or a search may vary — so a field is
// named once, where the record is defined.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pollscale::sim {

/// A value out of range in a record, naming its field by its key ("rate_per_s"), so that a
/// command line can name the flag and a file its key.
struct field_error : std::invalid_argument {
  field_error(std::string field_key, std::string what_is_wrong)
      : std::invalid_argument(field_key + ": " + what_is_wrong),
        key(std::move(field_key)),
        detail(std::move(what_is_wrong)) {}
  std::string key;     ///< the field's key
  std::string detail;  ///< what is wrong, without the key
};

/// How a field's value is written: an integer, a number, text (a distribution or a kind),
/// or a group of the fields whose keys start with its key and a dot (one JSON object).
enum class field_form { integer, number, text, group };

template <typename Record>
struct record_field {
  std::string_view key;           ///< in files and JSON; a member of a group: "generator.wakeup"
  std::string_view flag;          ///< without "--"; empty: only in files
  std::string_view value_name;    ///< in --help: N, DIST, KIND, PER_SECOND
  std::string_view flag_default;  ///< the flag's default as text; empty: the record's own
  std::string_view help;
  field_form form;
  /// Sets the field from a JSON value; throws std::invalid_argument saying what is wrong
  /// with the value (without the key).
  void (*set)(Record&, const nlohmann::json&);
  /// The value as JSON: null when unset; a discarded value where this record does not use
  /// the field (rate_per_s of closed arrivals), which the JSON writers leave out.
  nlohmann::json (*get)(const Record&);
  /// Where a search of this quantity starts unless told (capacity's --lo): the least value
  /// that makes a server (idle 0, active 1, rate 1 request/s).
  double search_from = 0;

  /// Whether a sweep or a search may vary it (an integer or a number).
  bool quantity() const { return form == field_form::integer || form == field_form::number; }
};

/// The field of that key, or of that flag, in `fields`; nullptr when none.
template <typename Record>
const record_field<Record>* field_by_key(std::span<const record_field<Record>> fields, std::string_view key) {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}
template <typename Record>
const record_field<Record>* field_by_flag(std::span<const record_field<Record>> fields, std::string_view flag) {
  if (flag.empty()) return nullptr;
  for (const auto& f : fields)
    if (f.flag == flag) return &f;
  return nullptr;
}

/// Sets `f` from a flag's text, parsed by the field's form (an integer strictly, a number
/// finite, text as it is). Throws std::invalid_argument saying what is wrong (without the flag).
template <typename Record>
void set_from_text(Record& r, const record_field<Record>& f, const std::string& text) {
  const char* const end = text.data() + text.size();
  switch (f.form) {
    case field_form::integer: {
      std::int64_t n = 0;
      const auto [stop, ec] = std::from_chars(text.data(), end, n);
      if (text.empty() || ec != std::errc() || stop != end)
        throw std::invalid_argument("'" + text + "' is not an integer");
      f.set(r, nlohmann::json(n));
      return;
    }
    case field_form::number: {
      double x = 0;
      const auto [stop, ec] = std::from_chars(text.data(), end, x);
      if (text.empty() || ec != std::errc() || stop != end || !std::isfinite(x))
        throw std::invalid_argument("'" + text + "' is not a finite number");
      f.set(r, nlohmann::json(x));
      return;
    }
    case field_form::text:
    case field_form::group: f.set(r, nlohmann::json(text)); return;
  }
}

/// An integer JSON value within [lo, hi]; throws std::invalid_argument otherwise.
inline std::int64_t integer_value(const nlohmann::json& v, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer()) throw std::invalid_argument("expected an integer");
  // An unsigned beyond int64 would wrap in get<std::int64_t>().
  const bool huge = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  const std::int64_t n = huge ? hi : v.get<std::int64_t>();
  if (huge || n < lo || n > hi)
    throw std::invalid_argument(v.dump() + " is not in " + std::to_string(lo) + ".." + std::to_string(hi));
  return n;
}

/// What a field's `get` returns where the record does not use it: writers leave it out.
inline nlohmann::json unused_field() { return nlohmann::json(nlohmann::json::value_t::discarded); }

/// The record as a JSON object by its fields' keys; a group's members go inside the group's
/// object, and fields whose `get` is unused_field() are left out.
template <typename Record>
nlohmann::json fields_json(std::span<const record_field<Record>> fields, const Record& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : fields) {
    nlohmann::json v = f.get(r);
    if (v.is_discarded()) continue;
    const auto dot = f.key.find('.');
    if (dot == std::string_view::npos)
      j[std::string(f.key)] = std::move(v);
    else  // a group's member: the group, listed before it, is an object here
      j[std::string(f.key.substr(0, dot))][std::string(f.key.substr(dot + 1))] = std::move(v);
  }
  return j;
}

}  // namespace pollscale::sim
