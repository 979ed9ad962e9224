// The report from a small synthetic dataset: files exist, figures are SVG drawn by
// gnuplot, the headline table holds the planted medians, Markdown renders to HTML tables.

#include "app/report/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/report/calibration_figures.hpp"
#include "app/report/conditions.hpp"
#include "app/report/markdown.hpp"
#include "tests/app/run_command.hpp"
#include "tests/scratch_dir.hpp"

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
      for (int i = 0; i < 5; ++i) d.samples.push_back({k, i, v * (1 + 0.001 * i), 1, 0, {}, {}, {}, {}});
    }
  d.summaries = datasets::summarise_samples(d.samples);
  return d;
}

TEST(ReportTest, WritesMarkdownHtmlAndSvgFigures) {
  const test::scratch_dir scratch("report");
  const fs::path dir = scratch.path() / "report";  // write_report makes it
  const auto html = write_report(synthetic(), dir, "test report", "synthetic");
  ASSERT_TRUE(fs::exists(html));
  const std::string md = test::slurp((dir / "report.md").string());
  EXPECT_NE(md.find("| poll | time_per_call | 180.4 [180.0, 180.7]"), std::string::npos) << md;  // 180 x 1.002
  EXPECT_NE(md.find("(n=19000)"), std::string::npos);
  EXPECT_NE(md.find("skipped 1 point(s): no fasync"), std::string::npos);
  // The answer comes first: the verdict before the machine and the evidence.
  EXPECT_LT(md.find("## Verdict"), md.find("## Machine")) << md;
  EXPECT_NE(md.find("**Use epoll from n = 1000**"), std::string::npos) << md;
  const std::string svg = test::slurp((dir / "figures" / "find_active_call_pipe.svg").string());
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(test::slurp(html.string()).find("<table>"), std::string::npos);
}

// Calls measured in a process of two threads (a parked sibling: calibrate's find_active) are
// their own figure, one thread and two side by side; the headline table, the verdict and the
// cross-mechanism figures keep to one thread, and a dataset without them has no such figure.
TEST(ReportTest, TwoThreadCallsGetTheirOwnFigureAndStayOutOfTheRest) {
  datasets::dataset d = synthetic();
  const auto alone = calibration_figures(d);
  EXPECT_TRUE(
      std::none_of(alone.begin(), alone.end(), [](const figure& f) { return f.name == "find_active_threads_pipe"; }));
  std::vector<datasets::sample_row> two;
  for (auto s : d.samples) {
    s.k.threads = 2;
    s.k.pinning = "0+0";
    s.value *= 2;  // a shared descriptor table: every lookup takes a reference
    two.push_back(s);
  }
  d.samples.insert(d.samples.end(), two.begin(), two.end());
  d.summaries = datasets::summarise_samples(d.samples);
  const auto figures = calibration_figures(d);
  std::map<std::string, const figure*> by_name;
  for (const auto& f : figures) by_name[f.name] = &f;
  ASSERT_TRUE(by_name.count("find_active_threads_pipe"));
  std::set<std::string> titles;
  for (const auto& s : by_name["find_active_threads_pipe"]->series) {
    titles.insert(s.title);
    EXPECT_EQ(s.points.size(), 3u) << s.title;
  }
  EXPECT_EQ(titles, (std::set<std::string>{"epoll/lt, one thread", "epoll/lt, two threads", "poll, one thread",
                                           "poll, two threads"}));
  ASSERT_TRUE(by_name.count("find_active_call_pipe"));
  for (const auto& s : by_name["find_active_call_pipe"]->series) {
    ASSERT_EQ(s.points.size(), 3u) << s.title;  // one thread's points only
    if (s.title == "poll") {
      EXPECT_NEAR(s.points[1].y, 150 + 30 * 1000, 0.01 * (150 + 30 * 1000));
    }
  }
  const test::scratch_dir scratch("report_two");
  const fs::path dir = scratch.path() / "report";  // write_report makes it
  write_report(d, dir, "test report", "synthetic");
  const std::string md = test::slurp((dir / "report.md").string());
  EXPECT_NE(md.find("| poll | time_per_call | 180.4 [180.0, 180.7]"), std::string::npos) << md;
  EXPECT_NE(md.find("**Use epoll from n = 1000**"), std::string::npos) << md;
}

