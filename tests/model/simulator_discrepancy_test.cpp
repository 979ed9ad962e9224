// The simulator's discrepancy (model/simulator_discrepancy.hpp): a planted τ is recovered
// from rows whose log errors scatter by sqrt(s² + τ²), errors no larger than the rows' own
// spread give τ near 0, and bad rows are refused by index.

#include "model/simulator_discrepancy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace pollscale::model {
namespace {

std::vector<checked_row> planted(double tau, double own_sd, int n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<checked_row> rows;
  for (int i = 0; i < n; ++i) {
    const double sd = own_sd * (0.5 + (i % 3) * 0.5);  // rows of unequal spread: 0.5, 1, 1.5 × own_sd
    const double e = std::sqrt(sd * sd + tau * tau) * z(g);
    rows.push_back({1000 * std::exp(e), 1000, sd});
  }
  return rows;
}

TEST(SimulatorDiscrepancyTest, APlantedDiscrepancyIsRecovered) {
  for (const double tau : {0.1, 0.2, 0.5}) {
    const auto rows = planted(tau, 0.05, 600, 7);
    const simulator_discrepancy d = estimate_discrepancy(rows, {"poll", "epoll", "poll"});
    EXPECT_NEAR(d.log_sd, tau, 0.1 * tau) << tau;  // se about tau / sqrt(2 · 600)
    EXPECT_EQ(d.rows, 600u);
    EXPECT_EQ(d.mechanisms, (std::vector<std::string>{"epoll", "poll"}));
    EXPECT_GT(d.rms_log_error, d.log_sd);  // the rows' own spread is in the whole error too
  }
}

TEST(SimulatorDiscrepancyTest, ErrorsTheRowsOwnSpreadExplainsGiveNoDiscrepancy) {
  const simulator_discrepancy d = estimate_discrepancy(planted(0, 0.2, 600, 3), {"poll"});
  EXPECT_LT(d.log_sd, 0.05);
  // A simulation exact on every row: nothing to carry.
  const std::vector<checked_row> exact(8, checked_row{500, 500, 0.01});
  EXPECT_NEAR(estimate_discrepancy(exact, {"epoll"}).log_sd, 0, 1e-3);
}

TEST(SimulatorDiscrepancyTest, TheErrorSummariesAreTheRowsOwn) {
  // Errors of +25% and -20% (log ±0.223): rms 0.223, median |error| 22.5%.
  const std::vector<checked_row> rows{{100, 125, 0}, {100, 80, 0}};
  const simulator_discrepancy d = estimate_discrepancy(rows, {"poll"});
  EXPECT_NEAR(d.rms_log_error, std::log(1.25), 1e-9);
  EXPECT_NEAR(d.median_abs_error, 0.225, 1e-9);
  EXPECT_NEAR(d.log_sd, std::log(1.25), 2e-3);  // no spread of their own: all of it is the simulator's
}

TEST(SimulatorDiscrepancyTest, BadRowsAreRefusedByIndex) {
  EXPECT_THROW(estimate_discrepancy({}, {}), std::invalid_argument);
  const double nan = std::nan("");
  for (const checked_row bad : {checked_row{0, 1, 0}, checked_row{1, -1, 0}, checked_row{nan, 1, 0},
                                checked_row{1, 1, -0.1}, checked_row{1, 1, nan}}) {
    const std::vector<checked_row> rows{{1, 1, 0}, bad};
    try {
      estimate_discrepancy(rows, {"poll"});
      ADD_FAILURE() << "accepted a bad row";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pollscale::model
