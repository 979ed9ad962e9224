// The report's verdict: the measured crossover and cheapest mechanism per n on planted
// datasets, and the study's accuracy, beyond-the-limit and server lines on planted JSON.

#include "app/report/verdict.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "app/study/crossover.hpp"
#include "app/study/fitted_section.hpp"
#include "app/study/sections.hpp"
#include "app/study/verdict_lines.hpp"
#include "app/table_writer.hpp"
#include "model/fit.hpp"
#include "model/observations.hpp"

namespace pollscale::app {
namespace {

using nlohmann::json;

// find_active time_per_call on pipes: poll costs 150 + 30·n ns, epoll a flat `epoll_ns`,
// each point with five samples 0.1% apart (tight intervals) plus `spread` of its median.
datasets::dataset planted(double epoll_ns, double spread = 0.001) {
  datasets::dataset d;
  for (const char* mech : {"poll", "epoll"})
    for (std::int64_t n : {1, 4, 16, 64, 256, 1024}) {
      datasets::key k;
      k.scenario = "find_active";
      k.mechanism = mech;
      k.variant = std::string(mech) == "epoll" ? "lt" : "";
      k.fd_kind = "pipe";
      k.n_fds = n;
      k.n_active = 1;
      k.active_pos = "middle";
      k.blocking = 0;
      k.cpus = 1;
      k.metric = "time_per_call";
      k.unit = "ns";
      const double v = std::string(mech) == "poll" ? 150.0 + 30.0 * static_cast<double>(n) : epoll_ns;
      for (int i = 0; i < 5; ++i) d.samples.push_back({k, i, v * (1 + spread * (i - 2)), 1, 0, {}, {}, {}, {}});
    }
  d.summaries = datasets::summarise_samples(d.samples);
  return d;
}

TEST(VerdictTest, TheCheapestAtEachNAndWhereEpollTakesOver) {
  // poll: 180, 270, 630, 2070, 7830, 30870 ns; epoll 500 ns: cheaper from n = 16 on.
  const auto d = planted(500);
  const auto choices = report::measured_choices(d);
  ASSERT_EQ(choices.size(), 6u);
  EXPECT_EQ(choices[0].cheapest, "poll");
  EXPECT_TRUE(choices[0].clear);
  EXPECT_EQ(choices[2].n, 16);
  EXPECT_EQ(choices[2].cheapest, "epoll");
  const auto x = report::measured_crossover(d, "epoll", "poll");
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->from_n, 16);
  EXPECT_EQ(x->not_yet_at, 4);
  const std::string md = report::verdict_markdown(d, "");
  EXPECT_EQ(md.rfind("## Verdict", 0), 0u);
  EXPECT_NE(md.find("**Use epoll from n = 16**"), std::string::npos) << md;
  EXPECT_NE(md.find("At the largest n measured alike (1024): epoll 500 ns"), std::string::npos) << md;
}

TEST(VerdictTest, OverlappingIntervalsAreNotACrossover) {
  // epoll at 640 ns ± 60%: its interval reaches past poll's at n = 16 (630 ns) and 64 (2070 ns)
  // but not beyond; so "clearly cheaper" starts at 256.
  const auto d = planted(640, 0.3);
  const auto x = report::measured_crossover(d, "epoll", "poll");
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->from_n, 256);
  EXPECT_EQ(x->not_yet_at, 64);
  // epoll dearer than poll everywhere: no crossover, and the verdict says so.
  const auto never = planted(1e6);
  EXPECT_FALSE(report::measured_crossover(never, "epoll", "poll").has_value());
  EXPECT_NE(report::verdict_markdown(never, "").find("not clearly cheaper"), std::string::npos);
  EXPECT_NE(report::verdict_markdown(datasets::dataset{}, "").find("cannot say which to use"), std::string::npos);
}

json row(const char* mech, const char* kind, long long n, double rel_err, const char* scenario = "find_active") {
  return {{"scenario", scenario}, {"mechanism", mech}, {"variant", nullptr}, {"fd_kind", kind},
          {"n_fds", n},           {"blocking", 0},     {"rel_err", rel_err}};
}

