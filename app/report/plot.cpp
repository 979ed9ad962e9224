#include "app/report/plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include "datasets/atomic_file.hpp"
#include "datasets/vocabulary.hpp"

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

// A series title starts with its flavour: "poll", "epoll/et", "read", "epoll simulated".
std::string flavour_of(const std::string& title) { return title.substr(0, title.find(' ')); }
std::string mechanism_of(const std::string& title) { return datasets::split_flavour(flavour_of(title)).mechanism; }

/// Runs gnuplot on the script with its stderr (warnings such as a one-point range) kept
/// in `log_path`, so that a report run prints only what matters.
/// gnuplot runs in `dir`, so the script names its files relative to it and the report
/// folder can be moved or served as it is.
int run_gnuplot(const std::string& dir, const std::string& script_name, const std::string& log_path) {
  const char* argv[] = {"gnuplot", script_name.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
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

namespace {

// A point the figure's axes can show: finite, and positive on a log axis.
bool drawable(const figure& f, const plot_point& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && !(f.logx && p.x <= 0) && !(f.logy && p.y <= 0);
}

// What gnuplot is given: series with at least one drawable point (an empty one only warns
// and takes a legend entry), and a range around x when every point has the same x (a single
// server size, say), which gnuplot would otherwise widen with a warning.
figure plottable(figure f) {
  std::erase_if(f.series, [&](const plot_series& s) {
    return std::none_of(s.points.begin(), s.points.end(), [&](const plot_point& p) { return drawable(f, p); });
  });
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : f.series)
    for (const auto& p : s.points)
      if (drawable(f, p)) {
        lo = std::min(lo, p.x);
        hi = std::max(hi, p.x);
      }
  if (!f.xrange && lo == hi) f.xrange = f.logx ? std::pair(lo / 2, hi * 2) : std::pair(lo - 1, hi + 1);
  return f;
}

}  // namespace

std::string gnuplot_data(const figure& f) {
  std::ostringstream o;
  o << std::setprecision(10);
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    if (i) o << "\n\n";  // two blank lines separate gnuplot index blocks
    o << "# " << f.series[i].title << "\n";
    for (const auto& p : f.series[i].points) {
      if (!drawable(f, p)) continue;
      // A log axis cannot show an interval reaching 0: draw it down to 1% of the value.
      const double lo = f.logy ? std::max(p.lo, p.y * log_floor) : p.lo;
      o << p.x << " " << p.y << " " << lo << " " << p.hi << "\n";
    }
  }
  return o.str();
}

series_style style_of(const std::string& title) {
  const auto [mech, variant_text] = datasets::split_flavour(flavour_of(title));
  using datasets::mechanism;
  // One colour per mechanism in every figure; the *p variants a lighter shade of theirs.
  static const std::pair<mechanism, const char*> colours[] = {
      {mechanism::select, "#1f77b4"},   {mechanism::pselect, "#6baed6"}, {mechanism::poll, "#2ca02c"},
      {mechanism::ppoll, "#8fd17f"},    {mechanism::epoll, "#d62728"},   {mechanism::rtsig, "#9467bd"},
      {mechanism::io_uring, "#ff7f0e"}, {mechanism::devpoll, "#8c564b"}, {mechanism::poll2, "#e377c2"},
      {mechanism::kqueue, "#17becf"}};
  series_style s{"#7f7f7f", 7};  // the plain read (no mechanism) and anything else: grey circles
  if (const auto m = datasets::parse<mechanism>(mech))
    for (const auto& [key, colour] : colours)
      if (key == *m) s.colour = colour;
  using datasets::variant;
  const auto v = datasets::parse<variant>(variant_text);
  if (v == variant::et) s.point_type = 5;          // filled square
  if (v == variant::oneshot) s.point_type = 9;     // filled triangle
  if (v == variant::multishot) s.point_type = 11;  // filled triangle down
  if (v == variant::exclusive) s.point_type = 13;  // filled diamond
  return s;
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
  if (f.xrange) o << "set xrange [" << f.xrange->first << ":" << f.xrange->second << "]\n";
  if (f.yrange) o << "set yrange [" << f.yrange->first << ":" << f.yrange->second << "]\n";
  if (f.extrapolated_from)
    o << "set object 1 rect from first " << *f.extrapolated_from
      << ", graph 0 to graph 1, graph 1 behind fillcolor rgb '#eeeeee' fillstyle solid noborder\n"
      << "set label 1 'extrapolated' at first " << *f.extrapolated_from << ", graph 0.97 offset 0.5,0 font ',10'\n";
  if (f.series.empty()) return o.str() + "set label 'no data' at graph 0.5, graph 0.5 center\nplot 1/0 notitle\n";
  o << "plot ";
  // A flavour's colour and point type are fixed; when a figure shows one flavour several
  // times (per CPU placement, say), the repeats get open points and their own dash.
  std::map<std::pair<std::string, int>, int> seen;
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const auto& s = f.series[i];
    const series_style st = style_of(s.title);
    const int repeat = seen[{st.colour, st.point_type}]++;
    const int point = repeat ? st.point_type - 1 : st.point_type;  // gnuplot: odd filled, the even before it open
    const int dash = s.dashed ? 2 : repeat ? 3 + (repeat - 1) % 3 : 1;
    o << (i ? ", \\\n     " : "") << quoted(data_file) << " index " << i;
    if (s.band) {  // the band first, behind its line; one legend entry, the line's
      o << " using 1:3:4 notitle with filledcurves fc rgb " << quoted(st.colour)
        << " fs transparent solid 0.15 noborder, \\\n     " << quoted(data_file) << " index " << i
        << " using 1:2 title " << quoted(s.title) << " with lines lw 1.5 lc rgb " << quoted(st.colour) << " dt 2";
      continue;
    }
    o << " using 1:2:3:4 title " << quoted(s.title) << " with yerrorlines lw 1.5 lc rgb " << quoted(st.colour) << " pt "
      << point << " ps 0.5 dt " << dash;
  }
  return o.str() + "\n";
}

