#include "model/producer_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

#include "datasets/schema.hpp"
#include "datasets/statistics.hpp"
#include "datasets/vocabulary.hpp"
#include "model/forms.hpp"
#include "model/linear_fit.hpp"

namespace pollscale::model {

double pipeline_fit::rate() const { return std::min(1.0 / (write_s + line_s), 1.0 / (consumer_s + line_s)); }

double pipeline_fit::both_busy_rate(double t) const {
  return (1 / (write_s + line_s) + 1 / write_s) / (1 + (consumer_s / t + line_s) / write_s);
}

bool pipeline_fit::uncertainty_known(std::string& why) const {
  const double stage_var = write_s >= consumer_s ? cov_ww : cov_aa;
  if (df < 0 || (df >= 1 && (!std::isfinite(stage_var) || !std::isfinite(residual_var)))) {
    why = "the parts' uncertainty is not known (a model.json written without it)";
    return false;
  }
  if (df == 0) {
    why = "two producer counts on one CPU fit w and a exactly (df = 0)";
    return false;
  }
  if (!std::isfinite(line_var)) {
    why = "the cache line was measured in fewer than two visits";
    return false;
  }
  return true;
}

std::pair<double, double> pipeline_fit::time_and_half_width() const {
  const bool write_binds = write_s >= consumer_s;
  const double stage_var = write_binds ? cov_ww : cov_aa;
  const double time = (write_binds ? write_s : consumer_s) + line_s;  // seconds per event
  const double var = std::max(0.0, stage_var) + std::max(0.0, residual_var) + std::max(0.0, line_var);
  return {time, boost::math::quantile(boost::math::students_t(df), 0.975) * std::sqrt(var)};
}

std::optional<std::pair<double, double>> pipeline_fit::interval(std::string& why) const {
  if (!uncertainty_known(why)) return std::nullopt;
  const auto [time, half] = time_and_half_width();
  if (!(time - half > 0)) {
    why = "the interval of an event's time reaches zero";
    return std::nullopt;
  }
  return std::pair{1.0 / (time + half), 1.0 / (time - half)};
}

std::optional<double> pipeline_fit::open_interval_lo() const {
  std::string why;
  if (!uncertainty_known(why)) return std::nullopt;
  const auto [time, half] = time_and_half_width();
  if (time - half > 0) return std::nullopt;  // closed: interval() has both ends
  return 1.0 / (time + half);
}

std::optional<pipeline_fit> fit_pipeline(const std::vector<std::pair<double, double>>& t_rate,
                                         const line_estimate& line, std::string& note) {
  const double line_s = line.s;
  std::set<double> ts;
  for (const auto& [t, x] : t_rate) {
    if (!(t >= 1) || !std::isfinite(x) || !(x > 0)) {
      note = "a one-CPU row with T = " + std::to_string(t) + " and rate " + std::to_string(x);
      return std::nullopt;
    }
    ts.insert(t);
  }
  if (ts.size() < 2) {
    note = "fewer than two producer counts on one CPU to split a write from the consumer's share";
    return std::nullopt;
  }
  if (!std::isfinite(line_s) || !(line_s >= 0)) {
    note = "the cache line's round trip is not a time";
    return std::nullopt;
  }
  linear_problem ls;  // 1/X = w + a/T, least squares
  ls.x.resize(static_cast<Eigen::Index>(t_rate.size()), 2);
  ls.y.resize(static_cast<Eigen::Index>(t_rate.size()));
  for (Eigen::Index i = 0; i < ls.y.size(); ++i) {
    const auto& [t, x] = t_rate[static_cast<std::size_t>(i)];
    ls.x(i, 0) = 1;
    ls.x(i, 1) = 1.0 / t;
    ls.y(i) = 1.0 / x;
  }
  const linear_solution fit = solve_linear(ls);
  pipeline_fit f;
  f.write_s = fit.beta(0);
  f.consumer_s = fit.beta(1);
  f.line_s = line_s;
  f.df = static_cast<int>(fit.df);
  if (f.df >= 1 && fit.covariance.allFinite() && std::isfinite(fit.sigma2)) {
    f.cov_ww = fit.covariance(0, 0);
    f.cov_wa = fit.covariance(0, 1);
    f.cov_aa = fit.covariance(1, 1);
    f.residual_var = fit.sigma2;
  }
  f.line_var = line.var_s2;
  if (!(f.write_s > 0) || !(f.consumer_s > 0)) {
    note = "the one-CPU series does not split into a write and a consumer's share that falls with T";
    return std::nullopt;
  }
  return f;
}

std::optional<line_estimate> cache_line_round_trip(const observation_set& data) {
  for (const auto& o : data.rows) {
    if (o.k.scenario != datasets::scenario::cache_line || o.k.pinning != "0+1") continue;
    if (is_rate(o.k) || !std::isfinite(o.value) || !(o.value > 0)) continue;
    double to_s = 0;
    try {
      to_s = datasets::to_si_factor(o.k.unit);  // a time unit: to seconds
    } catch (const std::invalid_argument&) {
      continue;  // a count or bytes: not a round trip
    }
    line_estimate l{o.value * to_s, NAN};
    const auto& v = o.visit_medians;
    if (v.size() >= 2 && std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); })) {
      // A new measurement's variance: the visits' spread, plus that of their mean.
      const datasets::summary visits = datasets::summarise(v);
      l.var_s2 = (visits.stddev * visits.stddev + visits.stderr_mean * visits.stderr_mean) * to_s * to_s;
    }
    return l;
  }
  return std::nullopt;
}

}  // namespace pollscale::model
