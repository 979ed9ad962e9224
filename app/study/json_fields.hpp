// Reading a field of a step's JSON output for the report, where a missing step, field or
// value is normal and shows as NaN ("-" when printed) or "", never as an exception.
#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace pollscale::app::study {

/// The field as a number; NaN when `j` is not an object, or the field is absent or not a number.
inline double num(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

/// The field as text: a string as it is, any other value as its JSON ("42", "true"); "" when
/// `j` is not an object or the field is absent or null.
inline std::string text(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

/// Whether a key or row written as JSON is of one thread (its threads absent or 1), as
/// datasets::one_thread says of a key: the textbook call the report compares.
inline bool one_thread(const nlohmann::json& key_or_row) {
  const std::string t = text(key_or_row, "threads");
  return t.empty() || t == "1";
}

}  // namespace pollscale::app::study
