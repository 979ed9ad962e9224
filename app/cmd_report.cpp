// pollscale report: turn a dataset into report.md + report.html with SVG figures; with
// --model, the fitted curves and the model's crossover too.

#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/report/report.hpp"
#include "app/study/crossover.hpp"
#include "app/study/fitted_section.hpp"
#include "model/prediction.hpp"

namespace po = boost::program_options;

namespace pollscale::app {

int cmd_report(const args_t& args) {
  po::options_description o("report options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")("data", arg<std::string>("PATH")->required(),
                                              "calibration dataset directory")(
      "out,o", arg<std::string>("DIR")->required(), "report directory (report.md, report.html, figures/)")(
      "title", arg<std::string>("TEXT")->default_value("pollscale report"), "page title")(
      "model", arg<std::string>("FILE"),
      "model.json fitted on this dataset (pollscale fit): adds the fitted curves with their 95% prediction bands "
      "and the model's poll/epoll crossover to the verdict");
  // clang-format on
  po::positional_options_description pos;
  pos.add("data", 1);
  po::variables_map vm;
  if (!parse_command_line(args, o, pos, vm, "usage: pollscale report DATASET --out DIR [--model MODEL]"))
    return exit_ok;
  const std::string data = vm["data"].as<std::string>();
  const auto d = datasets::read_dataset(data);
  std::vector<report::extra_section> extras;
  std::string verdict;
  if (vm.count("model")) {
    // The same figure and verdict line as the study's (app/study/), so a report made from a
    // dataset and its model answers as the study's report does.
    const std::string model_path = vm["model"].as<std::string>();
    const auto models = model::load_model(model_path);
    if (models.context != d.context)  // allowed (another host's model against this data), but said
      std::cerr << "pollscale report: warning: " << model_path << " was fitted on " << models.source << ", not on "
                << data << " (their contexts differ): its curves are drawn against points "
                << "it was not fitted on\n";
    extras.push_back(study::fitted_curves_section(models, d, "fitted_curves"));
    verdict = study::crossover_verdict(models);
  }
  const auto html =
      report::write_report(d, vm["out"].as<std::string>(), vm["title"].as<std::string>(), data, extras, verdict);
  std::cerr << "pollscale: report written to " << html.string() << "\n";
  return exit_ok;
}

}  // namespace pollscale::app
