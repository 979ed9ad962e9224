// The simulator checked against a calibration's live-server rows
// (studies/simulator_check.hpp), on a corpus calibration: every epoll row is simulated with
// the fitted costs; rows that read exactly what the simulation gives leave no discrepancy,
// rows planted at ×2.5 and ÷2.5 around it give a log sd a little under log 2.5, what the
// simulations' own spread leaves; a dataset without server rows, or a model without the generator's cells, says why.

#include "studies/simulator_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

#include "model/cell_fit.hpp"
#include "model/fit.hpp"
#include "model/observations.hpp"
#include "tests/studies/synthetic_model.hpp"

namespace pollscale::studies {
namespace {

const std::filesystem::path corpus_quick = std::filesystem::path(POLLSCALE_SOURCE_DIR) /
                                           "datasets/machines/amd-epyc_l2-512k_l3-32m_2cpu_6.18.44-fc-v1045/"
                                           "quick-20261201T125036Z";

simulator_check_options quick_options() {
  simulator_check_options o;
  o.mechanisms = {"epoll"};
  o.duration_s = 0.05;  // short replications: the test asks what the check does, not how precisely
  return o;
}

class SimulatorCheckTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = std::make_unique<model::observation_set>(model::load_observations(corpus_quick));
    model::fit_options options;
    options.skip_unfittable = true;  // as pollscale fit does: a one-point cell is left out
    models_ = std::make_shared<const model::model_set>(model::fit_models(*data_, options));
  }
  static void TearDownTestSuite() {
    data_.reset();
    models_.reset();
  }
  // The data with each checked row's value replaced by what `value` says for it.
  template <typename F>
  static model::observation_set replaced(const simulator_check& check, F value) {
    std::map<std::string, double> by_where;
    for (std::size_t i = 0; i < check.rows.size(); ++i) by_where[check.rows[i].where] = value(check.rows[i], i);
    model::observation_set out = *data_;
    for (auto& o : out.rows)
      if (const auto it = by_where.find(o.where); it != by_where.end()) o.value = it->second;  // unit 1/s
    return out;
  }
  static inline std::unique_ptr<model::observation_set> data_;
  static inline std::shared_ptr<const model::model_set> models_;
};

TEST_F(SimulatorCheckTest, EveryEpollRowIsSimulatedWithTheGeneratorFromTheModel) {
  std::string why;
  const auto check = check_simulator(*data_, models_, quick_options(), &why);
  ASSERT_TRUE(check.has_value()) << why;
  EXPECT_EQ(check->rows.size(), 8u);  // the quick profile's epoll rows: 1 and 8 clients at several c
  EXPECT_EQ(check->discrepancy.rows, 8u);
  EXPECT_EQ(check->discrepancy.mechanisms, (std::vector<std::string>{"epoll"}));
  EXPECT_GT(check->generator_per_message_s, 1e-6);  // a recv and a send: microseconds
  EXPECT_GT(check->generator_wakeup_s, 1e-6);
  for (const auto& r : check->rows) {
    EXPECT_EQ(r.mechanism, "epoll");
    EXPECT_GT(r.simulated.mean, 0) << r.where;
    EXPECT_LE(r.simulated.ci95_lo, r.simulated.mean);
    EXPECT_GE(r.simulated.ci95_hi, r.simulated.mean);
  }
  EXPECT_TRUE(std::isfinite(check->discrepancy.log_sd));
}

TEST_F(SimulatorCheckTest, RowsAtTheSimulationLeaveNoneAndPlantedErrorsAreRecovered) {
  const auto first = check_simulator(*data_, models_, quick_options());
  ASSERT_TRUE(first.has_value());
  const auto exact = replaced(*first, [](const simulator_check_row& r, std::size_t) { return r.simulated.mean; });
  const auto none = check_simulator(exact, models_, quick_options());
  ASSERT_TRUE(none.has_value());
  EXPECT_LT(none->discrepancy.log_sd, 0.02);  // same seed, same simulation: errors 0
  EXPECT_LT(none->discrepancy.median_abs_error, 1e-9);
  const auto planted = replaced(*first, [](const simulator_check_row& r, std::size_t i) {
    return r.simulated.mean * (i % 2 == 0 ? 2.5 : 1 / 2.5);
  });
  const auto found = check_simulator(planted, models_, quick_options());
  ASSERT_TRUE(found.has_value());
  EXPECT_NEAR(found->discrepancy.rms_log_error, std::log(2.5), 1e-6);
  // Beyond the simulations' own spread (this model's epoll intervals are wide: a log sd
  // of about 0.3): under log 2.5 = 0.92, and well above that spread.
  EXPECT_GT(found->discrepancy.log_sd, 0.7);
  EXPECT_LE(found->discrepancy.log_sd, std::log(2.5) + 1e-3);
}

TEST_F(SimulatorCheckTest, WithoutServerRowsOrGeneratorCellsItSaysWhy) {
  std::string why;
  const auto synthetic =
      model::load_observations(std::filesystem::path(POLLSCALE_SOURCE_DIR) / "tests/model/data/synthetic");
  EXPECT_FALSE(check_simulator(synthetic, models_, quick_options(), &why).has_value());
  EXPECT_NE(why.find("no live-server"), std::string::npos) << why;
  why.clear();
  const auto bare = std::make_shared<const model::model_set>(test::synthetic_model());  // no handler, no wakeup
  EXPECT_FALSE(check_simulator(*data_, bare, quick_options(), &why).has_value());
  EXPECT_NE(why.find("load generator"), std::string::npos) << why;
}

}  // namespace
}  // namespace pollscale::studies
