// pollscale calibrate: measure this machine into a dataset directory.

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/progress_reporter.hpp"
#include "app/summary_view.hpp"
#include "calibrate/calibration.hpp"
#include "calibrate/context.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/file_lock.hpp"
#include "calibrate/sys/process.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

constexpr std::size_t reserved_fds = 32;  // stdio, dataset files, the keeper's socket...

std::vector<calibrate::flavour> parse_mechanisms(const std::string& text) {
  std::vector<calibrate::flavour> out;
  const auto items = split_list(text, "mechanisms");
  for (calibrate::mechanism m : calibrate::all_mechanisms)
    for (auto v : calibrate::variants_of(m)) {
      const std::string label = calibrate::flavour{m, std::string(v)}.label();
      const bool wanted = items.empty() || std::find_if(items.begin(), items.end(), [&](const std::string& i) {
                                             return i == label || i == calibrate::name_of(m);
                                           }) != items.end();
      if (wanted) out.push_back({m, std::string(v)});
    }
  for (const auto& i : items) {
    const bool known = std::any_of(out.begin(), out.end(), [&](const calibrate::flavour& f) {
      return f.label() == i || std::string(calibrate::name_of(f.mech)) == i;
    });
    if (!known)
      throw usage_error(
          "--mechanisms: unknown mechanism '" + i +
          "' (select, pselect, poll, ppoll, epoll[/lt|/et|/oneshot], rtsig, io_uring[/oneshot|/multishot])");
  }
  return out;
}

std::vector<std::int64_t> parse_n_list(const std::string& text) {
  std::vector<std::int64_t> out;
  for (const auto& item : split_list(text, "n")) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used != item.size() || v < 1) throw usage_error("--n: '" + item + "' is not a positive integer");
    out.push_back(v);
  }
  if (out.empty()) throw usage_error("--n: empty list");
  return out;
}

std::string default_out_dir() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "out/calibrate-%Y%m%d-%H%M%S", &tm);
  return buf;
}

/// The points a profile plans on the machine its timings describe — two CPUs and the
/// 20000-descriptor hard limit of the VMs pollscale is developed on — counted from the plan
/// itself, so that --help (and the man page made from it) cannot fall behind a grid change.
/// Another machine plans more or fewer (thread series follow its CPUs, n its limit):
/// --list counts them there.
std::size_t points_on_reference_vm(calibrate::profile_kind profile) {
  constexpr std::size_t reference_nofile = 20000;
  calibrate::calibration_request req;
  req.sel.profile = profile;
  req.sel.max_fds = reference_nofile - reserved_fds;
  req.sel.cpus = {0, 1};
  req.mechs = parse_mechanisms("");
  return calibrate::plan(req).size();
}

po::options_description calibrate_options() {
  using calibrate::profile_kind;
  const std::string on_vm = " points on a 2-vCPU VM with 20000 descriptors (--list counts this machine's)";
  const std::string quick =
      "the quick profile (default): every mechanism and scenario, >= 6 n values, " +
      std::to_string(points_on_reference_vm(profile_kind::quick)) + on_vm +
      ", with 3 visits 2.0-2.8 min there (4.3 in a slow spell of the host), and up to a quarter more "
      "where visits disagree (--max-visits)";
  const std::string full = "the full campaign: every fd kind, k, position and threshold, " +
                           std::to_string(points_on_reference_vm(profile_kind::full)) + on_vm +
                           ", with 3 visits 12-24 min there";
  po::options_description o("calibrate options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")(
      "quick", quick.c_str())(
      "full", full.c_str())(
      "scenarios", arg<std::string>("LIST")->default_value(""), "comma list of scenarios (default: all; see --list)")(
      "mechanisms", arg<std::string>("LIST")->default_value(""),
      "comma list: select, pselect, poll, ppoll, epoll, epoll/lt, epoll/et, epoll/oneshot, rtsig, io_uring, "
      "io_uring/oneshot, io_uring/multishot (default: all)")(
      "n", arg<std::string>("N"), "comma list of descriptor counts replacing each probe's n grid")(
      "out,o", arg<std::string>("DIR"), "dataset directory (default out/calibrate-<UTC time>); created and "
      "checked for writing before anything is measured")(
      "force", "replace a dataset already in --out (without it such a directory is refused)")(
      "seed", arg<std::string>("N")->default_value("1"), "seed for random active positions and the order of every round")(
      "max-seconds-per-point", arg<double>("SECONDS"), "time cap for one point's repetitions (quick 0.25, full 2)")(
      "rounds", arg<int>("N")->default_value(3),
      "visits per point: the whole plan is measured R times, each round in a new seeded random order, each "
      "visit with a fresh set-up, and every point's 95% interval is built from the spread between its visits "
      "(a shared VM's speed drifts for seconds at a time); 1 gives the old single visit with an interval from "
      "its batches alone (1-100)")(
      "max-visits", arg<int>("N")->default_value(8),
      "after the rounds, a point whose visits disagree (their median uncertain by more than 4%) is visited "
      "again, with fresh set-ups, until they agree or it has N visits, within a quarter of the rounds' time "
      "and the profile's budget (quick 3 min, full 30); "
      "N <= --rounds turns this off (1-100)")(
      "format", arg<std::string>("FORMAT")->default_value("table"), "summary on stdout: table, csv or json")(
      "list", "print the points that would be measured, measure nothing")(
      "no-progress", "no progress line on stderr even when it is a terminal");
  // clang-format on
  return o;
}

