// pollscale: measure, model and simulate Linux readiness notification.
// main() owns the one place where exceptions become exit codes.

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/build_info.hpp"
#include "datasets/csv_table.hpp"
#include "datasets/interruption.hpp"
#include "sim/core/stop.hpp"

namespace {

using namespace pollscale::app;

// One line per subcommand, in the order `pollscale --help` lists them.
int cmd_version(const args_t&);

const std::vector<command> commands = {
    {"study", "the main job: calibrate, fit, validate, predict, simulate, report in one folder", cmd_study},
    {"calibrate", "measure this machine's readiness mechanisms into a dataset", cmd_calibrate},
    {"fit", "fit cost models to a dataset and write model.json", cmd_fit},
    {"predict", "predict one operation's cost from model.json, with its interval", cmd_predict},
    {"cells", "list the cells a model.json answers for, and the predict flags that select each", cmd_cells},
    {"validate", "fit on some rows, predict the rest: errors and interval coverage", cmd_validate},
    {"scale", "fit the scalability law to throughput at several thread counts, predict others", cmd_scale},
    {"report", "write report.md + report.html with SVG figures from a dataset", cmd_report},
    {"simulate", "simulate an event-driven server: throughput, latency, CPU, with 95% intervals", cmd_simulate},
    {"whatif", "simulate the same server under several mechanisms or along one swept quantity", cmd_whatif},
    {"capacity", "the most idle connections, clients or request rate that still meet a latency target", cmd_capacity},
    {"compare", "A/B: two calibrations point by point, with verdicts that allow for run-to-run scatter", cmd_compare},
    {"version", "print the version and git hash", cmd_version},
};

int cmd_version(const args_t&) {
  const auto& b = pollscale::datasets::this_build();
  std::cout << "pollscale " << pollscale::datasets::version_text(b) << "\n"
            << b.build_type << " build, " << b.compiler << "\n";
  return exit_ok;
}

void print_help(std::ostream& out) {
  out << "pollscale " << pollscale::datasets::this_build().version
      << " - what waiting for events costs at N descriptors and C CPUs\n\n"
         "usage: pollscale COMMAND [options]    (pollscale COMMAND --help for its options)\n\n"
         "commands:\n";
  for (const auto& c : commands) {
    std::string name(c.name);
    name.resize(12, ' ');
    out << "  " << name << c.summary << "\n";
  }
  out << "\nexit codes: 0 ok, 1 runtime failure, 2 bad usage or bad input, 3 a regression (compare\n"
         "--fail-on-regression), 130 interrupted\n"
         "data goes to stdout; progress and diagnostics to stderr.\n";
}

extern "C" void on_stop_signal(int) {
  pollscale::calibrate::sys::stop_requested.store(true, std::memory_order_relaxed);
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR and see the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a closed peer is reported as EPIPE, not a crash
  // Long reads and fits stop at their next interruption point (datasets/interruption.hpp).
  pollscale::datasets::set_interruption_check([] {
    if (pollscale::calibrate::sys::stop_requested.load(std::memory_order_relaxed))
      throw pollscale::calibrate::sys::interrupted();
  });
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    print_help(std::cerr);
    return exit_bad_input;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_help(std::cout);
    return exit_ok;
  }
  if (name == "--version") return cmd_version({});
  for (const auto& c : commands)
    if (c.name == name) return c.run(args_t(argv + 2, argv + argc));
  throw usage_error("unknown command '" + name + "' (see pollscale --help)");
}

// Data written to stdout is only written once the stream is flushed and closed: a full
// disk, /dev/full or a closed descriptor shows up there, and a command that printed
// nothing usable must not exit 0. A reader that went away (EPIPE: `| head`) is not worth
// a message, but the exit status still says the output is incomplete.
int finish_stdout(int rc) {
  errno = 0;
  std::cout.flush();
  bool bad = !std::cout;
  bad |= std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  const int flush_errno = errno;
  bad |= std::fclose(stdout) != 0;
  if (!bad) return rc;
  const int err = flush_errno ? flush_errno : errno;
  if (err != EPIPE)
    std::cerr << "pollscale: writing to standard output failed: " << (err ? std::strerror(err) : "write error") << "\n";
  return rc == exit_ok ? exit_failure : rc;
}

int run(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const pollscale::datasets::input_error& e) {  // a reader's complaint or a usage_error
    std::cerr << "pollscale: " << e.what() << "\n";
    return exit_bad_input;
  } catch (const pollscale::calibrate::sys::interrupted&) {
    if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";  // a progress line may be drawn
    std::cerr << "pollscale: interrupted\n";
    return exit_interrupted;
  } catch (const pollscale::sim::stopped&) {  // before a first replication was complete
    std::cerr << "pollscale: interrupted before a replication was complete; nothing to report\n";
    return exit_interrupted;
  } catch (const std::exception& e) {
    std::cerr << "pollscale: " << e.what() << "\n";
    return exit_failure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  install_stop_handlers();
  return finish_stdout(run(argc, argv));
}
