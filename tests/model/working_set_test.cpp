#include "model/working_set.hpp"

#include <gtest/gtest.h>

#include "model/evaluate.hpp"
#include "model/fit.hpp"
#include "tests/model/synthetic.hpp"

namespace pollscale::model {
namespace {

TEST(WorkingSetTest, CachesComeFromTheContextOnePerLevel) {
  nlohmann::json ctx = test::cache_context();
  ctx["caches"].push_back({{"level", 1}, {"type", "Instruction"}, {"size_bytes", 32768}});
  ctx["caches"].push_back({{"level", 4}, {"type", "Unified"}, {"size_bytes", -5}});  // ignored
  const auto c = caches_from_context(ctx);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].level, 1);
  EXPECT_DOUBLE_EQ(c[0].size_bytes, 49152);
  EXPECT_DOUBLE_EQ(c[2].size_bytes, 32 << 20);
  EXPECT_TRUE(caches_from_context(nlohmann::json::object()).empty());
  EXPECT_TRUE(caches_from_context({{"caches", "L2 1M"}}).empty());
}

TEST(WorkingSetTest, DefaultCurveStartsAtL2) {
  const auto curve = make_latency_curve(caches_from_context(test::cache_context()), {});
  ASSERT_TRUE(curve);
  EXPECT_FALSE(curve->measured);
  ASSERT_EQ(curve->knots.size(), 2u);  // L2 and L3; L1 misses are overlapped
  EXPECT_DOUBLE_EQ(curve->knots[0].first, 1 << 20);
  EXPECT_GT(curve->knots[1].second, curve->knots[0].second);  // missing the LLC costs more
  EXPECT_FALSE(make_latency_curve({{1, 49152}}, {}));         // only L1: no curve
}

TEST(WorkingSetTest, AMemoryLatencyProbePricesEachLevel) {
  const std::vector<latency_point> probe = {{16384, 1.2}, {262144, 3.5}, {4 << 20, 14.0}, {256 << 20, 95.0}};
  const auto curve = make_latency_curve(caches_from_context(test::cache_context()), probe);
  ASSERT_TRUE(curve);
  EXPECT_TRUE(curve->measured);
  EXPECT_FALSE(curve->interpolated);
  ASSERT_EQ(curve->knots.size(), 2u);  // one δ per level from L2 on
  // δ_L2: resident in L3 (16 MiB, a third of the way from 4 to 256 MiB in log size: 41 ns)
  // minus resident in L2 (512 KiB, a quarter of the way from 256 KiB to 4 MiB: 6.125 ns).
  EXPECT_DOUBLE_EQ(curve->knots[0].first, 1 << 20);
  EXPECT_NEAR(curve->knots[0].second, 41.0 - 6.125, 1e-9);
  EXPECT_NEAR(curve->knots[1].second, 95.0 - 41.0, 1e-9);  // δ_L3: the largest size minus L3-resident
  // From the context too.
  nlohmann::json ctx = test::cache_context();
  ctx["memory_latency"] = {{{"size_bytes", 16384}, {"ns", 1.2}}, {{"size_bytes", 4 << 20}, {"ns", 14.0}}};
  EXPECT_EQ(latency_points_from_context(ctx).size(), 2u);
}

// A probe on a 1.5x grid: L1 to 32 KiB, L2 (3.5 ns) to 1 MiB, then 12 ns to 7 MiB, 140 ns
// beyond; the context lists a 32 MiB L3.
std::vector<latency_point> dense_probe(double disturbed_at = 0) {
  std::vector<latency_point> pts;
  for (double b = 16384; b <= 256.0 * (1 << 20); b *= 1.5) {
    double ns = b <= 32768 ? 1.0 : b <= (1 << 20) ? 3.5 : b <= 7.0 * (1 << 20) ? 12.0 : 140.0;
    if (disturbed_at > 0 && b > disturbed_at && b <= 1.5 * disturbed_at) ns = 140;  // one disturbed size
    pts.push_back({b, ns});
  }
  return pts;
}

