#include "app/report/plot.hpp"

#include <spawn.h>
#include <sys/wait.h>

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

int run_gnuplot(const std::string& script_path) {
  const char* argv[] = {"gnuplot", script_path.c_str(), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "gnuplot", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
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
    for (const auto& p : f.series[i].points)
      if (std::isfinite(p.x) && std::isfinite(p.y)) o << p.x << " " << p.y << " " << p.lo << " " << p.hi << "\n";
  }
  return o.str();
}

std::string gnuplot_script(const figure& f, const std::string& data_file, const std::string& svg_file) {
  std::ostringstream o;
  o << "set terminal svg size 820,520 dynamic enhanced font 'Helvetica,12' background '#ffffff'\n"
    << "set output " << quoted(svg_file) << "\n"
    << "set title " << quoted(f.title) << "\n"
    << "set xlabel " << quoted(f.xlabel) << "\nset ylabel " << quoted(f.ylabel) << "\n"
    << "set key outside right top\nset grid\nset style data yerrorlines\n"
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
  datasets::write_file_atomically(gp, "cd " + quoted(dir.string()) + "\n" +
                                          gnuplot_script(f, f.name + ".dat", f.name + ".svg"));
  const int rc = run_gnuplot(gp.string());
  if (rc != 0)
    throw std::runtime_error("gnuplot failed (exit " + std::to_string(rc) + ") on " + gp.string() +
                             (rc == -1 ? ": is gnuplot installed? (scripts/setup.sh installs gnuplot-nox)" : ""));
  return svg;
}

}  // namespace pollscale::app::report
