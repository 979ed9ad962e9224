// Reproducing the seeds' server tables with the simulator (issue 4, "Validation"): LSE's
// dphttpd reply rate against dead connections and pipetest's token passes per second,
// with costs fitted to each published series' own small-n rows only.
//
// The fit is deliberately simple and stated: the time per operation, 1/rate, as
// fixed + per_fd * x (x = descriptors the wait call scans), least squares on relative
// error with per_fd >= 0 (Eigen), or as a constant when leave-one-out says the slope does
// not predict held-out rows better (the parsimony rule of Extra-P, with two candidate
// forms). The published tables give no finer split, so the fixed
// part becomes the handler cost and per_fd the wait call's cost per registered fd; the
// simulator then runs the server or the ring at every published n.
//
// The simulated servers: dphttpd (Libenzi's single-threaded poll/epoll HTTP server) behind
// httperf serves one new connection per wait call, so a reply costs one wait call over
// every connection plus its handling: one thread, one CPU, `clients` closed-loop clients,
// at most one event per call. pipetest: one process, one token (the seed does not say how
// many were in flight), a ring of n pipes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/historical.hpp"

namespace pollscale::studies {

/// T(x) = fixed_s + per_fd_s * x, fitted to one (mechanism, variant) series.
struct per_op_fit {
  std::string mechanism;
  std::string variant;
  double fixed_s = 0;
  double per_fd_s = 0;
  std::size_t points = 0;  ///< rows the fit used
  std::string form;        ///< "fixed + per_fd*n" or "fixed"
  double loo_linear = 0;   ///< leave-one-out mean |relative error| of each form (NaN: < 3 rows)
  double loo_constant = 0;
};

/// One published row and the simulator's figure for it.
struct seed_row {
  std::string mechanism;
  std::string variant;
  std::int64_t n = 0;    ///< dead connections (dphttpd) or pipes (pipetest)
  double measured = 0;   ///< published rate, 1/s
  double simulated = 0;  ///< simulated rate, 1/s
  double rel_err = 0;    ///< (simulated - measured) / measured
  bool trained = false;  ///< the row was used to fit the costs
  std::size_t line = 0;  ///< line in the historical file
};

struct seed_reproduction {
  std::string table;  ///< "dphttpd" or "pipetest"
  std::int64_t train_max_n = 0;
  std::vector<per_op_fit> fits;
  std::vector<seed_row> rows;
};

/// Fits T(x) to (x, rate) points: weighted least squares with weights 1/T^2 (relative
/// error), per_fd clamped at 0 when the unconstrained slope is negative; the constant form
/// is chosen instead unless the linear one's leave-one-out error is lower (with >= 3
/// points). Throws std::invalid_argument without points or with a rate not finite > 0.
per_op_fit fit_per_op_time(const std::vector<double>& x, const std::vector<double>& rate);

/// Reproduces the dphttpd table (scenario server, metric throughput) in `rows`, fitting
/// each series on its rows with n <= train_max_n. Throws std::invalid_argument when a
/// series has no row to train on or the rows are not that table's.
seed_reproduction reproduce_dphttpd(const std::vector<datasets::historical_row>& rows, std::int64_t train_max_n,
                                    std::int64_t clients = 10);

/// Reproduces the pipetest table (scenario token_ring, metric throughput) likewise.
seed_reproduction reproduce_pipetest(const std::vector<datasets::historical_row>& rows, std::int64_t train_max_n);

}  // namespace pollscale::studies
