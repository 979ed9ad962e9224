// One operation in flight (model/one_in_flight.hpp): the switches a one-CPU series made are
// read from its wakeups rows and the wakeup probe, the ceiling is the one-CPU time less them,
// `scale --from-cpus 1` and predict --cpus answer two CPUs or more with the hand-offs one CPU
// shows crossing CPUs (C - 1)/C of the time, or with the ceiling as an upper bound where one
// CPU hid them (through model.json too), and a missing part says which.

#include "model/one_in_flight.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/input_error.hpp"
#include "datasets/vocabulary.hpp"
#include "model/cpu_scaling.hpp"
#include "model/model_json.hpp"
#include "model/scaling.hpp"
#include "model/scaling_wider.hpp"
#include "tests/model/model_json_refusals.hpp"
#include "tests/model/round_trip_rows.hpp"
#include "tests/model/shared_epoll_rows.hpp"

namespace pollscale::model {
namespace {

// A shared_epoll ring of T threads and one token on `cpus` CPUs, as calibrate writes it.
observation ring_row(std::int64_t t, std::int64_t cpus, datasets::metric m, double value) {
  return test::ring_row(t, std::min(t, cpus), 1, m, m == datasets::metric::wakeups ? "1" : "1/s", value);
}

constexpr double one_cpu_rate = 250000, planted_round_trip_ns = 8000, planted_cross_ns = 20000;

// The one-CPU series (T = 2..4: a ring of one thread keeps its one token in the table of a
// token per thread, as calibrate's rows do) with `switches` wake-ups a pass, the two-CPU series at `two`
// (none for NaN), and the wakeup probe when `probe` (across two CPUs too when `cross`). One-shot
// instances by default: their waiters sleep, so the chain is a ceiling (a level-triggered
// ring's waiters may spin: WaitersThatMaySpinReachUpToTheCapacityBound).
observation_set ring(double switches, bool probe, double two = 120000, bool cross = true,
                     datasets::variant v = datasets::variant::oneshot) {
  observation_set s;
  s.source = "planted one-token ring";
  for (std::int64_t t : {2, 3, 4}) {
    s.rows.push_back(ring_row(t, 1, datasets::metric::throughput, one_cpu_rate));
    s.rows.push_back(ring_row(t, 1, datasets::metric::wakeups, switches));
    if (!std::isnan(two)) s.rows.push_back(ring_row(t, 2, datasets::metric::throughput, two));
  }
  for (auto& o : s.rows) o.k.variant = std::string(datasets::name(v));
  if (probe) s.rows.push_back(test::wakeup_round_trip(planted_round_trip_ns));
  if (probe && cross) s.rows.push_back(test::wakeup_round_trip(planted_cross_ns, "0+1"));
  return s;
}

TEST(OneInFlightTest, SwitchesAreInterpolatedAndGrowWithNBeyondTheLast) {
  const chain_fit c{{{2, 1}, {4, 2}}, 2e-6};
  EXPECT_DOUBLE_EQ(c.switches_at(1), 1);  // below the first N: the first's
  EXPECT_DOUBLE_EQ(c.switches_at(3), 1.5);
  EXPECT_DOUBLE_EQ(c.switches_at(4), 2);
  EXPECT_DOUBLE_EQ(c.switches_at(8), 4);  // a herd's count grows at most with N
  // The ceiling: 1/(1/x1 - w s); 4 us an operation less 2 us of switches leaves 2 us.
  EXPECT_NEAR(c.ceiling(250000, 3), 1 / (4e-6 - 1.5 * 2e-6), 1e-6);
  EXPECT_TRUE(std::isinf(c.ceiling(250000, 8)));  // the switches take all of one CPU's time
  EXPECT_TRUE(std::isinf(c.ceiling(0, 2)));
  EXPECT_TRUE(std::isinf(c.ceiling(NAN, 2)));
  const chain_fit none{{{1, 0}}, 2e-6};
  EXPECT_DOUBLE_EQ(none.ceiling(250000, 5), 250000);  // no switch to remove: one CPU's rate
  // The floor: every hand-off (at least one an operation) a cross-CPU wake-up of 10 us.
  EXPECT_DOUBLE_EQ(c.floor(250000, 3), 0);  // no cross-CPU wake-up measured: no floor
  chain_fit crossed = c;
  crossed.cross_s = 10e-6;
  EXPECT_NEAR(crossed.floor(250000, 3), 1 / (4e-6 + 1.5 * 10e-6), 1e-6);
  EXPECT_NEAR(crossed.floor(250000, 1), 1 / (4e-6 + 1 * 10e-6), 1e-6);
  chain_fit idle = none;
  idle.cross_s = 10e-6;
  EXPECT_NEAR(idle.floor(250000, 5), 1 / (4e-6 + 10e-6), 1e-6);  // no switch on one CPU: still one hand-off
  EXPECT_DOUBLE_EQ(idle.floor(NAN, 5), 0);
}

TEST(OneInFlightTest, OnlyExperimentsWithOneOperationInFlight) {
  datasets::key k = ring_row(2, 1, datasets::metric::throughput, 1).k;
  EXPECT_TRUE(one_in_flight(k));
  k.n_active = 2;  // a token for every thread: as many in flight as threads
  EXPECT_FALSE(one_in_flight(k));
  k.scenario = std::string(datasets::name(datasets::scenario::accept_herd));
  EXPECT_TRUE(one_in_flight(k));  // the client waits for every connection
  k.scenario = std::string(datasets::name(datasets::scenario::producers));
  k.n_active = 1;
  EXPECT_FALSE(one_in_flight(k));  // producers write side by side
}

TEST(OneInFlightTest, TheChainIsReadFromTheWakeupsRowsAndTheProbe) {
  const observation_set d = ring(0.5, true);
  std::vector<const observation*> one_cpu;
  for (const auto& o : d.rows)
    if (o.k.metric == datasets::name(datasets::metric::throughput) && o.k.cpus == 1) one_cpu.push_back(&o);
  datasets::key experiment = scaling_table_key(*one_cpu.front());
  experiment.cpus.reset();
  std::string note;
  const auto c = fit_chain(d, experiment, one_cpu, note);
  ASSERT_TRUE(c) << note;
  EXPECT_NEAR(c->switch_s, planted_round_trip_ns / 2 * 1e-9, 1e-18);
  EXPECT_NEAR(c->cross_s, planted_cross_ns / 2 * 1e-9, 1e-18);
  EXPECT_TRUE(std::isnan(fit_chain(ring(0.5, true, 120000, false), experiment, one_cpu, note)->cross_s));
  ASSERT_EQ(c->switches.size(), 3u);
  for (const auto& [n, w] : c->switches) EXPECT_DOUBLE_EQ(w, 0.5) << n;
  // accept_herd's client adds its own wait to the workers' count.
  observation_set herd = d;
  for (auto& o : herd.rows)
    if (o.k.scenario == datasets::name(datasets::scenario::shared_epoll))
      o.k.scenario = std::string(datasets::name(datasets::scenario::accept_herd));
  std::vector<const observation*> herd_one_cpu;
  for (const auto& o : herd.rows)
    if (o.k.metric == datasets::name(datasets::metric::throughput) && o.k.cpus == 1) herd_one_cpu.push_back(&o);
  experiment.scenario = std::string(datasets::name(datasets::scenario::accept_herd));
  const auto h = fit_chain(herd, experiment, herd_one_cpu, note);
  ASSERT_TRUE(h) << note;
  EXPECT_DOUBLE_EQ(h->switches.front().second, 1.5);
  // Missing parts, each named: the probe, the wakeups rows, a rate not per second.
  EXPECT_FALSE(fit_chain(ring(0.5, false), experiment, herd_one_cpu, note));
  EXPECT_NE(note.find("pinning 0+0"), std::string::npos) << note;
  observation_set no_counts;
  no_counts.rows.push_back(test::wakeup_round_trip(planted_round_trip_ns));
  EXPECT_FALSE(fit_chain(no_counts, experiment, herd_one_cpu, note));
  EXPECT_NE(note.find("no wakeups"), std::string::npos) << note;
  datasets::key per_ms = experiment;
  per_ms.unit = "1/ms";
  EXPECT_FALSE(fit_chain(herd, per_ms, herd_one_cpu, note));
  EXPECT_NE(note.find("1/ms"), std::string::npos) << note;
}

TEST(OneInFlightTest, ScaleFromOneCpuAnswersTwoCpusWithTheChainAsACeiling) {
  wider_protocol p;
  p.from_cpus = 1;
  const observation_set d = ring(0.25, true);  // the results point at the data's rows
  const auto r = predict_wider(d, p);
  ASSERT_EQ(r.families.size(), 1u);
  const auto& f = r.families[0];
  ASSERT_TRUE(f.chain) << f.chain_note;
  ASSERT_EQ(f.series.size(), 1u);
  const auto& s = f.series[0];
  ASSERT_EQ(s.rows.size(), 3u);
  // One CPU passes a token in 4 us, a quarter of a 4 us switch in it: two CPUs at most
  // 1/(3 us), where the capacity bound said twice one CPU.
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    EXPECT_EQ(s.row_limit[i], wider_limit::one_in_flight);
    EXPECT_TRUE(s.row_upper_bound[i]);
    EXPECT_NEAR(s.rows[i].predicted / (1 / (1 / one_cpu_rate - 0.25 * 4e-6)), 1, 1e-3);
    // Its floor: one cross-CPU wake-up (10 us) a pass at least, on top of one CPU's 4 us.
    ASSERT_TRUE(s.rows[i].has_interval) << s.rows[i].no_interval;
    EXPECT_NEAR(s.rows[i].lo / (1 / (1 / one_cpu_rate + planted_cross_ns / 2 * 1e-9)), 1, 1e-3);
  }
  EXPECT_STREQ(name(wider_limit::one_in_flight), "one_in_flight");
  // Without the wakeup probe: no chain, the capacity bound as before, and why.
  const observation_set bare = ring(0.25, false);
  const auto without = predict_wider(bare, p);
  EXPECT_FALSE(without.families[0].chain);
  EXPECT_NE(without.families[0].chain_note.find("wakeup"), std::string::npos);
  EXPECT_EQ(without.families[0].series[0].row_limit[0], wider_limit::cpu_capacity);
}

// A herd of one-CPU rows whose switches one CPU shows (a worker's 0.5 a connection and the
// client's own wait), with a same-CPU switch of 1 us (the wakeup probe's round trip 2 us) and a
// cross-CPU wake-up of 10 us.
observation_set herd_seen() {
  observation_set d = ring(0.5, true);
  for (auto& o : d.rows) {
    if (o.k.scenario == datasets::name(datasets::scenario::shared_epoll))
      o.k.scenario = std::string(datasets::name(datasets::scenario::accept_herd));
    if (o.k.scenario == datasets::name(datasets::scenario::wakeup) && o.k.pinning == "0+0") o.value = 2000;
  }
  return d;
}

TEST(OneInFlightTest, HandOffsOneCpuShowsCrossCpusAsOftenAsAWokenThreadLandsElsewhere) {
  datasets::key k = ring_row(2, 1, datasets::metric::throughput, 1).k;
  EXPECT_DOUBLE_EQ(chain_hand_offs(k), 1);  // the token's write wakes the next thread
  k.scenario = std::string(datasets::name(datasets::scenario::accept_herd));
  EXPECT_DOUBLE_EQ(chain_hand_offs(k), 2);  // the worker that accepts, then the client
  k.scenario = std::string(datasets::name(datasets::scenario::producers));
  EXPECT_DOUBLE_EQ(chain_hand_offs(k), 0);
  // The expectation: 1/(1/x1 + min(w, H) (C - 1)/C (x - s)), between the floor and the ceiling.
  chain_fit c{{{2, 1.5}}, 1e-6, 10e-6, 2};
  ASSERT_TRUE(c.hand_offs_seen(2));
  EXPECT_NEAR(c.expected(250000, 2, 2), 1 / (4e-6 + 1.5 * 0.5 * 9e-6), 1e-6);
  EXPECT_NEAR(c.expected(250000, 2, 16), 1 / (4e-6 + 1.5 * 15.0 / 16 * 9e-6), 1e-6);
  EXPECT_GT(c.expected(250000, 2, 2), c.floor(250000, 2));
  EXPECT_LT(c.expected(250000, 2, 2), c.ceiling(250000, 2));
  c.switches = {{2, 3.5}};  // a herd's futile wake-ups are no hand-offs: only H of them cross
  EXPECT_NEAR(c.expected(250000, 2, 2), 1 / (4e-6 + 2 * 0.5 * 9e-6), 1e-6);
  // Hidden on one CPU (fewer than half the structure's hand-offs), no cross-CPU wake-up, no
  // structure known: the ceiling, as before.
  c.switches = {{2, 0.9}};
  EXPECT_FALSE(c.hand_offs_seen(2));
  EXPECT_DOUBLE_EQ(c.expected(250000, 2, 2), c.ceiling(250000, 2));
  chain_fit unmeasured{{{2, 1.5}}, 1e-6, NAN, 2}, unknown{{{2, 1.5}}, 1e-6, 10e-6, 0};
  EXPECT_DOUBLE_EQ(unmeasured.expected(250000, 2, 2), unmeasured.ceiling(250000, 2));
  EXPECT_DOUBLE_EQ(unknown.expected(250000, 2, 2), unknown.ceiling(250000, 2));

  // Through `scale --from-cpus 1`: the answer is the expectation, no upper bound, its interval
  // the floor to the ceiling.
  wider_protocol p;
  p.from_cpus = 1;
  const observation_set d = herd_seen();
  const auto r = predict_wider(d, p);
  ASSERT_EQ(r.families.size(), 1u);
  ASSERT_TRUE(r.families[0].chain) << r.families[0].chain_note;
  EXPECT_DOUBLE_EQ(r.families[0].chain->hand_offs, 2);
  const auto& s = r.families[0].series.at(0);
  ASSERT_EQ(s.rows.size(), 3u);
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    EXPECT_EQ(s.row_limit[i], wider_limit::one_in_flight);
    EXPECT_FALSE(s.row_upper_bound[i]);
    EXPECT_NEAR(s.rows[i].predicted / (1 / (4e-6 + 1.5 * 0.5 * 9e-6)), 1, 1e-3);
    ASSERT_TRUE(s.rows[i].has_interval) << s.rows[i].no_interval;
    EXPECT_NEAR(s.rows[i].lo / (1 / (4e-6 + 1.5 * 10e-6)), 1, 1e-3);  // the floor
    EXPECT_NEAR(s.rows[i].hi / (1 / (4e-6 - 1.5 * 1e-6)), 1, 0.02);   // the ceiling's upper end
  }
  // Through model.json (H comes back from the experiment): every width prices (C - 1)/C.
  model_set m;
  m.source = "planted";
  m.cpu_scaling = fit_cpu_scaling(herd_seen());
  ASSERT_EQ(m.cpu_scaling.size(), 1u);
  const model_set back = model_set_from_json(nlohmann::json::parse(to_json(m).dump()), "m.json");
  ASSERT_TRUE(back.cpu_scaling[0].chain);
  EXPECT_DOUBLE_EQ(back.cpu_scaling[0].chain->hand_offs, 2);
  for (std::int64_t cpus : {2, 4, 16}) {
    wider_limit l{};
    const auto a = predict_cpu_scaling(back.cpu_scaling[0], cpus, 3, l);
    EXPECT_EQ(l, wider_limit::one_in_flight);
    EXPECT_FALSE(a.upper_bound);
    const double share = static_cast<double>(cpus - 1) / static_cast<double>(cpus);
    EXPECT_NEAR(a.value / (1 / (4e-6 + 1.5 * share * 9e-6)), 1, 1e-3) << "C = " << cpus;
    if (a.has_interval) {
      EXPECT_EQ(a.lo > 0, cpus == 2) << "C = " << cpus;  // the pair's floor, none wider
    }
  }
}

