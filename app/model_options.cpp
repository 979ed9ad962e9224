#include "app/model_options.hpp"

#include <charconv>

#include "app/cli.hpp"

namespace po = boost::program_options;

namespace pollscale::app {

po::options_description model_fit_options_description() {
  po::options_description o("model options");
  o.add_options()
      ("family", po::value<std::string>()->default_value("mechanistic"),
       "candidate forms: mechanistic (kernel terms; Extra-P for unknown metrics) or extra-p (n^i log^j n for all)")
      ("bootstrap", po::value<long long>()->default_value(0),
       "bootstrap replicates for prediction intervals (0: analytic Student t intervals)")
      ("seed", po::value<std::string>()->default_value("1"), "seed of the bootstrap (a non-negative integer)")
      ("no-huber", "plain relative least squares, no Huber downweighting of outliers")
      ("skip-unfittable", "leave out cells with too few points for their form instead of failing");
  return o;
}

model::fit_options fit_options_from(const po::variables_map& vm) {
  model::fit_options o;
  const std::string fam = vm["family"].as<std::string>();
  if (fam == "mechanistic") o.fam = model::family::mechanistic;
  else if (fam == "extra-p" || fam == "extra_p") o.fam = model::family::extra_p;
  else throw usage_error("--family: '" + fam + "' is not one of mechanistic, extra-p");
  const long long reps = vm["bootstrap"].as<long long>();
  if (reps < 0 || reps > 100000) throw usage_error("--bootstrap: " + std::to_string(reps) + " is not in 0..100000");
  o.bootstrap_replicates = static_cast<std::size_t>(reps);
  const std::string seed = vm["seed"].as<std::string>();
  const auto [ptr, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), o.seed);
  if (seed.empty() || ec != std::errc{} || ptr != seed.data() + seed.size())
    throw usage_error("--seed: '" + seed + "' is not a non-negative integer");
  o.robust.huber = vm.count("no-huber") == 0;
  o.skip_unfittable = vm.count("skip-unfittable") > 0;
  return o;
}

}  // namespace pollscale::app
