// A serial stage's hold as a machine fact (model/stage_hold.hpp): planted shared_epoll
// series on one and two CPUs, as calibrate lays them out, give back the planted hold in
// seconds whatever the rate's unit; the simulator's choice among several stages.

#include "model/stage_hold.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"
#include "model/serial_stage.hpp"
#include "tests/model/shared_epoll_rows.hpp"

namespace pollscale::model {
namespace {

using test::ring_row;

// One CPU passes a token every `demand` seconds whatever T; two CPUs pass them through a
// stage held `hold` seconds of it. `per_unit`: the unit's share of a second (1/ms: 1e-3).
void add_rings(observation_set& s, std::int64_t tokens, double demand, double hold, const std::string& unit,
               double per_unit) {
  for (std::int64_t t = 1; t <= 4; ++t) {
    const std::int64_t k = tokens == 0 ? t : tokens;
    s.rows.push_back(ring_row(t, 1, k, datasets::metric::throughput, unit, per_unit / demand));
    if (t >= 2)
      s.rows.push_back(ring_row(t, 2, k, datasets::metric::throughput, unit,
                                per_unit * serial_stage_throughput(demand - hold, hold, t, 2)));
  }
}

TEST(StageHoldTest, APlantedHoldComesBackInSecondsWhateverTheRatesUnit) {
  for (const auto& [unit, per_unit] : {std::pair{std::string("1/s"), 1.0}, std::pair{std::string("1/ms"), 1e-3}}) {
    observation_set data;
    data.source = "planted rings";
    add_rings(data, 0, 3.5e-6, 1.2e-6, unit, per_unit);  // a token for every thread
    add_rings(data, 1, 3.5e-6, 2.0e-6, unit, per_unit);  // one token among them
    const auto holds = fit_stage_holds(data);
    ASSERT_EQ(holds.size(), 2u) << unit;
    for (const auto& h : holds) {
      EXPECT_EQ(h.cpus, 2);
      EXPECT_GE(h.points, 3);  // T = 2, 3, 4 on two CPUs, and the rows every series shares
      EXPECT_DOUBLE_EQ(h.max_threads, 4);
      EXPECT_NE(h.structure.find("epoll instance"), std::string::npos);
      EXPECT_NEAR(h.hold_s / (h.experiment.n_active ? 2.0e-6 : 1.2e-6), 1, 1e-3) << unit;
    }
    const stage_hold* shared = shared_instance_hold(holds, "epoll", "");
    ASSERT_NE(shared, nullptr);
    EXPECT_FALSE(shared->experiment.n_active.has_value());  // a token for every thread is preferred
    EXPECT_EQ(shared_instance_hold(holds, "epoll", "lt"), shared);
    EXPECT_EQ(shared_instance_hold(holds, "epoll", "et"), nullptr);
    EXPECT_EQ(shared_instance_hold(holds, "io_uring", ""), nullptr);
  }
}

TEST(StageHoldTest, DataWithoutASeriesWiderThanOneCpuHasNoStage) {
  observation_set one_cpu;
  one_cpu.source = "one CPU";
  for (std::int64_t t = 1; t <= 4; ++t)
    one_cpu.rows.push_back(ring_row(t, 1, t, datasets::metric::throughput, "1/s", 2.8e5));
  EXPECT_TRUE(fit_stage_holds(one_cpu).empty());
  observation_set none;
  none.source = "no rows";
  EXPECT_TRUE(fit_stage_holds(none).empty());
  // A private set per thread (EPOLLEXCLUSIVE, one instance each) shares no structure.
  observation_set exclusive;
  exclusive.source = "exclusive";
  add_rings(exclusive, 0, 3.5e-6, 1.2e-6, "1/s", 1.0);
  for (auto& o : exclusive.rows) o.k.variant = "exclusive";
  EXPECT_TRUE(fit_stage_holds(exclusive).empty());
}

}  // namespace
}  // namespace pollscale::model