// The cold_scan probe's figure, when the dataset has it: one row of the machine section,
// the excess a descriptor per fd kind (here planted: pipes 26 ns warm, 40 cold).
TEST(ReportTest, TheMachineSectionSaysWhatADescriptorPaysPastL2) {
  datasets::dataset d = synthetic();
  d.context["cold_scan"] = {{"evict_bytes", 4 << 20}};
  for (const char* variant : {"", "cold"})
    for (std::int64_t n : {500, 1000}) {
      datasets::key k;
      k.scenario = "cold_scan";
      k.mechanism = "poll";
      k.variant = variant;
      k.fd_kind = "pipe";
      k.n_fds = n;
      k.n_active = 0;
      k.blocking = 0;
      k.metric = "time_per_call";
      k.unit = "ns";
      const double v = 2000 + (*variant ? 40.0 : 26.0) * static_cast<double>(n);
      for (int i = 0; i < 5; ++i) d.samples.push_back({k, i, v, 1, 0, {}, {}, {}, {}});
    }
  d.summaries = datasets::summarise_samples(d.samples);
  const test::scratch_dir scratch("report_l2");
  const fs::path dir = scratch.path() / "report";  // write_report makes it
  write_report(d, dir, "test report", "synthetic");
  const std::string md = test::slurp((dir / "report.md").string());
  EXPECT_NE(
      md.find("| past L2 | pipe +14.0 ns a descriptor (cold_scan: a timeout-0 poll over 500-1000 descriptors after "
              "reading 4 MiB"),
      std::string::npos)
      << md;
  // Without the probe there is no such row.
  const fs::path plain = dir.string() + "_plain";
  write_report(synthetic(), plain, "test report", "synthetic");
  EXPECT_EQ(test::slurp((plain / "report.md").string()).find("past L2"), std::string::npos);
}

// How steady the machine was: each sentinel's verdict read from the context, the in-run
// references, and both series over the run relative to their p10 — a regime shows as a
// step; a dataset without sentinels says it has no record.
TEST(ReportTest, TheSentinelsSayHowSteadyTheMachineWas) {
  datasets::dataset d = synthetic();
  EXPECT_NE(conditions_section(d).markdown.find("no record of the machine's stability"), std::string::npos);
  EXPECT_FALSE(conditions_section(d).series.has_value());
  for (int i = 0; i < 100; ++i) {
    d.sentinel.push_back({0.5 * i, 2800.0, 36});
    if (i % 2 == 0) d.wake_sentinel.push_back({1.0 * i, i < 60 ? 26000.0 : 19500.0, 72});
  }
  d.context["stability"] = {{"median_ns", 2800.0},
                            {"spread_p90_p10", 1.0},
                            {"slow_share", 0.0},
                            {"worst_episode", "none"},
                            {"worst_episode_s", 0.0},
                            {"stable", true},
                            {"cross_cpu",
                             {{"median_ns", 26000.0},
                              {"spread_p90_p10", 1.33},
                              {"slow_share", 0.6},
                              {"worst_episode", "t = 0-58 s at 1.33x p10"},
                              {"worst_episode_s", 58.0},
                              {"stable", false}}}};
  d.context["reference"] = {{"poll_loop", {{"median_ratio", 1.004}, {"point", "find_active/poll/pipe n=1168"}}},
                            {"perf_pipe", {{"missing", "perf is not installed"}}}};
  const conditions c = conditions_section(d);
  EXPECT_NE(c.markdown.find("| one CPU (drift sentinel) | 2.800 µs | 1.00 | 0% | none (0 s) | steady |"),
            std::string::npos)
      << c.markdown;
  EXPECT_NE(
      c.markdown.find("| across CPUs (wake sentinel) | 26.00 µs | 1.33 | 60.0% | t = 0-58 s at 1.33x p10 (58.0 s) | "
                      "**drifted** |"),
      std::string::npos)
      << c.markdown;
  EXPECT_NE(c.markdown.find("| poll_loop | 1.004 |"), std::string::npos) << c.markdown;
  EXPECT_NE(c.markdown.find("| perf_pipe | perf is not installed |"), std::string::npos) << c.markdown;
  ASSERT_TRUE(c.series.has_value());
  ASSERT_EQ(c.series->series.size(), 2u);
  const auto& wake = c.series->series[1].points;
  ASSERT_EQ(wake.size(), 50u);
  EXPECT_NEAR(wake.front().y, 26000.0 / 19500.0, 1e-9);  // the slow regime, over the fast level
  EXPECT_NEAR(wake.back().y, 1.0, 1e-9);
  EXPECT_FALSE(c.series->logx);
  EXPECT_EQ(c.markdown.find("placement sentinel"), std::string::npos);  // none recorded: nothing said
  // Where the host kept the two CPUs: said in one sentence, moved or steady.
  d.context["stability"]["placement"] = {{"median_ns", 440.0}, {"moved", true}, {"near_ns", 66.0}, {"far_ns", 461.0},
                                         {"near_share", 0.33}, {"moves", 2},    {"readings", 117}};
  EXPECT_NE(conditions_section(d).markdown.find("in 66 ns for 33% of the placement sentinel's 117 readings and in "
                                                "461 ns for the rest (2 moves)"),
            std::string::npos)
      << conditions_section(d).markdown;
  EXPECT_EQ(conditions_section(d).markdown.find("wake sentinel took"), std::string::npos);  // no series: no ratio
  // With both series: what the far placement cost a cross-CPU wake-up, read beside each.
  d.wake_sentinel.clear();
  for (int i = 0; i < 30; ++i) {
    const bool far = i % 3 == 0;
    d.placement_sentinel.push_back({i + 0.0, far ? 461.0 : 66.0, 1000});
    d.wake_sentinel.push_back({i + 0.1, far ? 29000.0 : 20000.0, 72});
  }
  EXPECT_NE(conditions_section(d).markdown.find("The cross-CPU wake sentinel took 1.45x as long beside the far "
                                                "placement's readings as beside the near one's (10 and 20 readings)"),
            std::string::npos)
      << conditions_section(d).markdown;
  d.context["stability"]["placement"] = {{"median_ns", 450.0}, {"moved", false}, {"moves", 0}, {"readings", 123}};
  EXPECT_NE(conditions_section(d).markdown.find("stayed where the host had put them: a cache line crossed between "
                                                "them in 450 ns"),
            std::string::npos);
}