TEST(WorkingSetTest, KneesCanSitAtTheProbesCliffsInsteadOfTheListedSizes) {
  const auto caches = caches_from_context(test::cache_context());  // L2 1 MiB, L3 32 MiB
  const auto listed = make_latency_curve(caches, dense_probe(), knee_placement::listed);
  const auto cliffs = make_latency_curve(caches, dense_probe(), knee_placement::probe_cliffs);
  ASSERT_TRUE(listed && cliffs);
  EXPECT_DOUBLE_EQ(listed->knots[1].first, 32 << 20);
  // The last step (between the sizes around 7 MiB) becomes the last level's capacity.
  EXPECT_GT(cliffs->knots[1].first, 6.0 * (1 << 20));
  EXPECT_LT(cliffs->knots[1].first, 11.0 * (1 << 20));
  EXPECT_NEAR(cliffs->knots[1].second, 140.0 - 12.0, 1e-9);  // DRAM minus resident in that level
  EXPECT_NE(cliffs->source.find("L3 at the probe's cliff"), std::string::npos);
  // L2's step (3.5 -> 12) is a cliff too, near its listed 1 MiB.
  EXPECT_GT(cliffs->knots[0].first, 0.9 * (1 << 20));
  EXPECT_LT(cliffs->knots[0].first, 1.6 * (1 << 20));
}

// A guest that gets a few MiB of a large L3: cpuid lists L2 2 MiB and L3 260 MiB, the probe
// steps from L2 (3.5 ns) near 1.3 MiB and to DRAM (120 ns) near 3.7 MiB — inside twice the
// listed L2. The last level takes the last cliff, L2 its own; neither keeps a listed size.
// The probes step on a 1.5x grid from 16 KiB: ..., 0.90, 1.35, 2.03, 3.04, 4.56 MiB.
TEST(WorkingSetTest, TheLastLevelTakesTheLastCliffEvenInsideTwiceTheListedL2) {
  const std::vector<cache_level> caches = {{1, 48 << 10}, {2, 2 << 20}, {3, 260.0 * (1 << 20)}};
  std::vector<latency_point> probe;
  for (double b = 16384; b <= 256.0 * (1 << 20); b *= 1.5)
    probe.push_back({b, b <= 48 << 10 ? 1.0 : b <= 1.3 * (1 << 20) ? 3.5 : b <= 3.7 * (1 << 20) ? 35.0 : 120.0});
  const auto c = make_latency_curve(caches, probe, knee_placement::probe_cliffs);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->knots.size(), 2u);
  EXPECT_GT(c->knots[0].first, 1.0 * (1 << 20));
  EXPECT_LT(c->knots[0].first, 1.7 * (1 << 20));
  EXPECT_GT(c->knots[1].first, 2.9 * (1 << 20));
  EXPECT_LT(c->knots[1].first, 4.6 * (1 << 20));
  EXPECT_NE(c->source.find("L2 at the probe's cliff, 1."), std::string::npos) << c->source;
  EXPECT_NE(c->source.find("L3 at the probe's cliff, 3."), std::string::npos) << c->source;
  // L1's own step (near 48 KiB) is never L2's capacity, even with no L2 step in the probe.
  std::vector<latency_point> no_l2_step;
  for (const auto& p : probe)
    no_l2_step.push_back({p.bytes, p.bytes <= 48 << 10 ? 1.0 : p.bytes <= 3.7 * (1 << 20) ? 3.5 : 120.0});
  const auto l1_only = make_latency_curve(caches, no_l2_step, knee_placement::probe_cliffs);
  ASSERT_TRUE(l1_only);
  EXPECT_DOUBLE_EQ(l1_only->knots[0].first, 2 << 20);  // listed: no cliff of its own
  EXPECT_GT(l1_only->knots[1].first, 2.9 * (1 << 20));
  // A guest with a sliver of L3 (L3 listed 105 MiB): steps at 1.6 MiB and 2.4 MiB, both
  // within twice the listed L2. Two cliffs, two levels: L3 the last, L2 the first.
  std::vector<latency_point> sliver;
  for (const auto& p : probe)
    sliver.push_back({p.bytes, p.bytes <= 48 << 10          ? 1.0
                               : p.bytes <= 1.6 * (1 << 20) ? 7.0
                               : p.bytes <= 2.4 * (1 << 20) ? 37.0
                                                            : 140.0});
  const auto s =
      make_latency_curve({{1, 48 << 10}, {2, 2 << 20}, {3, 105.0 * (1 << 20)}}, sliver, knee_placement::probe_cliffs);
  ASSERT_TRUE(s);
  EXPECT_GT(s->knots[0].first, 1.5 * (1 << 20));
  EXPECT_LT(s->knots[0].first, 1.8 * (1 << 20));
  EXPECT_GT(s->knots[1].first, 2.3 * (1 << 20));
  EXPECT_LT(s->knots[1].first, 2.6 * (1 << 20));
}