calibrate::calibration_request make_request(const po::variables_map& vm, const calibrate::timer_facts& timer,
                                            const calibrate::sys::nofile_limit& lim) {
  if (vm.count("quick") && vm.count("full")) throw usage_error("--quick and --full exclude each other");
  calibrate::calibration_request req;
  req.sel.profile = vm.count("full") ? calibrate::profile_kind::full : calibrate::profile_kind::quick;
  if (vm.count("n")) req.sel.n_override = parse_n_list(vm["n"].as<std::string>());
  req.sel.max_fds = lim.soft > reserved_fds ? lim.soft - reserved_fds : 0;
  req.sel.cpus = calibrate::sys::allowed_cpus();
  req.sel.seed = parse_seed(vm["seed"].as<std::string>());
  req.scenarios = split_list(vm["scenarios"].as<std::string>(), "scenarios");
  for (const auto& s : req.scenarios)
    if (!calibrate::find_probe(s)) throw usage_error("--scenarios: unknown scenario '" + s + "' (see --list)");
  req.mechs = parse_mechanisms(vm["mechanisms"].as<std::string>());
  req.runner = calibrate::options_for(req.sel.profile, timer);
  if (vm.count("max-seconds-per-point")) {
    const double s = vm["max-seconds-per-point"].as<double>();
    if (!(s > 0 && s <= 600))
      throw usage_error("--max-seconds-per-point: '" + std::to_string(s) + "' is not in (0, 600]");
    req.runner.max_s_per_point = s;
  }
  req.rounds = vm["rounds"].as<int>();
  if (req.rounds < 1 || req.rounds > 100)
    throw usage_error("--rounds: '" + std::to_string(req.rounds) + "' is not in 1..100");
  req.settle.max_visits = vm["max-visits"].as<int>();
  req.settle.budget_s = calibrate::profile_budget_s(req.sel.profile);
  if (req.settle.max_visits < 1 || req.settle.max_visits > 100)
    throw usage_error("--max-visits: '" + std::to_string(req.settle.max_visits) + "' is not in 1..100");
  req.out = vm.count("out") ? vm["out"].as<std::string>() : default_out_dir();
  return req;
}

// Where the dataset goes is checked before anything is measured: a directory that cannot
// be created or written, that another calibration is writing into, or that already holds
// a dataset would otherwise cost the whole run at its end (or silently mix or replace
// runs). The lock is taken before the look for a dataset, so that of two runs started at
// once one is refused. Returns the lock, held until the dataset is written.
calibrate::sys::file_lock prepare_out_dir(const std::filesystem::path& out, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out))
    throw usage_error("--out: cannot create directory '" + out.string() + "'" + (ec ? ": " + ec.message() : ""));
  pid_t holder = 0;
  std::optional<calibrate::sys::file_lock> lock;
  try {
    lock = calibrate::sys::file_lock::try_acquire(out / ".pollscale.lock", &holder);
  } catch (const std::system_error& e) {
    throw usage_error("--out: '" + out.string() + "' is not writable: " + e.what());
  }
  if (!lock)
    throw usage_error("--out: '" + out.string() + "' is being written by another calibration" +
                      (holder ? " (pid " + std::to_string(holder) + ")" : std::string()) +
                      "; wait for it or choose another --out");
  const bool holds_dataset = fs::exists(out / "context.json", ec) || fs::exists(out / "summary.csv", ec) ||
                             fs::exists(out / "samples.csv", ec);
  if (holds_dataset && !force)
    throw usage_error("--out: '" + out.string() + "' already holds a dataset (--force replaces it)");
  return std::move(*lock);
}