// Waiters on a level-triggered instance may spin on two CPUs instead of sleeping (the ninth
// host's ring: 10-18% above the chain): the interval then reaches up to the capacity bound;
// one-shot waiters, whose item is disabled once reported, keep the chain's own upper end.
TEST(OneInFlightTest, WaitersThatMaySpinReachUpToTheCapacityBound) {
  wider_protocol p;
  p.from_cpus = 1;
  // Two CPUs measured above the chain's 333 333 per second.
  const observation_set lt = ring(0.25, true, 300000, true, datasets::variant::lt);
  const observation_set oneshot = ring(0.25, true, 300000);
  EXPECT_TRUE(waiters_may_spin(lt.rows.front().k));
  EXPECT_FALSE(waiters_may_spin(oneshot.rows.front().k));
  const auto spin = predict_wider(lt, p), sleep = predict_wider(oneshot, p);
  ASSERT_EQ(spin.families.size(), 1u);
  ASSERT_EQ(sleep.families.size(), 1u);
  const auto& a = spin.families[0].series.at(0);
  const auto& b = sleep.families[0].series.at(0);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    ASSERT_TRUE(a.rows[i].has_interval && b.rows[i].has_interval);
    EXPECT_EQ(a.row_limit[i], wider_limit::one_in_flight);
    EXPECT_FALSE(a.row_upper_bound[i]);  // spinning waiters can beat the chain: no ceiling
    EXPECT_TRUE(b.row_upper_bound[i]);
    EXPECT_DOUBLE_EQ(a.rows[i].predicted, b.rows[i].predicted);  // the answer is the chain's either way
    EXPECT_DOUBLE_EQ(a.rows[i].lo, b.rows[i].lo);
    EXPECT_NEAR(b.rows[i].hi / (1 / (1 / one_cpu_rate - 0.25 * 4e-6)), 1, 0.02);  // the chain's ceiling
    EXPECT_NEAR(a.rows[i].hi / (2 * one_cpu_rate), 1, 0.02);                      // two CPUs' capacity
  }
}