TEST(WorkingSetTest, ADisturbedSizeOrACoarseGridPlacesNoCliff) {
  const auto caches = caches_from_context(test::cache_context());
  // 140 ns at one size near 3 MiB, 12 ns again above it: no capacity ends there.
  const auto disturbed = make_latency_curve(caches, dense_probe(2.5 * (1 << 20)), knee_placement::probe_cliffs);
  ASSERT_TRUE(disturbed);
  EXPECT_GT(disturbed->knots[1].first, 6.0 * (1 << 20));
  // Sizes 16x apart cannot say which level ended between them: the listed sizes stay.
  const std::vector<latency_point> coarse = {{16384, 1.0}, {262144, 3.5}, {4 << 20, 14.0}, {64 << 20, 140.0}};
  const auto c = make_latency_curve(caches, coarse, knee_placement::probe_cliffs);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->knots[0].first, 1 << 20);
  EXPECT_DOUBLE_EQ(c->knots[1].first, 32 << 20);
}

TEST(WorkingSetTest, AScanThatCannotStreamTakesTheProbesOwnCurveAboveItsL2Latency) {
  const auto caches = caches_from_context(test::cache_context());  // L2 1 MiB
  const auto shape = make_latency_curve(caches, dense_probe(2.5 * (1 << 20)), knee_placement::probe_shape);
  ASSERT_TRUE(shape);
  EXPECT_TRUE(shape->interpolated);
  EXPECT_TRUE(shape->measured);
  basis b;
  b.kind = basis_kind::cycle_set;  // Δlat(n · 1 B) itself
  b.bytes_per_fd = 1;
  b.latency = shape->knots;
  b.latency_measured = true;
  b.latency_scale = 1;
  const auto at = [&](double bytes) { return b(point{bytes, 1, 0, 0}); };
  EXPECT_DOUBLE_EQ(at(300 << 10), 0);            // resident in L2: nothing extra
  EXPECT_NEAR(at(4 << 20), 12.0 - 3.5, 1e-9);    // the disturbed size near 3 MiB is gone
  EXPECT_NEAR(at(64 << 20), 140.0 - 3.5, 1e-9);  // the memory, as the chase pays it
  EXPECT_GT(at(10 << 20), 0.5 * (140.0 - 3.5));  // a cliff, not 1 - S/W
  // A grid too coarse to show the shape falls back to the scans' curve (knees at the cliffs).
  const std::vector<latency_point> coarse = {{16384, 1.0}, {262144, 3.5}, {4 << 20, 14.0}, {64 << 20, 140.0}};
  const auto c = make_latency_curve(caches, coarse, knee_placement::probe_shape);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->interpolated);
  // The prior: a blocking scan, or any scan over sockets, pays its chain of dependent
  // misses (no stream); a timeout-0 scan over pipes the streaming time.
  const auto blocking = working_set_prior("pipe", true, *shape);
  EXPECT_DOUBLE_EQ(blocking.loads_mean, footprint_for("pipe").chain);
  EXPECT_DOUBLE_EQ(blocking.loads_sd, footprint_for("pipe").chain / 2);
  EXPECT_DOUBLE_EQ(working_set_prior("socketpair", false, *shape).loads_mean, footprint_for("socketpair").chain);
  EXPECT_DOUBLE_EQ(working_set_prior("tcp", false, *shape).loads_mean, footprint_for("tcp").chain);
  EXPECT_LT(working_set_prior("pipe", false, *shape).loads_mean, 0.5);
}

