// pollscale's report: a folder with report.md, report.html and figures/*.svg, built from a
// calibration dataset plus whatever later stages add (model fits, validation, simulation)
// as extra Markdown sections and figures.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/report/plot.hpp"
#include "datasets/dataset.hpp"

namespace pollscale::app::report {

struct extra_section {
  std::string markdown;         ///< starts with its own "## " heading
  std::vector<figure> figures;  ///< drawn into figures/ and appended to the section
};

/// The headline table: per mechanism and metric (find_active, pipes, 1 ready in the
/// middle, timeout 0), the median at n = 1, at the n closest to 1000 and at the largest
/// n, each with its 95% interval. Columns: mechanism, metric, n=1, n~1000, n_max, at n.
std::vector<std::vector<std::string>> headline_rows(const datasets::dataset& d);

/// Writes the report into `dir` (created if needed); returns the path of report.html.
/// `title` heads the page; `source` names the dataset it came from. The verdict comes
/// first (report/verdict.hpp), with `verdict_lines` (Markdown) added to it.
std::filesystem::path write_report(const datasets::dataset& d, const std::filesystem::path& dir,
                                   const std::string& title, const std::string& source,
                                   const std::vector<extra_section>& extras = {},
                                   const std::string& verdict_lines = "");

}  // namespace pollscale::app::report