namespace {

// The range every panel shares: the points and their intervals, padded a little (by a
// factor on a log axis), what gnuplot would choose for the whole figure.
std::optional<std::pair<double, double>> shared_range(const figure& f, bool x) {
  double lo = INFINITY, hi = -INFINITY;
  const bool log = x ? f.logx : f.logy;
  for (const auto& s : f.series)
    for (const auto& p : s.points) {
      const double a = x ? p.x : (log ? std::max(p.lo, p.y * log_floor) : p.lo), b = x ? p.x : p.hi;
      for (double v : {a, b, x ? p.x : p.y})
        if (std::isfinite(v) && (!log || v > 0)) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
    }
  if (!(lo <= hi)) return std::nullopt;
  if (log) return std::pair(lo / 1.5, hi * 1.5);
  const double pad = hi > lo ? (hi - lo) * 0.05 : std::max(std::abs(lo) * 0.05, 1.0);
  return std::pair(lo - pad, hi + pad);
}

}  // namespace

std::vector<figure> small_multiples(const figure& f, std::size_t max_series) {
  if (f.series.size() <= max_series || max_series == 0) return {f};
  // The series of each mechanism (measured and predicted alike), in order of first
  // appearance; whole mechanisms per panel, and one with more series than a panel holds
  // fills panels of its own.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const std::string m = mechanism_of(f.series[i].title);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == m; });
    if (g == groups.end()) g = groups.insert(groups.end(), {m, {}});
    g->second.push_back(i);
  }
  std::vector<std::vector<std::size_t>> panels(1);
  for (const auto& [m, members] : groups) {
    if (!panels.back().empty() && panels.back().size() + std::min(members.size(), max_series) > max_series)
      panels.emplace_back();
    for (std::size_t k : members) {
      if (panels.back().size() == max_series) panels.emplace_back();
      panels.back().push_back(k);
    }
  }
  std::vector<figure> out;
  const auto xr = shared_range(f, true), yr = shared_range(f, false);
  for (std::size_t p = 0; p < panels.size(); ++p) {
    figure g{f.name + "_" + std::to_string(p + 1),
             f.title,
             f.xlabel,
             f.ylabel,
             f.logx,
             f.logy,
             {},
             xr,
             yr,
             f.extrapolated_from};
    std::vector<std::string> mechanisms;
    for (std::size_t k : panels[p]) {
      g.series.push_back(f.series[k]);
      const std::string m = mechanism_of(f.series[k].title);
      if (std::find(mechanisms.begin(), mechanisms.end(), m) == mechanisms.end()) mechanisms.push_back(m);
    }
    std::string names;
    for (const auto& m : mechanisms) names += (names.empty() ? "" : ", ") + m;
    g.title += " (" + std::to_string(p + 1) + " of " + std::to_string(panels.size()) + ": " + names + ")";
    out.push_back(std::move(g));
  }
  return out;
}

std::filesystem::path render_svg(const figure& whole, const std::filesystem::path& dir) {
  const figure f = plottable(whole);
  const auto dat = dir / (f.name + ".dat"), gp = dir / (f.name + ".gp"), svg = dir / (f.name + ".svg");
  datasets::write_file_atomically(dat, gnuplot_data(f));
  // The script names files relative to `dir` (gnuplot runs there): the folder can move.
  datasets::write_file_atomically(gp, gnuplot_script(f, f.name + ".dat", f.name + ".svg"));
  const auto log = std::filesystem::absolute(dir / (f.name + ".log"));
  const int rc = run_gnuplot(std::filesystem::absolute(dir).string(), f.name + ".gp", log.string());
  if (rc != 0)
    throw std::runtime_error("gnuplot failed (exit " + std::to_string(rc) + ") on " + gp.string() +
                             (rc == -1 ? ": is gnuplot installed? (scripts/setup.sh installs gnuplot-nox)"
                                       : "; its messages are in " + log.string()));
  std::error_code ec;
  if (std::filesystem::file_size(log, ec) == 0 && !ec) std::filesystem::remove(log, ec);  // nothing to say
  return svg;
}

}  // namespace pollscale::app::report