TEST(WorkingSetTest, BlockingAndSocketCellsFitTheProbeShapeTimeoutZeroPipesTheCliffs) {
  observation_set s;
  s.context = test::cache_context();
  for (const auto& p : dense_probe()) s.context["memory_latency"].push_back({{"size_bytes", p.bytes}, {"ns", p.ns}});
  std::mt19937_64 rng(5);
  auto blocking = test::cell_key("poll");
  blocking.blocking = 1;
  const auto truth = [](double n, double) { return 2000 + 100 * n; };
  auto sockets = test::cell_key("poll");
  sockets.fd_kind = "socketpair";
  test::add_points(s, test::cell_key("poll"), {10, 100, 1000, 3000}, {1}, truth, 0.005, rng);
  test::add_points(s, blocking, {10, 100, 1000, 3000}, {1}, truth, 0.005, rng);
  test::add_points(s, sockets, {10, 100, 1000, 3000}, {1}, truth, 0.005, rng);
  const auto models = fit_models(s);
  ASSERT_EQ(models.cells.size(), 3u);
  for (const auto& m : models.cells) {
    const auto ws =
        std::find_if(m.terms.begin(), m.terms.end(), [](const term& t) { return t.b.kind == basis_kind::working_set; });
    ASSERT_NE(ws, m.terms.end());
    // Only the timeout-0 scan over pipes streams: it keeps the (1 - S/W) curve.
    EXPECT_EQ(ws->b.latency_measured, m.cell.blocking == 1 || m.cell.fd_kind == "socketpair") << m.formula;
  }
}

TEST(WorkingSetTest, PastTheKneeTheStepIsTheStreamingCostAndTheIntervalTheLatency) {
  // The same small-n data: whatever the probe says about latency, the expected step is
  // streaming 144 B per fd (about 10 ns); a slower memory only widens the interval.
  const auto truth = [](double n, double) { return 170 + 30 * n; };
  auto fit_with = [&](double llc_ns) {
    observation_set s;
    s.context = test::cache_context();
    s.context["memory_latency"] = {{{"size_bytes", 65536}, {"ns", 1.0}},
                                   {{"size_bytes", 512 << 10}, {"ns", 3.0}},
                                   {{"size_bytes", 8 << 20}, {"ns", 3.0 + llc_ns}}};
    std::mt19937_64 rng(3);
    test::add_points(s, test::cell_key("poll"), {1, 10, 100, 300, 1000}, {1}, truth, 0.005, rng);
    return fit_models(s).cells.at(0);
  };
  const point far{16000, 1, 8000, 0};
  const auto slow = evaluate(fit_with(120), far), fast = evaluate(fit_with(10), far);
  // The prior's mean is the streaming time at four times the L2 size, where 3/4 of the
  // lines miss; at 16000 fds (2.3 MB) 1 - 1 MiB/2.3 MB of them do.
  const double stream_ns = 144 / stream_bytes_per_s * 1e9;
  const double share = (1 - (1 << 20) / (16000.0 * 144)) / 0.75;
  EXPECT_NEAR(slow.value, 170 + (30 + stream_ns * share) * 16000, 0.03 * slow.value);
  EXPECT_NEAR(fast.value, slow.value, 0.02 * slow.value);
  EXPECT_GT(slow.hi - slow.lo, 5 * (fast.hi - fast.lo));
  EXPECT_GT(slow.hi, truth(16000, 1) + 16000 * 120);  // a fully exposed chain stays possible
}

/// cold_scan rows of `kind`: poll at n = 500 and 1000 costing fixed + warm·n back to back
/// and fixed + (warm + excess)·n after the eviction, in ns.
void add_cold_scan(observation_set& s, const std::string& kind, double warm, double excess) {
  for (const char* variant : {"", "cold"})
    for (std::int64_t n : {500, 1000}) {
      observation o;
      o.k = test::cell_key("poll", "time_per_call", "ns", "cold_scan");
      o.k.fd_kind = kind;
      o.k.variant = variant;
      o.k.n_fds = n;
      o.k.n_active = 0;
      o.value = 2000 + (warm + (*variant ? excess : 0)) * static_cast<double>(n);
      s.rows.push_back(std::move(o));
    }
}

TEST(WorkingSetTest, TheColdScanProbeGivesEachKindItsExcessPerFd) {
  observation_set s;
  s.context = test::cache_context();
  s.context["cold_scan"] = {{"evict_bytes", 4 << 20}};
  add_cold_scan(s, "pipe", 26, 14);
  add_cold_scan(s, "eventfd", 22, 7);
  observation only_warm;  // a kind measured warm only says nothing
  only_warm.k = test::cell_key("poll", "time_per_call", "ns", "cold_scan");
  only_warm.k.fd_kind = "socketpair";
  only_warm.k.n_fds = 500;
  only_warm.value = 30000;
  s.rows.push_back(only_warm);
  for (double bad : {std::nan(""), -1.0, 0.0}) {  // unusable values are skipped, not read
    observation o = s.rows.front();
    o.value = bad;
    o.k.n_fds = 700;
    s.rows.push_back(o);
  }
  const auto cold = cold_exposures_of(s);
  ASSERT_EQ(cold.size(), 2u);
  EXPECT_NEAR(cold.at("pipe").excess_ns, 14, 1e-9);
  EXPECT_NEAR(cold.at("eventfd").excess_ns, 7, 1e-9);
  EXPECT_EQ(cold.at("pipe").n_lo, 500);
  EXPECT_EQ(cold.at("pipe").n_hi, 1000);
  EXPECT_DOUBLE_EQ(cold.at("pipe").evict_bytes, 4 << 20);
  // In microseconds the same rows read the same excess in ns.
  for (auto& o : s.rows) {
    o.k.unit = "us";
    o.value /= 1000;
  }
  EXPECT_NEAR(cold_exposures_of(s).at("pipe").excess_ns, 14, 1e-6);
}

