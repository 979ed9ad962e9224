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
  const double w = measured_write_s > 0 ? measured_write_s : write_s;
  const double a = measured_consumer_s > 0 ? measured_consumer_s : consumer_s;
  return (1 / (w + line_s) + 1 / w) / (1 + (a / t + line_s) / w);
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

namespace {

// w and a of 1/X(T) - take_out(T) = w + a/T, least squares; its covariance where df >= 1.
pipeline_fit split(const std::vector<one_cpu_row>& rows, const std::vector<double>& take_out) {
  linear_problem ls;
  ls.x.resize(static_cast<Eigen::Index>(rows.size()), 2);
  ls.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (Eigen::Index i = 0; i < ls.y.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    ls.x(i, 0) = 1;
    ls.x(i, 1) = 1.0 / rows[k].t;
    ls.y(i) = 1.0 / rows[k].rate - take_out[k];
  }
  const linear_solution fit = solve_linear(ls);
  pipeline_fit f;
  f.write_s = fit.beta(0);
  f.consumer_s = fit.beta(1);
  f.df = static_cast<int>(fit.df);
  if (f.df >= 1 && fit.covariance.allFinite() && std::isfinite(fit.sigma2)) {
    f.cov_ww = fit.covariance(0, 0);
    f.cov_wa = fit.covariance(0, 1);
    f.cov_aa = fit.covariance(1, 1);
    f.residual_var = fit.sigma2;
  }
  return f;
}

bool positive(const pipeline_fit& f) { return f.write_s > 0 && f.consumer_s > 0; }

}  // namespace

std::optional<pipeline_fit> fit_pipeline(const std::vector<one_cpu_row>& rows, const line_estimate& line,
                                         std::optional<double> switch_s, std::string& note) {
  std::set<double> ts;
  for (const auto& r : rows) {
    if (!(r.t >= 1) || !std::isfinite(r.rate) || !(r.rate > 0)) {
      note = "a one-CPU row with T = " + std::to_string(r.t) + " and rate " + std::to_string(r.rate);
      return std::nullopt;
    }
    ts.insert(r.t);
  }
  if (ts.size() < 2) {
    note = "fewer than two producer counts on one CPU to split a write from the consumer's share";
    return std::nullopt;
  }
  if (!std::isfinite(line.s) || !(line.s >= 0)) {
    note = "the cache line's round trip is not a time";
    return std::nullopt;
  }
  const pipeline_fit measured = split(rows, std::vector<double>(rows.size(), 0.0));
  if (!positive(measured)) {
    note = "the one-CPU series does not split into a write and a consumer's share that falls with T";
    return std::nullopt;
  }
  pipeline_fit f = measured;
  const bool counted = std::all_of(rows.begin(), rows.end(),
                                   [](const one_cpu_row& r) { return std::isfinite(r.sleeps) && r.sleeps >= 0; });
  if (counted && switch_s && std::isfinite(*switch_s) && *switch_s > 0) {
    std::vector<double> take_out;
    for (const auto& r : rows) take_out.push_back(r.sleeps * *switch_s);
    if (const pipeline_fit apart = split(rows, take_out); positive(apart)) {
      f = apart;
      f.switch_s = *switch_s;
    } else {
      note =
          "the one-CPU series less its consumer's switches does not split into a write and a share > 0; "
          "split as measured";
    }
  }
  f.measured_write_s = measured.write_s;
  f.measured_consumer_s = measured.consumer_s;
  f.line_s = line.s;
  f.line_var = line.var_s2;
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