// The Machine table reads the context by field and says it in words: the CPU's identity,
// the topology, the mitigations left vulnerable and the build that measured; a context
// from an older pollscale says what it lacks instead of printing raw JSON.
TEST(ReportTest, MachineTableSpellsOutTheHostAndTheBuild) {
  const test::scratch_dir scratch("report_machine");
  const fs::path dir = scratch.path() / "report";  // write_report makes it
  auto d = synthetic();
  d.context["cpu_model"] = "Test CPU";
  d.context["cpu"] = {{"vendor", "GenuineIntel"}, {"family", 6},     {"model", 85},       {"stepping", 7},
                      {"microcode", "0x5003604"}, {"mhz", 2499.998}, {"max_mhz", nullptr}};
  d.context["topology"] = {{"sockets", 2}, {"cores", 8}, {"threads_per_core", 2}, {"numa_nodes", 2}, {"smt", "on"}};
  d.context["mitigations"] = {{"meltdown", "Not affected"},
                              {"mds", "Vulnerable: Clear CPU buffers attempted"},
                              {"spectre_v2", "Mitigation: Retpolines"}};
  d.context["timer"] = {{"clock", "CLOCK_MONOTONIC"}, {"overhead_ns", 30.21875}, {"resolution_ns", 1.0}};
  d.context["tool"] = {{"version", "0.1.0"},      {"git_hash", "0123456789ab"}, {"dirty", true},
                       {"build_type", "Release"}, {"compiler", "GNU 12.2.0"},   {"flags", "-O3"}};
  write_report(d, dir, "test report", "synthetic");
  const std::string md = test::slurp((dir / "report.md").string());
  EXPECT_NE(
      md.find("| CPU | Test CPU (GenuineIntel family 6 model 85 stepping 7, microcode 0x5003604, 2500 MHz at start)"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("2 socket(s), 8 core(s), 2 thread(s) per core, 2 NUMA node(s), SMT on"), std::string::npos);
  EXPECT_NE(md.find("| mitigations | 1 mitigated, 1 not affected, vulnerable: mds |"), std::string::npos);
  EXPECT_NE(md.find("CLOCK_MONOTONIC: 30.22 ns a reading"), std::string::npos);
  EXPECT_NE(md.find("| measured by | 0.1.0 (0123456789ab-dirty), Release build, GNU 12.2.0 |"), std::string::npos);
  // A hand-edited context with the wrong types is shown as it is, never a crash.
  d.context["tool"]["dirty"] = "yes";
  d.context["cpu_model"] = 42;
  write_report(d, dir, "test report", "synthetic");
  EXPECT_NE(test::slurp((dir / "report.md").string()).find("| CPU | 42 ("), std::string::npos);
  d.context.erase("tool");
  write_report(d, dir, "test report", "synthetic");
  EXPECT_NE(test::slurp((dir / "report.md").string()).find("| measured by | n/a (an older pollscale) |"),
            std::string::npos);
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

// Every figure draws a mechanism in the same colour and a variant with the same point, so a
// reader learns the legend once; repeats of one flavour in a figure differ by point and dash.
TEST(ReportTest, AMechanismHasOneColourInEveryFigure) {
  EXPECT_EQ(style_of("poll").colour, style_of("poll woken 0+1").colour);
  EXPECT_EQ(style_of("epoll/lt ready-at-entry first").colour, style_of("epoll/et").colour);
  EXPECT_NE(style_of("poll").colour, style_of("epoll/lt").colour);
  EXPECT_NE(style_of("poll").colour, style_of("select").colour);
  EXPECT_EQ(style_of("epoll/et").point_type, 5);
  EXPECT_EQ(style_of("epoll/lt").point_type, style_of("poll").point_type);
  EXPECT_NE(style_of("io_uring/oneshot").point_type, style_of("io_uring/multishot").point_type);
  EXPECT_EQ(style_of("read").colour, style_of("something else").colour);  // the neutral grey
  figure f{"f",
           "t",
           "x",
           "y",
           true,
           true,
           {{"poll cpu 0", {{1, 1, 1, 1}}, false},
            {"poll cpu 0+1", {{1, 2, 2, 2}}, false},
            {"epoll/lt", {{1, 3, 3, 3}}, false}}};
  const std::string gp = gnuplot_script(f, "f.dat", "f.svg");
  const std::string poll = "lc rgb '" + style_of("poll").colour + "'";
  EXPECT_NE(gp.find(poll + " pt 7 ps 0.5 dt 1"), std::string::npos) << gp;
  EXPECT_NE(gp.find(poll + " pt 6 ps 0.5 dt 3"), std::string::npos) << gp;  // the repeat: open point, dashed
  EXPECT_EQ(gp.find("\ncd "), std::string::npos) << gp;                     // no absolute path in the script
  EXPECT_EQ(gp.find("extrapolated"), std::string::npos) << gp;
  f.extrapolated_from = 1000;  // predictions past the fitted range: that region shaded and named
  const std::string shaded = gnuplot_script(f, "f.dat", "f.svg");
  EXPECT_NE(shaded.find("set object 1 rect from first 1000, graph 0 to graph 1, graph 1 behind"), std::string::npos)
      << shaded;
  EXPECT_NE(shaded.find("set label 1 'extrapolated' at first 1000"), std::string::npos) << shaded;
  // A fitted curve: its band shaded in its colour behind a dashed line, one legend entry.
  f.series = {{"poll fitted", {{1, 2, 1, 3}, {10, 20, 10, 30}}, false, true}};
  const std::string band = gnuplot_script(f, "f.dat", "f.svg");
  EXPECT_NE(band.find("index 0 using 1:3:4 notitle with filledcurves fc rgb '" + style_of("poll").colour + "'"),
            std::string::npos)
      << band;
  EXPECT_NE(band.find("index 0 using 1:2 title 'poll fitted' with lines lw 1.5 " + poll + " dt 2"), std::string::npos)
      << band;
  EXPECT_EQ(band.find("yerrorlines lw"), std::string::npos) << band;  // no error bars on a curve
}

// At most six series a panel, whole mechanisms together, every panel on the same axes.
TEST(ReportTest, AFigureWithManySeriesBecomesSmallMultiples) {
  figure f{"blocking", "Blocking", "n", "ns", true, true, {}};
  int y = 1;
  for (const auto& [mech, count] : std::vector<std::pair<std::string, int>>{
           {"epoll/lt", 4}, {"io_uring/oneshot", 2}, {"poll", 4}, {"rtsig", 2}, {"select", 4}})
    for (int i = 0; i < count; ++i, ++y)
      f.series.push_back({mech + " cpu " + std::to_string(i),
                          {{10, double(y), y * 0.9, y * 1.1}, {100, 2.0 * y, 1.5 * y, 3.0 * y}},
                          false});
  const auto panels = small_multiples(f);
  ASSERT_EQ(panels.size(), 3u);
  std::size_t total = 0;
  for (const auto& p : panels) {
    EXPECT_LE(p.series.size(), 6u) << p.title;
    total += p.series.size();
    ASSERT_TRUE(p.yrange.has_value());
    EXPECT_EQ(p.yrange, panels[0].yrange);  // the same axes: panels compare
    EXPECT_LE(p.yrange->first, 0.9);
    EXPECT_GE(p.yrange->second, 48.0);
  }
  EXPECT_EQ(total, f.series.size());
  EXPECT_EQ(panels[0].name, "blocking_1");
  EXPECT_NE(panels[0].title.find("(1 of 3: epoll, io_uring)"), std::string::npos) << panels[0].title;
  EXPECT_NE(panels[2].title.find("(3 of 3: select)"), std::string::npos) << panels[2].title;
  // A mechanism's measured and predicted series share a panel though they are apart in the
  // figure, and "poll" is not mistaken for part of "epoll".
  figure mp{"mp", "MP", "n", "ns", true, true, {}};
  for (const char* kind : {"measured", "predicted"})
    for (const char* mech : {"epoll/lt", "poll", "ppoll", "pselect", "select"})
      mp.series.push_back({std::string(mech) + " " + kind, {{10, 1, 1, 1}}, false});
  const auto mp_panels = small_multiples(mp);
  ASSERT_EQ(mp_panels.size(), 2u);
  EXPECT_NE(mp_panels[0].title.find("(1 of 2: epoll, poll, ppoll)"), std::string::npos) << mp_panels[0].title;
  EXPECT_EQ(mp_panels[0].series[1].title, "epoll/lt predicted");
  // One mechanism with more series than a panel holds fills panels of its own.
  figure one{"one", "One", "n", "ns", true, true, {}};
  for (int i = 0; i < 8; ++i) one.series.push_back({"poll cpu " + std::to_string(i), {{10, 1, 1, 1}}, false});
  const auto split = small_multiples(one);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].series.size(), 6u);
  EXPECT_EQ(split[1].series.size(), 2u);
  // Six or fewer: the figure as it was.
  one.series.resize(6);
  const auto same = small_multiples(one);
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].name, "one");
  EXPECT_FALSE(same[0].yrange.has_value());
}

