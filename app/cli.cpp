#include "app/cli.hpp"

#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string_view>
#include <utility>

namespace po = boost::program_options;

namespace pollscale::app {

output_format parse_format(std::string_view text) {
  if (text == "table") return output_format::table;
  if (text == "csv") return output_format::csv;
  if (text == "json") return output_format::json;
  throw usage_error("--format: '" + std::string(text) + "' is not one of table, csv, json");
}

bool parse_command_line(const std::vector<std::string>& args, const po::options_description& opts,
                        const po::positional_options_description& pos, po::variables_map& vm, std::string_view usage,
                        const po::options_description& hidden) {
  try {
    // Boost guesses an unambiguous prefix by default (--scen for --scenario); a later option
    // sharing the prefix would then turn a working command line into an error.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::options_description all;
    all.add(opts).add(hidden);
    po::store(po::command_line_parser(args).options(all).positional(pos).style(style).run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n\n" << opts << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error(e.what());
  }
  return true;
}

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size())
    throw usage_error("--seed: '" + text + "' is not a non-negative integer (0 .. 2^64 - 1)");
  return seed;
}

double parse_duration_s(const std::string& text, const char* flag) {
  static const std::pair<std::string_view, double> units[] = {
      {"ns", 1e-9}, {"us", 1e-6}, {"\u00b5s", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  double scale = 0;
  if (unit.empty()) scale = 1.0;
  for (const auto& [name, factor] : units)
    if (unit == name) scale = factor;
  if (text.empty() || ec != std::errc() || scale == 0 || !std::isfinite(value * scale) || !(value * scale > 0))
    throw usage_error(std::string("--") + flag + ": '" + text +
                      "' is not a duration > 0 (a number of seconds, or with a unit: 2ms, 500us, 800ns)");
  return value * scale;
}

std::vector<std::string> split_list(const std::string& text, const char* flag) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::stringstream ss(text + ",");  // the sentinel makes a trailing comma an empty item
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) throw usage_error(std::string("--") + flag + ": an empty item in '" + text + "'");
    out.push_back(item);
  }
  return out;
}

std::vector<std::int64_t> parse_count_list(const std::string& text, const char* flag) {
  std::vector<std::int64_t> out;
  for (const std::string& item : split_list(text, flag)) {
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc{} || ptr != item.data() + item.size() || v < 1 || v > 1000000)
      throw usage_error(std::string("--") + flag + ": '" + item + "' is not a count in 1..1000000");
    out.push_back(v);
  }
  if (out.empty()) throw usage_error(std::string("--") + flag + ": no counts in '" + text + "'");
  return out;
}

}  // namespace pollscale::app