TEST(VerdictTest, AccuracyTargetsArePassedOrFailedWithTheirWorstRow) {
  const json extrapolation = {
      {"rows",
       {row("select", "pipe", 2000, 0.05), row("select", "pipe", 4000, -0.08), row("poll", "pipe", 2000, 0.3),
        row("poll", "eventfd", 4000, 0.25), row("epoll", "pipe", 2000, 0.01), row("poll", "tcp", 2000, 0.12)}},
      {"summary", {{"coverage", 0.95}, {"median_rel_halfwidth", 0.4}}}};
  const json interpolation = {
      {"rows", {row("poll", "pipe", 10, 0.02, "token_ring"), row("poll", "pipe", 20, 0.04, "token_ring")}}};
  const std::string md = study::accuracy_verdict(extrapolation, interpolation);
  // select 6.5% yes, poll 27.5% no, epoll 1% yes, sockets 12% yes, find_active: no rows,
  // token_ring 3% yes, coverage yes, half-width 40% no: 5 of 7 judged targets met.
  EXPECT_NE(md.find("met 5 of its 7 accuracy targets"), std::string::npos) << md;
  EXPECT_NE(md.find("| 27.5% (2 rows) | ≤ 10.0% | **no** | poll pipe n=2000: +30.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("interpolation, find_active (MAPE) | no rows"), std::string::npos) << md;
  EXPECT_NE(study::accuracy_verdict(nullptr, nullptr).find("was not validated"), std::string::npos);
}

TEST(VerdictTest, TheServerLineSaysWhereRepliesFall) {
  auto at = [](const char* mech, double idle, double replies) {
    return json{{"mechanism", mech}, {"idle", idle}, {"throughput", {{"mean", replies}}}};
  };
  const json whatif = {{"rows",
                        {at("poll", 0, 1000), at("poll", 100, 950), at("poll", 1000, 400), at("poll", 10000, 20),
                         at("epoll", 0, 1000), at("epoll", 10000, 990)}}};
  const std::string md = study::server_verdict(whatif);
  EXPECT_NE(md.find("poll: 1000 replies/s with no idle connection; below 90% of that from 1000 idle connections on "
                    "(400 replies/s there, 20 with 10000)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("epoll: 1000 replies/s with no idle connection; still at least 90% of that with 10000"),
            std::string::npos)
      << md;
  // Costs drawn per replication: the interval of one run is quoted with the answer.
  json drawn = whatif;
  for (auto& r : drawn["rows"]) {
    r["intervals"] = "replication";
    r["throughput"]["ci95_lo"] = 500;
    r["throughput"]["ci95_hi"] = 2000;
  }
  EXPECT_NE(study::server_verdict(drawn).find("poll: 1000 replies/s with no idle connection (one run within "
                                              "500–2000 as far as the model's intervals know); below 90%"),
            std::string::npos)
      << study::server_verdict(drawn);
}

// The simulated server's section says when its replications met the host's two placements
// of its CPUs (whatif.json costs.placement), and nothing of them when none did.
TEST(VerdictTest, TheSimulatedServerSaysWhenItMetTheHostsPlacements) {
  auto row = [](const json& placement) {
    return json{{"mechanism", "epoll"},
                {"idle", 0},
                {"throughput", {{"mean", 1000}, {"ci95_lo", 700}, {"ci95_hi", 1100}}},
                {"costs", {{"placement", placement}}}};
  };
  const json placement = {{"near_share", 0.8}, {"far_over_near", 1.45}, {"usual", "near"},
                          {"asked", "draw"},   {"draws", 20},           {"far_draws", 4}};
  const datasets::dataset none;
  const auto with = study::simulation_section(json{{"rows", {row(placement)}}}, none, 8);
  EXPECT_NE(with.markdown.find("move its two CPUs apart for 20.0% of its time, where what crosses them cost 1.45"),
            std::string::npos)
      << with.markdown;
  const auto without = study::simulation_section(json{{"rows", {row(nullptr)}}}, none, 8);
  EXPECT_EQ(without.markdown.find("two CPUs apart"), std::string::npos) << without.markdown;
}

TEST(VerdictTest, BeyondTheLimitQuotesPollAndEpollAtTheirLargestN) {
  auto p = [](const char* mech, const char* variant, long long n, double v) {
    return json{{"key",
                 {{"mechanism", mech},
                  {"variant", variant ? json(variant) : json()},
                  {"metric", "time_per_call"},
                  {"n_fds", n}}},
                {"value", v},
                {"lo", v / 2},
                {"hi", v * 2},
                {"unit", "ns"},
                {"extrapolation", static_cast<double>(n) / 20000.0}};
  };
  const json predictions = {{"predictions",
                             {p("poll", nullptr, 100000, 2e7), p("poll", nullptr, 1000000, 2e8),
                              p("epoll", "lt", 1000000, 600), p("epoll", "et", 1000000, 9)}}};
  const std::string md = study::beyond_limit_verdict(predictions);
  EXPECT_NE(md.find("epoll at n = 1000000: 600 ns [300 ns, 1.20 µs], 50.0×"), std::string::npos) << md;
  EXPECT_NE(md.find("poll at n = 1000000: 200 ms [100 ms, 400 ms]"), std::string::npos) << md;
  EXPECT_EQ(study::beyond_limit_verdict(json::object()), "");
  EXPECT_EQ(study::beyond_limit_verdict(nullptr), "");  // the step left no file
  EXPECT_EQ(study::server_verdict(nullptr), "");
}

// The verdict's numbers: times in the unit a person reads them in, and an exact zero as "0"
// (a simulated server that completed nothing), not "0.0000".
TEST(VerdictTest, NumbersReadAsTheyAre) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(0.5), "0.5000");
  EXPECT_EQ(duration_text(576.4), "576 ns");
  EXPECT_EQ(duration_text(3568285), "3.57 ms");
  EXPECT_EQ(duration_text(1.2e3), "1.20 µs");
  EXPECT_EQ(duration_text(2.5e9), "2.50 s");
  EXPECT_EQ(duration_text(NAN), "-");
}

// Counts carried as doubles through JSON (idle connections, descriptors, replies/s) print as
// whole numbers: the study's table once read "idle c 100.0".
TEST(VerdictTest, CountsReadAsWholeNumbers) {
  EXPECT_EQ(count_text(100.0), "100");
  EXPECT_EQ(count_text(0.0), "0");
  EXPECT_EQ(count_text(41405.6), "41406");
  EXPECT_EQ(count_text(19708), "19708");
  EXPECT_EQ(count_text(NAN), "-");
  EXPECT_EQ(count_text(INFINITY), "-");
  EXPECT_EQ(count_text(1e20).find('.'), std::string::npos);  // beyond long long: still no fraction
}

// The crossover by the fitted model, on the synthetic fixture's planted costs: poll
// 170 + 30·n ns, level-triggered epoll a flat 288 ns (1 ready), so epoll is cheaper from
// n = (288 - 170) / 30 = 3.9, i.e. from the whole n = 4 on; 1% noise parts the intervals
// within a few n on either side.
TEST(VerdictTest, TheModelsCrossoverRecoversThePlantedOne) {
  const auto data = model::load_observations(std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic");
  const auto models = model::fit_models(data);
  const auto x = study::predicted_crossover(models);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->n, 4);
  ASSERT_TRUE(x->poll_clear_up_to);
  EXPECT_GE(*x->poll_clear_up_to, 1);
  EXPECT_LE(*x->poll_clear_up_to, 3);
  ASSERT_TRUE(x->epoll_clear_from);
  EXPECT_GE(*x->epoll_clear_from, 4);
  EXPECT_LE(*x->epoll_clear_from, 8);
  EXPECT_EQ(x->measured_n_max, 16000);
  const std::string md = study::crossover_verdict(models);
  EXPECT_NE(md.find("cheaper than poll's from n ≈ 4**"), std::string::npos) << md;
  EXPECT_EQ(md.find("extrapolation"), std::string::npos) << md;  // measured far beyond
  // Asked only up to n = 3, where poll is still cheaper: no crossover, and the line says so.
  EXPECT_FALSE(study::predicted_crossover(models, 3));
  EXPECT_NE(study::crossover_verdict(models, 3).find("not cheaper than poll's even at n = 3"), std::string::npos);
  // A model without those cells says nothing.
  model::model_set none;
  EXPECT_EQ(study::crossover_verdict(none), "");
}

// The study's figure of the fitted models: select, poll and epoll/lt each as measured
// points and a fitted curve with its band from n = 1 to 10^6, shaded past the measured n.
TEST(VerdictTest, TheFittedCurvesRunFromOneToAMillionWithTheirBands) {
  const auto data = model::load_observations(std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic");
  const auto models = model::fit_models(data);
  const auto measured = datasets::read_dataset(std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic");
  const auto section = study::fitted_curves_section(models, measured, "fitted");
  ASSERT_EQ(section.figures.size(), 1u);
  const auto& f = section.figures[0];
  ASSERT_EQ(f.series.size(), 6u);
  ASSERT_TRUE(f.extrapolated_from);
  EXPECT_EQ(*f.extrapolated_from, 16000);
  for (std::size_t i = 0; i < f.series.size(); i += 2) {
    const auto &points = f.series[i], &curve = f.series[i + 1];
    EXPECT_FALSE(points.band);
    EXPECT_EQ(points.points.size(), 10u) << points.title;  // the fixture's ten n, 1 ready
    ASSERT_TRUE(curve.band) << curve.title;
    EXPECT_EQ(curve.points.front().x, 1);
    EXPECT_EQ(curve.points.back().x, 1e6);
    for (const auto& p : curve.points) EXPECT_TRUE(p.lo <= p.y && p.y <= p.hi) << curve.title << " n=" << p.x;
  }
  // poll's curve passes through its planted cost at a measured n (170 + 30 n ns, 1% noise).
  const auto& poll = f.series[3];
  const auto at = std::find_if(poll.points.begin(), poll.points.end(), [](const auto& p) { return p.x == 100; });
  ASSERT_NE(at, poll.points.end());
  EXPECT_NEAR(at->y, 170 + 30 * 100, 0.03 * (170 + 30 * 100));
  EXPECT_TRUE(study::fitted_curves_section(model::model_set{}, measured).figures.empty());
}

}  // namespace
}  // namespace pollscale::app