// gnuplot is given nothing to warn about: a series with no point the axes can show is left
// out (no empty legend entry), a figure whose points share one x gets a range around it.
TEST(ReportTest, FiguresGnuplotWouldWarnAboutAreDrawnCleanly) {
  const test::scratch_dir scratch("report_clean");
  const fs::path& dir = scratch.path();
  figure f{"single", "one server size", "n", "replies/s", true, true, {}};
  f.series.push_back({"poll", {{1000, 5000, 4900, 5100}}, false});
  f.series.push_back({"epoll/lt", {{1000, 0, 0, 0}}, false});  // 0 on a log axis: nothing to draw
  const auto svg = render_svg(f, dir);
  EXPECT_TRUE(fs::exists(svg));
  EXPECT_FALSE(fs::exists(dir / "single.log")) << test::slurp((dir / "single.log").string());
  const std::string gp = test::slurp((dir / "single.gp").string());
  EXPECT_NE(gp.find("set xrange [500:2000]"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("epoll"), std::string::npos) << gp;
}

TEST(ReportTest, TheReportFolderCarriesNoAbsolutePathsAndNoEmptyLogs) {
  const test::scratch_dir scratch("report_paths");
  const fs::path dir = scratch.path() / "report";  // write_report makes it
  write_report(synthetic(), dir, "test report", "synthetic");
  for (const auto& e : fs::directory_iterator(dir / "figures")) {
    if (e.path().extension() == ".log") {
      EXPECT_GT(fs::file_size(e.path()), 0u) << e.path();
    }
    if (e.path().extension() == ".gp") {
      EXPECT_EQ(test::slurp(e.path().string()).find(dir.string()), std::string::npos) << e.path();
    }
  }
}

}  // namespace
}  // namespace pollscale::app::report
