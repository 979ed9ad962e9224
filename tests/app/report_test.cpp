// The report from a small synthetic dataset: files exist, figures are SVG drawn by
// gnuplot, the headline table holds the planted medians, Markdown renders to HTML tables.

#include "app/report/report.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "app/report/calibration_figures.hpp"
#include "app/report/markdown.hpp"
#include "tests/app/run_command.hpp"

namespace pollscale::app::report {
namespace {

namespace fs = std::filesystem;

datasets::dataset synthetic() {
  datasets::dataset d;
  d.context = {{"schema_version", 1},
               {"host", "test"},
               {"caches", nlohmann::json::array()},
               {"warnings", {"a warning"}},
               {"skipped", {{{"point", "x"}, {"reason", "no fasync"}}}}};
  for (const char* mech : {"poll", "epoll"})
    for (std::int64_t n : {1, 1000, 19000}) {
      datasets::key k;
      k.scenario = "find_active";
      k.mechanism = mech;
      k.variant = std::string(mech) == "epoll" ? "lt" : "";
      k.fd_kind = "pipe";
      k.n_fds = n;
      k.n_active = 1;
      k.active_pos = "middle";
      k.blocking = 0;
      k.metric = "time_per_call";
      k.unit = "ns";
      const double v = std::string(mech) == "poll" ? 150.0 + 30.0 * static_cast<double>(n) : 290.0;
      for (int i = 0; i < 5; ++i) d.samples.push_back({k, i, v * (1 + 0.001 * i), 1, 0, {}, {}});
    }
  d.summaries = datasets::summarise_samples(d.samples);
  return d;
}

TEST(ReportTest, WritesMarkdownHtmlAndSvgFigures) {
  const fs::path dir = fs::temp_directory_path() / ("pollscale_report_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto html = write_report(synthetic(), dir, "test report", "synthetic");
  ASSERT_TRUE(fs::exists(html));
  const std::string md = test::slurp((dir / "report.md").string());
  EXPECT_NE(md.find("| poll | time_per_call | 180.4 [180.0, 180.7]"), std::string::npos) << md;  // 180 x 1.002
  EXPECT_NE(md.find("(n=19000)"), std::string::npos);
  EXPECT_NE(md.find("skipped 1 point(s): no fasync"), std::string::npos);
  const std::string svg = test::slurp((dir / "figures" / "find_active_call_pipe.svg").string());
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(test::slurp(html.string()).find("<table>"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportTest, SeriesGroupByLabelAndSortByN) {
  const auto d = synthetic();
  const auto s = series_by(
      d.summaries, [](const datasets::key&) { return true; }, flavour_label);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].title, "epoll/lt");
  EXPECT_EQ(s[1].points.size(), 3u);
  EXPECT_LT(s[1].points[0].x, s[1].points[2].x);
}

TEST(ReportTest, MarkdownTablesEscapeAndRender) {
  const std::string t = md_table({"a", "b"}, {{"x|y", "1"}});
  EXPECT_NE(t.find("x\\|y"), std::string::npos);
  const std::string h = markdown_to_html(t);
  EXPECT_NE(h.find("<td>x|y</td>"), std::string::npos) << h;
}

}  // namespace
}  // namespace pollscale::app::report
