#include "app/capacity_efficiency_option.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>

#include "app/cli.hpp"
#include "app/table_writer.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

// The corpus's estimate, in the source tree this pollscale was built from.
constexpr const char* default_file = POLLSCALE_SOURCE_DIR "/datasets/machines/capacity_efficiency.json";

}  // namespace

void add_capacity_efficiency_option(po::options_description& o, const char* what_it_does) {
  o.add_options()("capacity-efficiency", arg<std::string>("FILE|none")->default_value(default_file),
                  (std::string("what each doubling of the CPUs delivers beyond the narrowest series on the corpus's "
                               "machines (scripts/corpus_capacity.py writes it): ") +
                   what_it_does + "; none: the capacity bound as C/c0 times the narrowest series")
                      .c_str());
}

std::optional<model::capacity_efficiency> capacity_efficiency_wanted(const po::variables_map& vm,
                                                                     std::string_view command,
                                                                     const std::string& statistic) {
  const std::string file = vm["capacity-efficiency"].as<std::string>();
  if (file.empty()) throw usage_error("--capacity-efficiency: empty; a file, or none");
  if (file == "none") return std::nullopt;
  const bool defaulted = vm["capacity-efficiency"].defaulted();
  if (defaulted && !std::filesystem::exists(file)) {
    std::cerr << "pollscale " << command << ": no capacity efficiency: " << file
              << " is not there (--capacity-efficiency FILE); wider machines' capacity bound is C/c0 times the "
                 "narrowest series\n";
    return std::nullopt;
  }
  model::capacity_efficiency e = model::read_capacity_efficiency(file, statistic);
  // The corpus's own file is named as the tree names it, not where this tree was built.
  if (defaulted) e.source = "datasets/machines/capacity_efficiency.json";
  return e;
}

std::string capacity_efficiency_text(const model::capacity_efficiency& e) {
  return "wider machines' capacity bound as the corpus's machines deliver it: x" +
         format_number(std::exp(e.log_mean), 3) + " a doubling of the CPUs, log sd " + format_number(e.log_sd, 3) +
         " (" + std::to_string(e.rows) + " rows as " + e.statistic + " of " + std::to_string(e.hosts) + " hosts, " +
         e.estimated + ", " + e.source + "; fit or scale --capacity-efficiency none: leave it out)";
}

}  // namespace pollscale::app
