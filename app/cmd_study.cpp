// pollscale study: the default main job. Calibrate this machine (quick profile), fit the
// cost models, validate them (extrapolation and interpolation on this machine, the
// historical record), predict beyond the descriptor limit, simulate a server, and write
// the report — every step's output kept in one folder, listed in study.json.

#include <ctime>
#include <iostream>
#include <optional>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/report/report.hpp"
#include "app/study/crossover.hpp"
#include "app/study/fitted_section.hpp"
#include "app/study/predictions.hpp"
#include "app/study/run_step.hpp"
#include "app/study/scaling_section.hpp"
#include "app/study/sections.hpp"
#include "app/study/verdict_lines.hpp"
#include "app/table_writer.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/build_info.hpp"
#include "datasets/csv_table.hpp"
#include "datasets/dataset.hpp"
#include "datasets/json_file.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pollscale::app {
namespace {

using nlohmann::json;

struct study_plan {
  fs::path out, dataset, historical;
  bool calibrate = true;
  bool force = false;  ///< replace a dataset an earlier study left in `out`
  std::string profile = "--quick";
  std::string seed = "1";
  std::int64_t active = 8;
};

std::string utc_stamp(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

po::options_description study_options() {
  po::options_description o("study options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")("out,o", arg<std::string>("DIR"),
                                              "study folder (default out/study-<UTC time>)")(
      "quick", "calibrate with the quick profile (default, ~1-3 min)")(
      "full", "calibrate with the full profile (<= 30 min)")("data", arg<std::string>("DATASET"),
                                                             "use this existing dataset instead of calibrating (positional)")(
      "historical", arg<std::string>("DIR")->default_value(POLLSCALE_SOURCE_DIR "/datasets/historical",
                                                               "the sources' datasets/historical"),
      "directory of historical CSVs to validate against")("active", arg<std::int64_t>("N")->default_value(8),
                                                          "closed-loop clients of the simulated server")(
      "seed", arg<std::string>("N")->default_value("1"), "seed for calibration positions and simulation")(
      "force", "replace the dataset an earlier study left in the folder (without it such a folder is refused)");
  // clang-format on
  return o;
}

study_plan make_plan(const po::variables_map& vm) {
  if (vm.count("quick") && vm.count("full")) throw usage_error("--quick and --full exclude each other");
  if (vm.count("data") && (vm.count("quick") || vm.count("full")))
    throw usage_error("--data uses an existing dataset: --quick/--full do not apply");
  study_plan p;
  p.out = vm.count("out") ? fs::path(vm["out"].as<std::string>()) : fs::path(utc_stamp("out/study-%Y%m%d-%H%M%S"));
  p.calibrate = !vm.count("data");
  p.dataset = p.calibrate ? p.out / "dataset" : fs::path(vm["data"].as<std::string>());
  if (!p.calibrate && !fs::is_directory(p.dataset))
    throw usage_error("--data: '" + p.dataset.string() + "' is not a dataset directory");
  p.force = vm.count("force") > 0;
  if (p.calibrate && !p.force && fs::exists(p.dataset / "summary.csv"))
    throw usage_error("--out: '" + p.out.string() + "' already holds a study's dataset (--force replaces it)");
  p.historical = vm["historical"].as<std::string>();
  p.profile = vm.count("full") ? "--full" : "--quick";
  p.seed = std::to_string(parse_seed(vm["seed"].as<std::string>()));
  p.active = vm["active"].as<std::int64_t>();
  if (p.active < 1) throw usage_error("--active: '" + std::to_string(p.active) + "' is not a positive integer");
  return p;
}

// A step's JSON output, or null when the step left none (or something unreadable).
json read_json_or_null(const fs::path& p) {
  if (!fs::exists(p)) return nullptr;
  try {
    return datasets::read_json_file(p);
  } catch (const datasets::input_error&) {
    return nullptr;
  }
}

// From summary.csv alone: the samples (tens of MB) are read by the steps that need them.
// Whether the dataset has CPU-scaling rows, and whether any of them ran on two CPUs or more
// (a one-CPU series then has wider series to be judged against).
struct scaling_rows {
  bool any = false, wider = false;
};
scaling_rows has_scaling_rows(const fs::path& dataset) {
  scaling_rows out;
  for (const auto& r : datasets::parse_summaries(datasets::read_csv(dataset / "summary.csv"))) {
    const auto s = datasets::parse<datasets::scenario>(r.k.scenario);
    if (!s || !datasets::scales_with_threads(*s)) continue;
    out.any = true;
    out.wider = out.wider || r.k.cpus.value_or(1) >= 2;
  }
  return out;
}

// The CPU-scaling law on this machine's producers, private_sets, private_processes, shared_epoll and accept_herd rows
// (fitted on one and two threads), their wider series from the one-CPU series (where any ran
// on two CPUs or more), and the published stress-epoll tables (each on its smaller half).
void scaling_steps(const study_plan& p, std::vector<study::step_result>& steps) {
  const fs::path v = p.out / "validation";
  const scaling_rows rows = has_scaling_rows(p.dataset);
  if (rows.any)
    steps.push_back(study::run_step("scale (this machine)", "scale", cmd_scale,
                                    {p.dataset.string(), "--train", "n_fds<=2", "--at", "16,64", "--format", "json"},
                                    v / "scaling.json"));
  if (rows.wider)
    steps.push_back(study::run_step("scale (wider, from one CPU)", "scale", cmd_scale,
                                    {p.dataset.string(), "--from-cpus", "1", "--format", "json"},
                                    v / "scaling_wider.json"));
  if (fs::is_directory(p.historical / "scaling"))
    steps.push_back(study::run_step("scale (published)", "scale", cmd_scale,
                                    {(p.historical / "scaling").string(), "--at", "256", "--format", "json"},
                                    v / "scaling_published.json"));
}

std::vector<study::step_result> model_steps(const study_plan& p) {
  const std::string d = p.dataset.string(), v = (p.out / "validation").string();
  fs::create_directories(p.out / "validation");
  std::vector<study::step_result> steps;
  steps.push_back(
      study::run_step("fit", "fit", cmd_fit, {d, "-o", (p.out / "model.json").string()}, p.out / "fit.txt"));
  const auto validate = [&](const std::string& name, std::vector<std::string> args, const std::string& file) {
    args.insert(args.end(), {"--format", "json"});
    steps.push_back(study::run_step(name, "validate", cmd_validate, args, fs::path(v) / file));
  };
  validate("validate (extrapolation)", {d, "--train", "n_fds<=1000"}, "extrapolation.json");
  validate("validate (interpolation)", {d, "--train", "n_rank%2==0 || n_fds==max || n_active>1"}, "interpolation.json");
  validate("validate (historical)",
           {p.historical.string(), "--train", "n_fds<max", "--group-by",
            "source,platform,kernel,scenario,mechanism,variant,metric"},
           "historical.json");
  scaling_steps(p, steps);
  steps.push_back(study::run_step("simulate a server (whatif)", "whatif", cmd_whatif,
                                  {(p.out / "model.json").string(), "--mechanisms", "poll,epoll", "--sweep",
                                   "idle=0,100,1000,10000,100000,1000000", "--active", std::to_string(p.active),
                                   "--fd-kind", "tcp", "--duration", "1", "--seed", p.seed, "--format", "json"},
                                  p.out / "whatif.json"));
  return steps;
}

// What the study adds to the verdict at the top of the report (app/study/verdict_lines.hpp),
// from the files its steps wrote; sections come after (study_sections).
std::string study_verdict(const study_plan& p, const std::optional<model::model_set>& models) {
  const auto v = p.out / "validation";
  const std::string crossover = models ? study::crossover_verdict(*models) : "";
  return study::accuracy_verdict(read_json_or_null(v / "extrapolation.json"),
                                 read_json_or_null(v / "interpolation.json")) +
         crossover + study::beyond_limit_verdict(read_json_or_null(p.out / "predictions.json")) +
         study::scaling_verdict(read_json_or_null(v / "scaling.json"), read_json_or_null(v / "scaling_wider.json")) +
         study::server_verdict(read_json_or_null(p.out / "whatif.json"));
}

// `models`: the study's model.json as read once (absent when the fit step wrote none).
std::vector<report::extra_section> study_sections(const study_plan& p, const datasets::dataset& d,
                                                  const std::optional<model::model_set>& models) {
  std::vector<report::extra_section> extras;
  if (const auto m = read_json_or_null(p.out / "model.json"); !m.is_null()) extras.push_back(study::model_section(m));
  if (models) extras.push_back(study::fitted_curves_section(*models, d));
  const auto v = p.out / "validation";
  if (const auto j = read_json_or_null(v / "extrapolation.json"); !j.is_null())
    extras.push_back(study::validation_section("Extrapolation on this machine",
                                               "Fitted on n ≤ 1000, every larger n predicted (up to the limit).", j,
                                               "study_extrapolation", &d));
  if (const auto j = read_json_or_null(v / "interpolation.json"); !j.is_null())
    extras.push_back(study::validation_section("Interpolation on this machine",
                                               "Every other n held out inside each cell's measured range.", j, ""));
  if (const auto j = read_json_or_null(v / "historical.json"); !j.is_null())
    extras.push_back(study::validation_section(
        "The historical record", "Each seed table fitted on its smaller n, its largest n predicted.", j, ""));
  std::vector<study::scaling_run> scaling;
  if (const auto j = read_json_or_null(v / "scaling.json"); !j.is_null())
    scaling.push_back({"This machine",
                       "Fitted on one and two threads (producers, private_sets, private_processes, shared_epoll, "
                       "accept_herd); three to eight "
                       "predicted, and 16 and 64.",
                       j, "study_scaling"});
  if (const auto j = read_json_or_null(v / "scaling_published.json"); !j.is_null())
    scaling.push_back({"Published stress-epoll tables",
                       "Each table fitted on its smaller half of N, the larger half predicted, and 256.", j,
                       "study_scaling_published"});
  extras.push_back(study::scaling_section(scaling, read_json_or_null(v / "scaling_wider.json")));
  if (models) {
    const auto predictions = study::predict_beyond(*models, datasets::text(datasets::fd_kind::pipe), {100000, 1000000});
    datasets::write_file_atomically(
        p.out / "predictions.json",
        stamped(output_kind::predictions_beyond, {{"predictions", predictions}}).dump(2) + "\n");
    extras.push_back(study::predictions_section(predictions));
  }
  if (const auto j = read_json_or_null(p.out / "whatif.json"); !j.is_null())
    extras.push_back(study::simulation_section(j, d, p.active));
  return extras;
}

void write_manifest(const study_plan& p, const std::vector<study::step_result>& steps, const std::string& status) {
  json s = json::array();
  for (const auto& st : steps) s.push_back(study::step_json(st, p.out));
  const json manifest = stamped(output_kind::study, {{"version", datasets::version_text(datasets::this_build())},
                                                     {"tool", datasets::tool_json(datasets::this_build())},
                                                     {"time_utc", utc_stamp("%Y-%m-%dT%H:%M:%SZ")},
                                                     {"dataset", p.dataset.string()},
                                                     {"status", status},
                                                     {"steps", s}});
  datasets::write_file_atomically(p.out / "study.json", manifest.dump(2) + "\n");
}

void print_steps(const std::vector<study::step_result>& steps, const study_plan& p) {
  text_table t{{"step", "status", "seconds", "output"}, {}, {false, false, true, false}};
  for (const auto& s : steps)
    t.rows.push_back({s.name, s.ok() ? "ok" : "failed (" + std::to_string(s.exit_code) + ")",
                      format_number(s.wall_s, 3), s.output.empty() ? "" : fs::relative(s.output, p.out).string()});
  write_table(std::cout, t);
}

}  // namespace

int cmd_study(const args_t& args) {
  const auto opts = study_options();
  po::positional_options_description pos;
  pos.add("data", 1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm, "usage: pollscale study [DATASET | --quick | --full] [-o DIR]"))
    return exit_ok;
  const study_plan p = make_plan(vm);
  fs::create_directories(p.out);
  std::vector<study::step_result> steps;
  try {
    if (p.calibrate) {
      std::vector<std::string> calibrate_args{p.profile,  "--out", p.dataset.string(), "--seed", p.seed,
                                              "--format", "csv"};
      if (p.force) calibrate_args.emplace_back("--force");
      steps.push_back(
          study::run_step("calibrate", "calibrate", cmd_calibrate, calibrate_args, p.out / "calibration.csv"));
      if (!fs::exists(p.dataset / "summary.csv"))
        throw std::runtime_error("calibration wrote no dataset: " + steps.back().error);
    }
    for (auto& s : model_steps(p)) steps.push_back(std::move(s));
  } catch (const calibrate::sys::interrupted&) {
    write_manifest(p, steps, "interrupted");
    throw;
  }
  const auto d = datasets::read_dataset(p.dataset);
  std::optional<model::model_set> models;
  if (fs::exists(p.out / "model.json")) models = model::load_model(p.out / "model.json");
  const auto sections = study_sections(p, d, models);  // first: it writes predictions.json, which the verdict reads
  const auto html = report::write_report(d, p.out / "report", "pollscale study", p.dataset.string(), sections,
                                         study_verdict(p, models));
  const bool all_ok = std::all_of(steps.begin(), steps.end(), [](const auto& s) { return s.ok(); });
  write_manifest(p, steps, all_ok ? "ok" : "some steps failed");
  print_steps(steps, p);
  std::cerr << "pollscale study: report " << html.string() << ", manifest " << (p.out / "study.json").string() << "\n";
  return all_ok ? exit_ok : exit_failure;
}

}  // namespace pollscale::app
