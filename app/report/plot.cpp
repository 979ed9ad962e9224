#include "app/report/plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "datasets/atomic_file.hpp"

extern char** environ;

namespace pollscale::app::report {
namespace {

/// gnuplot's string syntax: single quotes, a quote doubled.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

constexpr double log_floor = 0.01;

/// Runs gnuplot on the script with its stderr (warnings such as a one-point range) kept
/// in `log_path`, so that a report run prints only what matters.
int run_gnuplot(const std::string& script_path, const std::string& log_path) {
  const char* argv[] = {"gnuplot", script_path.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, "gnuplot", &actions, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string gnuplot_data(const figure& f) {
  std::ostringstream o;
  o << std::setprecision(10);
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    if (i) o << "\n\n";  // two blank lines separate gnuplot index blocks
    o << "# " << f.series[i].title << "\n";
    for (const auto& p : f.series[i].points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || (f.logx && p.x <= 0) || (f.logy && p.y <= 0)) continue;
      // A log axis cannot show an interval reaching 0: draw it down to 1% of the value.
      const double lo = f.logy ? std::max(p.lo, p.y * log_floor) : p.lo;
      o << p.x << " " << p.y << " " << lo << " " << p.hi << "\n";
    }
  }
  return o.str();
}

std::string gnuplot_script(const figure& f, const std::string& data_file, const std::string& svg_file) {
  std::ostringstream o;
  // noenhanced: names like find_active are text, not subscripts.
  o << "set terminal svg size 980,560 dynamic noenhanced font 'Helvetica,12' background '#ffffff'\n"
    << "set output " << quoted(svg_file) << "\n"
    << "set title " << quoted(f.title) << "\n"
    << "set xlabel " << quoted(f.xlabel) << "\nset ylabel " << quoted(f.ylabel) << "\n"
    << "set key outside right top font ',10'\nset grid\nset style data yerrorlines\n"
    << "set datafile missing 'nan'\n";
  if (f.logx) o << "set logscale x\n";
  if (f.logy) o << "set logscale y\n";
  if (f.series.empty()) return o.str() + "set label 'no data' at graph 0.5, graph 0.5 center\nplot 1/0 notitle\n";
  o << "plot ";
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const auto& s = f.series[i];
    o << (i ? ", \\\n     " : "") << quoted(data_file) << " index " << i << " using 1:2:3:4 title " << quoted(s.title)
      << " with yerrorlines lw 1.5 pt 7 ps 0.5" << (s.dashed ? " dt 2" : "");
  }
  return o.str() + "\n";
}

std::filesystem::path render_svg(const figure& f, const std::filesystem::path& dir) {
  const auto dat = dir / (f.name + ".dat"), gp = dir / (f.name + ".gp"), svg = dir / (f.name + ".svg");
  datasets::write_file_atomically(dat, gnuplot_data(f));
  // The script names files relative to `dir`, so the report folder can be moved.
  datasets::write_file_atomically(
      gp, "cd " + quoted(dir.string()) + "\n" + gnuplot_script(f, f.name + ".dat", f.name + ".svg"));
  const auto log = dir / (f.name + ".log");
  const int rc = run_gnuplot(gp.string(), log.string());
  if (rc != 0)
    throw std::runtime_error("gnuplot failed (exit " + std::to_string(rc) + ") on " + gp.string() +
                             (rc == -1 ? ": is gnuplot installed? (scripts/setup.sh installs gnuplot-nox)"
                                       : "; its messages are in " + log.string()));
  return svg;
}

}  // namespace pollscale::app::report
