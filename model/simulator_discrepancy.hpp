// How far a simulation driven by a fitted model lands from the machine's own live server,
// beyond what the model's uncertainty already says. A drawn simulation (studies/model_costs.hpp)
// carries the fitted costs' intervals into its answer; those intervals say how far the
// *costs* could move if the machine were measured again. They say nothing about how well
// the simulator's structure — which costs it charges, in which order, on which CPU — turns
// those costs into a server's replies per second. The calibration measures such a server
// (calibrate/probes/server.cpp), so the check can be made on the machine itself:
// simulate each live-server row from the model (studies/simulator_check.hpp) and ask how
// much the measurements scatter around the simulations beyond each simulation's own spread.
//
// The estimate is the random-effects one (DerSimonian and Laird's setting, fitted by
// maximum likelihood): each row's log error e_i = log(measured / simulated) is taken as
// normal with variance s_i² + τ², s_i the row's own spread (its drawn interval, log scale)
// and τ the simulator's. τ = 0 when the errors are what the model's intervals predict.
// A drawn simulation then also scales every model cost of one replication by one common
// factor exp(τ·z) — so the answer's interval says where the live server would be, not only
// where the simulation would be on a fresh measurement of the costs.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace pollscale::model {

/// One live-server row and the drawn simulation of it.
struct checked_row {
  double measured = 0;   ///< replies per second the probe measured, > 0
  double simulated = 0;  ///< the drawn simulation's mean, > 0
  double log_sd = 0;     ///< the simulation's own spread, sd of log(replies/s), >= 0
};

/// The simulator's discrepancy on the fitted machine (model.json simulator_check).
struct simulator_discrepancy {
  double log_sd = 0;  ///< τ: sd of log(measured / simulated) beyond the rows' own spread, >= 0
  std::size_t rows = 0;
  double median_abs_error = 0;          ///< median |simulated / measured − 1| over the rows
  double rms_log_error = 0;             ///< sqrt(mean e_i²): the errors' whole size, bias included
  std::vector<std::string> mechanisms;  ///< the mechanisms whose rows were checked, sorted
};

/// τ by maximum likelihood, e_i ~ N(0, s_i² + τ²) (Brent's method on [0, 5]: a factor of e⁵
/// is past any simulator worth checking). Throws std::invalid_argument for no rows, or a row
/// whose measured or simulated value is not finite and > 0 or whose log_sd is not finite and
/// >= 0 (naming the row).
simulator_discrepancy estimate_discrepancy(std::span<const checked_row> rows, std::vector<std::string> mechanisms);

}  // namespace pollscale::model