int list_points(const calibrate::calibration_request& req) {
  for (const auto& p : calibrate::plan(req)) std::cout << datasets::describe(p.key) << "\n";
  return exit_ok;
}

/// One line: where the run's seconds went (calibrate/time_ledger.hpp), so that a user whose
/// quick run took longer than its budget sees whether set-ups or samples grew.
void print_time_split(std::ostream& err, const calibrate::calibration_outcome& outcome) {
  const auto& time = outcome.data.context["calibration"]["time"];
  if (!time.is_object() || !time.contains("probes") || outcome.wall_s <= 0) return;
  double setup = 0, prepare = 0, measure = 0;
  for (const auto& p : time.at("probes")) {
    setup += p.at("setup_s").get<double>();
    prepare += p.at("prepare_s").get<double>();
    measure += p.at("measure_s").get<double>();
  }
  // Whole seconds for a real run; a run of a second or less (a few points) in two
  // significant digits rather than a row of zeros.
  const auto secs = [](double s) {
    if (std::abs(s) >= 9.5) return std::to_string(static_cast<long long>(std::llround(s)));
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", std::abs(s) < 5e-4 ? 0.0 : s);
    return std::string(text);
  };
  err << "pollscale: of " << secs(outcome.wall_s) << " s, set-ups " << secs(setup) << " s, batch sizing and warm-up "
      << secs(prepare) << " s, samples " << secs(measure) << " s, the rest "
      << secs(outcome.wall_s - setup - prepare - measure) << " s (context.json calibration.time)\n";
}

}  // namespace

int cmd_calibrate(const args_t& args) {
  const auto opts = calibrate_options();
  po::variables_map vm;
  if (!parse_command_line(
          args, opts, {}, vm,
          "usage: pollscale calibrate [--quick|--full] [--scenarios S,..] [--mechanisms M,..] [--n N,..] [--out DIR]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  const auto lim = calibrate::sys::raise_nofile_limit();
  const auto timer = calibrate::measure_timer();
  auto req = make_request(vm, timer, lim);
  if (vm.count("list")) return list_points(req);
  const auto lock = prepare_out_dir(req.out, vm.count("force") > 0);
  std::cerr << "pollscale: calibrating (" << (vm.count("full") ? "full" : "quick") << ") into " << req.out.string()
            << "; RLIMIT_NOFILE " << lim.soft << " (hard " << lim.hard << "), timer read " << timer.overhead_ns
            << " ns\n";
  stderr_reporter report(!vm.count("no-progress") && ::isatty(STDERR_FILENO));
  req.report = &report;
  const auto outcome = calibrate::run_calibration(req, calibrate::capture_context(lim, timer));
  print_summaries(std::cout, outcome.data.summaries, outcome.data.consistency, format);
  std::cerr << "pollscale: " << outcome.measured << " points measured, " << outcome.skipped << " skipped, "
            << outcome.failed << " failed of " << outcome.planned << " in " << outcome.wall_s << " s; dataset in "
            << req.out.string() << "\n";
  print_time_split(std::cerr, outcome);
  if (outcome.interrupted) return exit_interrupted;
  if (outcome.measured == 0 && outcome.planned > 0) {
    // A dataset of skips answers nothing: say so rather than succeed (ulimit -n 16 did).
    std::cerr << "pollscale: nothing was measured: every planned point was skipped or failed (the reasons are "
                 "under \"skipped\" and \"failures\" in "
              << (req.out / "context.json").string() << ")\n";
    return exit_failure;
  }
  return outcome.failed ? exit_failure : exit_ok;
}

}  // namespace pollscale::app
