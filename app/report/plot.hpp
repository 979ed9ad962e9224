// Figures drawn by gnuplot: we write the data and a script, gnuplot writes the SVG.
// Points carry their 95% interval, drawn as error bars, because a number without its
// spread is not a measurement.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pollscale::app::report {

struct plot_point {
  double x = 0, y = 0, lo = 0, hi = 0;  ///< lo/hi: the 95% interval of y
};

struct plot_series {
  std::string title;
  std::vector<plot_point> points;  ///< drawn in the given order
  bool dashed = false;             ///< e.g. predictions, as opposed to measurements
  /// A fitted curve: a dashed line through y with [lo, hi] shaded in its colour as a band
  /// (a prediction band), no points or error bars.
  bool band = false;
};

struct figure {
  std::string name;  ///< file stem: <name>.svg, <name>.dat, <name>.gp
  std::string title, xlabel, ylabel;
  bool logx = true, logy = true;
  std::vector<plot_series> series;
  /// Axis ranges shared by the panels of one split figure (small_multiples); gnuplot's
  /// own choice when absent.
  std::optional<std::pair<double, double>> xrange = std::nullopt, yrange = std::nullopt;
  /// x from which the figure shows predictions beyond the data the model was fitted on:
  /// that region is shaded and labelled "extrapolated".
  std::optional<double> extrapolated_from = std::nullopt;
};

/// A figure with more than `max_series` series as several panels of at most that many,
/// each holding whole mechanisms (by the series titles' first word, as style_of reads
/// them) where they fit, all on the same axes so that panels compare; one figure unchanged.
std::vector<figure> small_multiples(const figure& f, std::size_t max_series = 6);

/// How a series is drawn: its mechanism's colour in every figure, its variant's point type
/// (lt and no variant: circle; et: square; oneshot: triangle; multishot: triangle down).
struct series_style {
  std::string colour;  ///< "#rrggbb"
  int point_type = 7;  ///< gnuplot pt, a filled one (odd)
};

/// The style of the series titled `title`, read from its first word ("epoll/et", "poll").
series_style style_of(const std::string& title);

/// The gnuplot script that draws `f` from `data_file` into `svg_file`.
std::string gnuplot_script(const figure& f, const std::string& data_file, const std::string& svg_file);

/// The data file: one block per series (gnuplot `index`), columns x y lo hi. On a log
/// axis, points at or below 0 are left out and an interval reaching 0 is drawn down to
/// 1% of its value.
std::string gnuplot_data(const figure& f);

/// Writes <dir>/<name>.dat and .gp, runs gnuplot, returns the SVG's path. Throws
/// std::runtime_error naming gnuplot when it is missing or fails.
std::filesystem::path render_svg(const figure& f, const std::filesystem::path& dir);

}  // namespace pollscale::app::report
