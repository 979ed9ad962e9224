// pollscale report: turn a dataset into report.md + report.html with SVG figures.

#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/report/report.hpp"

namespace po = boost::program_options;

namespace pollscale::app {

int cmd_report(const args_t& args) {
  po::options_description o("report options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")("data", arg<std::string>("PATH")->required(),
                                              "calibration dataset directory")(
      "out,o", arg<std::string>("DIR")->required(), "report directory (report.md, report.html, figures/)")(
      "title", arg<std::string>("TEXT")->default_value("pollscale report"), "page title");
  // clang-format on
  po::positional_options_description pos;
  pos.add("data", 1);
  po::variables_map vm;
  if (!parse_command_line(args, o, pos, vm, "usage: pollscale report DATASET --out DIR")) return exit_ok;
  const std::string data = vm["data"].as<std::string>();
  const auto d = datasets::read_dataset(data);
  const auto html = report::write_report(d, vm["out"].as<std::string>(), vm["title"].as<std::string>(), data);
  std::cerr << "pollscale: report written to " << html.string() << "\n";
  return exit_ok;
}

}  // namespace pollscale::app
