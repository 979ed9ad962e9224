// Named basis functions: the regressors a cost model is a weighted sum of. Each mirrors a
// piece of the kernel's work (docs/model.md); `power_log` is the
// Extra-P family for metrics no mechanism explains.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/schema.hpp"

namespace pollscale::model {

/// The regressors of one point, derived from its key columns.
struct point {
  double n = 0;      ///< n_fds: descriptors registered / passed (>= 0)
  double k = 1;      ///< n_active: ready descriptors (>= 0)
  double p = 0;      ///< descriptors scanned up to the first ready one (active_pos)
  double words = 0;  ///< 64-bit bitmap words select scans: ceil((max_fd + 1) / 64)
};

/// Derives a point from key columns. Absent n_fds gives n = 0; absent n_active k = 1;
/// absent max_fd assumes descriptors numbered from 3 (max_fd = n_fds + 2). active_pos:
/// first -> 1, middle -> n/2, last -> n, top -> n-k+1, spread/random/"" -> n/(k+1).
point point_of(const datasets::key& k);

enum class basis_kind {
  constant,        ///< 1: the fixed cost of one call
  per_fd,          ///< n
  per_word,        ///< ceil((max_fd+1)/64)
  per_ready,       ///< k
  per_registered,  ///< p: wait entries registered before the first ready fd (blocking)
  log_n,           ///< log2(max(n, 1)): tree depth (epoll_ctl)
  fd_per_ready,    ///< n / max(k, 1): a scan over n shared by the k events it finds
  inverse_ready,   ///< 1 / max(k, 1): a fixed cost shared by k events
  power_log,       ///< n^i · log2(n)^j (Extra-P), 0 at n = 0
  working_set,     ///< n · Δlat(n · bytes_per_fd): extra ns per fd once caches overflow
  overflow,        ///< n · [k > threshold]: RT-signal queue overflow, fall back to poll(n)
  fd_times_ready,  ///< n · k: a scan over n paid once per ready client (closed-loop latency)
  cycle_set,       ///< Δlat(n · bytes_per_fd): one of n objects per operation, all n per lap
  entry_set,       ///< p · Δlat(n · bytes_per_fd): a blocking call's wait entries, once caches overflow
};

/// A basis function with its parameters (value type; cheap to copy).
struct basis {
  basis_kind kind = basis_kind::constant;
  double i = 0;             ///< power_log: exponent of n
  double j = 0;             ///< power_log: exponent of log2 n
  double bytes_per_fd = 0;  ///< working_set, cycle_set, entry_set: kernel bytes touched per fd
  /// working_set, sorted by bytes. Measured (latency_measured): (working-set bytes, extra
  /// ns per dependent load) knots, interpolated linearly in log(bytes), flat outside.
  /// From cache geometry: (level size in bytes, ns added by missing that level), the extra
  /// latency at working set W being the sum of delta * max(0, 1 - size/W).
  std::vector<std::pair<double, double>> latency;
  bool latency_measured = false;
  double latency_scale = 1;      ///< working_set: converts ns into the response's unit
  bool shared_by_ready = false;  ///< working_set: the scan is shared by k events (divide by k)
  double threshold = 0;          ///< overflow: events the signal queue holds

  /// The value of this regressor at `x`.
  double operator()(const point& x) const;
};

/// The stable name of a basis ("fixed", "per_fd", "n^1.5*log2(n)^1", ...).
std::string basis_name(const basis& b);
/// What the coefficient of `b` means, in the kernel's terms (one sentence).
std::string basis_meaning(const basis& b);
/// The unit of the coefficient of `b` when the response is in `unit`, e.g. "ns/fd".
std::string coefficient_unit(const basis& b, const std::string& unit);
/// How `b` is written in a formula, e.g. "n", "⌈(maxfd+1)/64⌉", "n·Δlat(n·256 B)".
std::string basis_symbol(const basis& b);

/// JSON round trip of a basis (kind name and its parameters). from_json throws
/// std::invalid_argument naming the problem when the object is not a basis.
nlohmann::json basis_to_json(const basis& b);
basis basis_from_json(const nlohmann::json& j);

}  // namespace pollscale::model
