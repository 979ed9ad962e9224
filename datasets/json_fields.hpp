// Tolerant field reads for the typed views of context.json (machine_facts, run_facts,
// host_record): a block that is not an object, a missing field and a field of the wrong
// type all read as "nothing", so that a context from an older pollscale or a hand edit
// keeps what is readable instead of failing.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace pollscale::datasets {

/// block[name], or a null value when `block` is not an object or has no such field.
inline const nlohmann::json& member(const nlohmann::json& block, const char* name) {
  static const nlohmann::json none;
  return block.is_object() && block.contains(name) ? block[name] : none;
}

/// The field's text; "" when it is not a string.
inline std::string text_at(const nlohmann::json& block, const char* name) {
  const nlohmann::json& v = member(block, name);
  return v.is_string() ? v.get<std::string>() : std::string();
}

/// The field's number; nullopt when it is not a number.
inline std::optional<double> number_at(const nlohmann::json& block, const char* name) {
  const nlohmann::json& v = member(block, name);
  return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

/// The field as a count; nullopt unless it is a number from 0 to 2^53 (checked before the
/// cast: a count beyond 2^53 is no count, and its cast would be undefined).
inline std::optional<std::size_t> count_at(const nlohmann::json& block, const char* name) {
  const auto v = number_at(block, name);
  if (!v || !(*v >= 0) || *v > 9007199254740992.0) return std::nullopt;
  return static_cast<std::size_t>(*v);
}

/// The field as a count > 0, for the strict readers of the corpus's files (between_runs.json,
/// capacity_efficiency.json); throws std::invalid_argument naming the field and its value
/// otherwise.
inline std::size_t positive_count_at(const nlohmann::json& block, const char* name) {
  const auto v = count_at(block, name);
  if (!v || *v == 0)
    throw std::invalid_argument(std::string(name) + " " + member(block, name).dump() + " is not a count > 0");
  return *v;
}

}  // namespace pollscale::datasets
