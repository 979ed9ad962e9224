#include "app/model_options.hpp"

#include <charconv>
#include <iostream>

#include "app/cli.hpp"

namespace po = boost::program_options;

namespace pollscale::app {

po::options_description model_fit_options_description() {
  po::options_description o("model options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()
      ("statistic", arg<std::string>("STAT")->default_value("median"),
       "what to fit and validate against in a calibration dataset: median (the typical cost, interference "
       "included), fastest (the fastest batch: the intrinsic cost) or adjusted (the median with every visit "
       "brought to the run's fast mode by the drift sentinel)")
      ("family", arg<std::string>("FAMILY")->default_value("mechanistic"),
       "candidate forms: mechanistic (kernel terms; Extra-P for unknown metrics) or extra-p (n^i log^j n for all)")
      ("bootstrap", arg<long long>("N")->default_value(0),
       "bootstrap replicates for prediction intervals (0: analytic Student t intervals)")
      ("seed", arg<std::string>("N")->default_value("1"), "seed of the bootstrap (a non-negative integer)")
      ("no-huber", "plain relative least squares, no Huber downweighting of outliers")
      ("curvature-min-n", arg<long long>("N")->default_value(0),
       "distinct n a curvature term (n log n, n^1.5, n^2, ...) needs before it may compete (0: no minimum)")
      ("curvature-margin", arg<double>("FRACTION")->default_value(0),
       "how far (fraction, 0..1) a curvature term's leave-one-out error must lie below the best straight form's")
      ("step-height", arg<std::string>("FROM")->default_value("streaming"),
       "the height of a timeout-0 scan's step past L2 over pipes and eventfds: streaming (144 B at 15 GB/s) or "
       "measured (the cold_scan probe's figure where the dataset has it; better on one corpus host, worse on another)")
      ("strict", "fail on a cell with too few points for its form instead of leaving it out");
  // clang-format on
  return o;
}

po::options_description model_fit_older_options() {
  po::options_description o;
  o.add_options()("skip-unfittable", "the default since --strict exists; accepted so older scripts keep working");
  return o;
}

void report_left_out(std::string_view command, const std::vector<std::string>& left_out) {
  if (left_out.empty()) return;
  std::cerr << "pollscale " << command << ": left out " << left_out.size()
            << (left_out.size() == 1 ? " cell or row" : " cells or rows")
            << " that could not be fitted or predicted (the first: " << left_out.front()
            << "); all are listed under \"skipped\" in the JSON output; --strict fails instead\n";
}

model::fit_options fit_options_from(const po::variables_map& vm) {
  model::fit_options o;
  const std::string fam = vm["family"].as<std::string>();
  if (fam == "mechanistic")
    o.fam = model::family::mechanistic;
  else if (fam == "extra-p" || fam == "extra_p")
    o.fam = model::family::extra_p;
  else
    throw usage_error("--family: '" + fam + "' is not one of mechanistic, extra-p");
  const long long reps = vm["bootstrap"].as<long long>();
  if (reps < 0 || reps > 100000) throw usage_error("--bootstrap: " + std::to_string(reps) + " is not in 0..100000");
  o.bootstrap_replicates = static_cast<std::size_t>(reps);
  o.seed = parse_seed(vm["seed"].as<std::string>());
  o.robust.huber = vm.count("no-huber") == 0;
  try {
    o.statistic = model::parse_point_statistic(vm["statistic"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--statistic: ") + e.what());
  }
  const long long min_n = vm["curvature-min-n"].as<long long>();
  if (min_n < 0 || min_n > 1000)
    throw usage_error("--curvature-min-n: " + std::to_string(min_n) + " is not in 0..1000");
  o.curvature_min_distinct_n = static_cast<std::size_t>(min_n);
  const double margin = vm["curvature-margin"].as<double>();
  if (!(margin >= 0 && margin < 1))
    throw usage_error("--curvature-margin: " + std::to_string(margin) + " is not in [0, 1)");
  o.curvature_margin = margin;
  const std::string step = vm["step-height"].as<std::string>();
  if (step != "measured" && step != "streaming")
    throw usage_error("--step-height: '" + step + "' is not one of measured, streaming");
  o.measured_step = step == "measured";
  if (vm.count("strict") && vm.count("skip-unfittable"))
    throw usage_error("--strict: contradicts --skip-unfittable; give one");
  o.skip_unfittable = vm.count("strict") == 0;
  return o;
}

}  // namespace pollscale::app