TEST(WorkingSetTest, PastTheKneeTheStepIsWhatTheColdScanMeasured) {
  // The streaming test's data, with a cold_scan probe that measured 25 ns a pipe past L2:
  // the expected step far past the knee is 25 ns where it was the streaming 9.6.
  const auto truth = [](double n, double) { return 170 + 30 * n; };
  observation_set s;
  s.context = test::cache_context();
  s.context["memory_latency"] = {{{"size_bytes", 65536}, {"ns", 1.0}},
                                 {{"size_bytes", 512 << 10}, {"ns", 3.0}},
                                 {{"size_bytes", 8 << 20}, {"ns", 40.0}}};
  std::mt19937_64 rng(3);
  test::add_points(s, test::cell_key("poll"), {1, 10, 100, 300, 1000}, {1}, truth, 0.005, rng);
  auto sockets = test::cell_key("poll");
  sockets.fd_kind = "socketpair";
  test::add_points(s, sockets, {1, 10, 100, 300, 1000}, {1}, truth, 0.005, rng);
  const auto without = fit_models(s);
  add_cold_scan(s, "pipe", 26, 25);
  add_cold_scan(s, "socketpair", 60, 80);  // a scan over sockets does not stream: not its prior
  // --step-height measured
  fit_options measured;
  measured.measured_step = true;
  const auto with = fit_models(s, measured);
  ASSERT_EQ(with.cells.size(), 2u);  // the probe's rows are no cell
  const point far{16000, 1, 8000, 0};
  const double share = (1 - (1 << 20) / (16000.0 * 144)) / 0.75;
  const auto pipes = evaluate(with.cells.at(0), far);
  ASSERT_EQ(with.cells.at(0).cell.fd_kind, "pipe");
  EXPECT_NEAR(pipes.value, 170 + (30 + 25 * share) * 16000, 0.03 * pipes.value);
  EXPECT_GT(pipes.value, evaluate(without.cells.at(0), far).value * 1.1);
  const auto& terms = with.cells.at(0).terms;
  const auto ws =
      std::find_if(terms.begin(), terms.end(), [](const term& t) { return t.b.kind == basis_kind::working_set; });
  ASSERT_NE(ws, terms.end());
  EXPECT_NE(ws->meaning.find("measured (cold_scan"), std::string::npos) << ws->meaning;
  // The default (--step-height streaming) reads the probe's rows as no step: the model without them.
  EXPECT_DOUBLE_EQ(evaluate(fit_models(s).cells.at(0), far).value, evaluate(without.cells.at(0), far).value);
  ASSERT_EQ(with.cells.at(1).cell.fd_kind, "socketpair");
  EXPECT_DOUBLE_EQ(evaluate(with.cells.at(1), far).value, evaluate(without.cells.at(1), far).value);
}

TEST(WorkingSetTest, OnlyScanningMechanismsGetTheTerm) {
  EXPECT_TRUE(scans_every_fd("poll"));
  EXPECT_TRUE(scans_every_fd("select"));
  EXPECT_TRUE(scans_every_fd("devpoll"));
  EXPECT_FALSE(scans_every_fd("epoll"));
  EXPECT_FALSE(scans_every_fd("io_uring"));
  EXPECT_GT(footprint_for("socketpair").bytes_per_fd, footprint_for("eventfd").bytes_per_fd);
  EXPECT_DOUBLE_EQ(ns_to_unit("us"), 1e-3);
  EXPECT_DOUBLE_EQ(ns_to_unit("1/s"), 0);
}

}  // namespace
}  // namespace pollscale::model
