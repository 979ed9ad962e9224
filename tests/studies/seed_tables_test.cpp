#include "studies/seed_tables.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace pollscale::studies {
namespace {

const std::string historical = std::string(POLLSCALE_SOURCE_DIR) + "/datasets/historical/";

TEST(SeedTablesTest, FitRecoversAPlantedLine) {
  // T(x) = 2 us + 30 ns x, exactly.
  std::vector<double> x = {10, 100, 1000, 5000}, rate;
  for (double v : x) rate.push_back(1 / (2e-6 + 30e-9 * v));
  const per_op_fit f = fit_per_op_time(x, rate);
  EXPECT_NEAR(f.fixed_s, 2e-6, 1e-15);
  EXPECT_NEAR(f.per_fd_s, 30e-9, 1e-18);
  EXPECT_EQ(f.form, "fixed + per_fd*n");
}

TEST(SeedTablesTest, FitPrefersAConstantWhenTheSlopeDoesNotPredict) {
  // Flat with alternating noise: a slope fits the noise and predicts held-out rows worse.
  const std::vector<double> x = {0, 100, 200, 400, 800}, rate = {1000, 1020, 980, 1020, 990};
  const per_op_fit f = fit_per_op_time(x, rate);
  EXPECT_EQ(f.form, "fixed");
  EXPECT_EQ(f.per_fd_s, 0);
  EXPECT_LT(f.loo_constant, f.loo_linear);
  EXPECT_THROW(fit_per_op_time({}, {}), std::invalid_argument);
  EXPECT_THROW(fit_per_op_time({1, 2}, {1, -1}), std::invalid_argument);
}

TEST(SeedTablesTest, DphttpdPollCollapsesWhileEpollStaysFlat) {
  const seed_reproduction r = reproduce_dphttpd(datasets::read_historical(historical + "lse_2002_dphttpd.csv"), 15000);
  double poll_0 = 0, poll_60000 = 0;
  for (const seed_row& row : r.rows) {
    if (row.mechanism == "epoll") {
      EXPECT_LT(std::fabs(row.rel_err), 0.06) << row.n << " " << row.variant;
    } else {
      EXPECT_LT(std::fabs(row.rel_err), 0.5) << row.n;
      if (row.n == 0) poll_0 = row.simulated;
      if (row.n == 60000) poll_60000 = row.simulated;
    }
  }
  ASSERT_GT(poll_0, 0);
  EXPECT_LT(poll_60000, 0.06 * poll_0);  // published: 414.5 vs 13331.1
}

TEST(SeedTablesTest, PipetestEpollStaysNearlyFlatWhilePollFalls) {
  const seed_reproduction r = reproduce_pipetest(datasets::read_historical(historical + "lse_2002_pipetest.csv"), 4000);
  double poll_10 = 0, poll_16000 = 0;
  for (const seed_row& row : r.rows) {
    if (row.trained) {
      EXPECT_LT(std::fabs(row.rel_err), 0.08) << row.mechanism << " " << row.n;
    }
    if (row.mechanism == "epoll") {
      EXPECT_LT(std::fabs(row.rel_err), 0.12) << row.n << " " << row.variant;
    } else if (row.n == 10) {
      poll_10 = row.simulated;
    } else if (row.n == 16000) {
      poll_16000 = row.simulated;
    }
  }
  ASSERT_GT(poll_10, 0);
  EXPECT_LT(poll_16000, 0.002 * poll_10);  // published: 38 vs 98469
  EXPECT_EQ(r.fits.size(), 3U);
  EXPECT_THROW(reproduce_pipetest(datasets::read_historical(historical + "lse_2002_pipetest.csv"), 5),
               std::invalid_argument);  // no row with n <= 5 to train on
}

}  // namespace
}  // namespace pollscale::studies
