#include "app/cli.hpp"

#include <iostream>
#include <sstream>

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

}  // namespace pollscale::app
