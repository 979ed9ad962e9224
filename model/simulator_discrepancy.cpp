#include "model/simulator_discrepancy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/math/tools/minima.hpp>

#include "datasets/statistics.hpp"

namespace pollscale::model {
namespace {

void check_row(const checked_row& r, std::size_t i) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(r.measured) || !positive(r.simulated))
    throw std::invalid_argument("simulator check row " + std::to_string(i) + ": measured " +
                                std::to_string(r.measured) + ", simulated " + std::to_string(r.simulated) +
                                " (both must be finite and > 0)");
  if (!std::isfinite(r.log_sd) || r.log_sd < 0)
    throw std::invalid_argument("simulator check row " + std::to_string(i) + ": log_sd " + std::to_string(r.log_sd) +
                                " is not finite and >= 0");
}

// Minus the log-likelihood of the rows' log errors at τ (constants dropped). A row with no
// spread of its own and τ = 0 would be a zero variance: a floor of 1e-6 (a millionth of a
// factor) keeps it finite without moving any τ worth reporting.
double minus_log_likelihood(std::span<const checked_row> rows, double tau) {
  double sum = 0;
  for (const auto& r : rows) {
    const double e = std::log(r.measured / r.simulated);
    const double v = std::max(r.log_sd * r.log_sd + tau * tau, 1e-12);
    sum += 0.5 * std::log(v) + 0.5 * e * e / v;
  }
  return sum;
}

// The ML τ on [0, tau_max]: the best of a coarse grid (the likelihood in τ need not be
// unimodal), then Brent's method between the grid points either side of it.
double ml_tau(std::span<const checked_row> rows) {
  constexpr double tau_max = 5;
  constexpr int grid = 200;
  int best = 0;
  double best_value = minus_log_likelihood(rows, 0);
  for (int i = 1; i <= grid; ++i) {
    const double v = minus_log_likelihood(rows, tau_max * i / grid);
    if (v < best_value) {
      best_value = v;
      best = i;
    }
  }
  const double lo = tau_max * std::max(best - 1, 0) / grid, hi = tau_max * std::min(best + 1, grid) / grid;
  const auto f = [&](double tau) { return minus_log_likelihood(rows, tau); };
  const auto [tau, value] = boost::math::tools::brent_find_minima(f, lo, hi, 40);
  return value <= best_value ? tau : tau_max * best / grid;
}

}  // namespace

simulator_discrepancy estimate_discrepancy(std::span<const checked_row> rows, std::vector<std::string> mechanisms) {
  if (rows.empty()) throw std::invalid_argument("simulator check: no rows to estimate a discrepancy from");
  std::vector<double> abs_errors;
  double squares = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    check_row(rows[i], i);
    abs_errors.push_back(std::abs(rows[i].simulated / rows[i].measured - 1));
    const double e = std::log(rows[i].measured / rows[i].simulated);
    squares += e * e;
  }
  std::sort(mechanisms.begin(), mechanisms.end());
  mechanisms.erase(std::unique(mechanisms.begin(), mechanisms.end()), mechanisms.end());
  simulator_discrepancy out;
  out.log_sd = ml_tau(rows);
  out.rows = rows.size();
  out.median_abs_error = datasets::median(abs_errors);
  out.rms_log_error = std::sqrt(squares / static_cast<double>(rows.size()));
  out.mechanisms = std::move(mechanisms);
  return out;
}

}  // namespace pollscale::model