TEST(OneInFlightTest, AModelsLawsKeepTheChainThroughModelJson) {
  model_set m;
  m.source = "planted";
  m.cpu_scaling = fit_cpu_scaling(ring(0.25, true, NAN));  // one CPU measured, as on a laptop's one core
  ASSERT_EQ(m.cpu_scaling.size(), 1u);
  ASSERT_TRUE(m.cpu_scaling[0].chain);
  const nlohmann::json j = to_json(m);
  const model_set back = model_set_from_json(nlohmann::json::parse(j.dump()), "m.json");
  ASSERT_TRUE(back.cpu_scaling[0].chain);
  for (std::int64_t c : {2, 16})
    for (double t : {2.0, 6.0}) {
      wider_limit la{}, lb{};
      const auto a = predict_cpu_scaling(m.cpu_scaling[0], c, t, la);
      const auto b = predict_cpu_scaling(back.cpu_scaling[0], c, t, lb);
      EXPECT_DOUBLE_EQ(b.value, a.value);
      EXPECT_EQ(lb, la);
      EXPECT_EQ(la, wider_limit::one_in_flight) << "C = " << c << ", T = " << t;
      EXPECT_TRUE(a.upper_bound) << "C = " << c << ", T = " << t;
      // The floor prices hand-offs between the two CPUs measured: none beyond two.
      if (a.has_interval) {
        EXPECT_EQ(a.lo > 0, c == 2) << "C = " << c << ", T = " << t;
      }
      // One CPU less its switches, however wide the machine (beyond T = 4 the count grows with T).
      const double w = t <= 4 ? 0.25 : 0.25 * t / 4;
      EXPECT_NEAR(a.value / (1 / (1 / one_cpu_rate - w * 4e-6)), 1, 1e-3) << "C = " << c << ", T = " << t;
    }
  // One CPU is the series itself: no chain there.
  wider_limit l{};
  predict_cpu_scaling(m.cpu_scaling[0], 1, 2, l);
  EXPECT_NE(l, wider_limit::one_in_flight);
  // Malformed: refused by name; absent or null: none.
  test::expect_each_block_refused(
      j, "one_in_flight",
      {nlohmann::json("one"), nlohmann::json{{"switch_s", 0}, {"switches", {{{"n", 1}, {"switches", 0}}}}},
       nlohmann::json{{"switch_s", 4e-6}, {"switches", nlohmann::json::array()}},
       nlohmann::json{{"switch_s", 4e-6}, {"switches", {{{"n", 2}, {"switches", 0}}, {{"n", 1}, {"switches", 0}}}}},
       nlohmann::json{{"switch_s", 4e-6}, {"switches", {{{"n", 1}, {"switches", -1}}}}}},
      "cpu_scaling[0]");
  EXPECT_DOUBLE_EQ(back.cpu_scaling[0].chain->cross_s, m.cpu_scaling[0].chain->cross_s);
  nlohmann::json spoilt = j;
  spoilt["cpu_scaling"][0]["one_in_flight"]["cross_s"] = -1;
  EXPECT_THROW(model_set_from_json(spoilt, "m.json"), datasets::input_error);
  spoilt["cpu_scaling"][0]["one_in_flight"]["cross_s"] = nullptr;  // not measured: no floor
  EXPECT_TRUE(std::isnan(model_set_from_json(spoilt, "m.json").cpu_scaling[0].chain->cross_s));
  nlohmann::json older = j;
  older["cpu_scaling"][0]["one_in_flight"].erase("cross_s");
  EXPECT_TRUE(std::isnan(model_set_from_json(older, "o.json").cpu_scaling[0].chain->cross_s));
  older["cpu_scaling"][0].erase("one_in_flight");
  EXPECT_FALSE(model_set_from_json(older, "o.json").cpu_scaling[0].chain);
}

}  // namespace
}  // namespace pollscale::model
