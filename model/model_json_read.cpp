// Reading model.json back, checking every field a prediction relies on.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "datasets/csv_table.hpp"
#include "datasets/vocabulary.hpp"
#include "model/model_json.hpp"
#include "model/model_set.hpp"
#include "model/observations.hpp"

namespace pollscale::model {
namespace {

using nlohmann::json;

// Every malformed field becomes std::invalid_argument naming the field; the caller
// prefixes the file and model index.
double num(const json& j, const char* key, bool nullable = false) {
  if (!j.contains(key)) throw std::invalid_argument(std::string("missing '") + key + "'");
  if (nullable && j[key].is_null()) return not_available;
  if (!j[key].is_number()) throw std::invalid_argument(std::string("'") + key + "' is not a number");
  const double v = j[key].get<double>();
  if (!std::isfinite(v)) throw std::invalid_argument(std::string("'") + key + "' is not finite");
  return v;
}

/// A count (points, degrees of freedom, terms): a whole number in [0, 2^53], checked before
/// the cast (a float-to-integer cast of 1e30 or -1 is undefined behaviour).
std::size_t count(const json& j, const char* key) {
  const double v = num(j, key);
  if (v < 0 || v != std::floor(v) || v > 9007199254740992.0)
    throw std::invalid_argument(std::string("'") + key + "' is not a whole number of at most 2^53");
  return static_cast<std::size_t>(v);
}

std::string text(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string())
    throw std::invalid_argument(std::string("'") + key + "' is missing or not text");
  return j[key].get<std::string>();
}

bool flag(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_boolean())
    throw std::invalid_argument(std::string("'") + key + "' is missing or not true/false");
  return j[key].get<bool>();
}

const json& object(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_object())
    throw std::invalid_argument(std::string("'") + key + "' is missing or not an object");
  return j[key];
}

const json& array(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_array())
    throw std::invalid_argument(std::string("'") + key + "' is missing or not a list");
  return j[key];
}

Eigen::MatrixXd matrix(const json& rows, std::size_t cols, const char* what) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].is_array() || rows[r].size() != cols)
      throw std::invalid_argument(std::string("'") + what + "' row " + std::to_string(r) + " has the wrong length");
    for (std::size_t c = 0; c < cols; ++c) {
      if (!rows[r][c].is_number()) throw std::invalid_argument(std::string("'") + what + "' holds a non-number");
      m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = rows[r][c].get<double>();
    }
  }
  return m;
}

datasets::key cell_key(const json& c) {
  datasets::key k;
  for (auto col : datasets::key_columns()) {
    const std::string name(col);
    if (!c.contains(name) || c[name].is_null()) continue;
    const std::string value =
        c[name].is_number_integer() ? std::to_string(c[name].get<long long>())
        : c[name].is_string()
            ? c[name].get<std::string>()
            : throw std::invalid_argument("cell column '" + name + "' is neither text nor an integer");
    datasets::set_key_field(k, col, value);  // validates names and counts
  }
  if (k.scenario.empty() || k.metric.empty() || k.unit.empty())
    throw std::invalid_argument("cell lacks scenario, metric or unit");
  return k;
}

term read_term(const json& t) {
  term out;
  out.b = basis_from_json(object(t, "basis"));
  out.name = text(t, "name");
  out.meaning = text(t, "meaning");
  out.unit = text(t, "unit");
  out.coefficient = num(t, "coefficient");
  out.ci95_lo = num(t, "ci95_lo", true);
  out.ci95_hi = num(t, "ci95_hi", true);
  out.at_bound = flag(t, "at_bound");
  out.from_prior = flag(t, "from_prior");
  return out;
}

void read_fit(const json& f, cell_model& m) {
  m.stats.n_points = count(f, "n_points");
  m.stats.df = count(f, "df");
  m.stats.mape_in_sample = num(f, "mape_in_sample", true);
  m.stats.mape_loo = num(f, "mape_loo", true);
  m.stats.residual_spread = num(f, "residual_spread", true);
  m.stats.sigma_rel = num(f, "sigma_rel", true);
  m.stats.method = text(f, "method");
}

cell_model read_cell(const json& j) {
  cell_model m;
  m.cell = cell_key(object(j, "cell"));
  m.platform = text(j, "platform");
  m.kernel = text(j, "kernel");
  m.formula = text(j, "formula");
  const std::string response = text(j, "response");
  if (response != "value" && response != "reciprocal")
    throw std::invalid_argument("'response' is neither value nor reciprocal");
  m.reciprocal = response == "reciprocal";
  for (const auto& t : array(j, "terms")) m.terms.push_back(read_term(t));
  if (m.terms.empty()) throw std::invalid_argument("no terms");
  m.covariance = matrix(array(j, "covariance"), m.terms.size(), "covariance");
  if (m.covariance.rows() != static_cast<Eigen::Index>(m.terms.size()))
    throw std::invalid_argument("'covariance' is not square in the number of terms");
  m.t95 = num(j, "t95", true);
  read_fit(object(j, "fit"), m);
  const json& d = object(j, "domain");
  m.dom = {num(d, "n_min"),        num(d, "n_max"),     num(d, "n_active_min"),
           num(d, "n_active_max"), num(d, "words_min"), num(d, "words_max")};
  const json& sel = object(j, "selection");
  m.chosen_by = text(sel, "chosen_by");
  for (const auto& r : array(sel, "rivals"))
    m.rivals.push_back({text(r, "form"), count(r, "n_terms"), num(r, "mape_loo", true), text(r, "note")});
  if (j.contains("bootstrap")) {
    const json& b = object(j, "bootstrap");
    m.bootstrap = matrix(array(b, "coefficients"), m.terms.size(), "bootstrap.coefficients");
    for (const auto& e : array(b, "residuals")) {
      if (!e.is_number()) throw std::invalid_argument("'bootstrap.residuals' holds a non-number");
      m.bootstrap_residuals.push_back(e.get<double>());
    }
    if (m.bootstrap_residuals.size() != static_cast<std::size_t>(m.bootstrap.rows()))
      throw std::invalid_argument("'bootstrap' has residuals and coefficients of different counts");
  }
  return m;
}

// One shape of the "call_spread" block: its fields read with the helpers above, each error
// prefixed by where the shape is (`where`, e.g. call_spread.wait_calls[0]).
datasets::spread_shape read_shape(const json& j, const std::string& where) {
  datasets::spread_shape s;
  try {
    s.point = text(j, "point");
    s.mean_ns = num(j, "mean_ns");
    s.samples = count(j, "samples");
    s.visits = count(j, "visits");
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  const json& r = j.contains("ratios") ? j["ratios"] : json();
  if (!r.is_array() || r.size() != s.ratios.size())
    throw std::invalid_argument(where + ".ratios must hold " + std::to_string(s.ratios.size()) + " numbers");
  for (std::size_t i = 0; i < s.ratios.size(); ++i) {
    if (!r[i].is_number()) throw std::invalid_argument(where + ".ratios[" + std::to_string(i) + "] is not a number");
    s.ratios[i] = r[i].get<double>();
  }
  if (const std::string why = datasets::shape_problem(s); !why.empty()) throw std::invalid_argument(where + ": " + why);
  return s;
}

std::vector<datasets::spread_shape> read_shapes(const json& block, const char* field) {
  const std::string where = std::string("call_spread.") + field;
  if (!block.contains(field)) throw std::invalid_argument(where + " is missing");
  if (!block[field].is_array()) throw std::invalid_argument(where + " is not an array");
  std::vector<datasets::spread_shape> out;
  for (std::size_t i = 0; i < block[field].size(); ++i)
    out.push_back(read_shape(block[field][i], where + "[" + std::to_string(i) + "]"));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.mean_ns < b.mean_ns; });
  return out;
}

// The "call_spread" block (to_json; named after the scenario it comes from): absent or null
// for historical tables, datasets without call_spread rows and files written before it.
std::optional<datasets::call_spread> read_call_spread(const json& j) {
  const std::string field = datasets::text(datasets::scenario::call_spread);
  if (!j.contains(field) || j[field].is_null()) return std::nullopt;
  const json& b = j[field];
  if (!b.is_object()) throw std::invalid_argument("'call_spread' is not an object or null");
  const auto& p = datasets::spread_probabilities;
  if (!b.contains("probabilities") || b["probabilities"] != json(p))
    throw std::invalid_argument("call_spread.probabilities are not this build's (" + json(p).dump() + ")");
  datasets::call_spread out;
  out.wait_calls = read_shapes(b, "wait_calls");
  out.handlers = read_shapes(b, "handlers");
  out.wakeups_same_cpu = read_shapes(b, "wakeups_same_cpu");
  out.wakeups_cross_cpu = read_shapes(b, "wakeups_cross_cpu");
  return out;
}

// The "drift" block (to_json): absent or null in files written before it existed.
std::optional<datasets::simultaneous_drift> read_drift(const json& j) {
  if (!j.contains("drift") || j["drift"].is_null()) return std::nullopt;
  if (!j["drift"].is_object()) throw std::invalid_argument("'drift' is not an object or null");
  const json& d = j["drift"];
  datasets::simultaneous_drift out;
  out.correlation = num(d, "correlation");
  if (out.correlation < 0 || out.correlation > 1)
    throw std::invalid_argument("'drift': correlation " + d["correlation"].dump() + " is not within [0, 1]");
  out.raw_correlation = num(d, "raw_correlation");
  out.pairs = count(d, "pairs");
  out.points = count(d, "points");
  out.window_s = num(d, "window_s");
  if (!(out.window_s > 0)) throw std::invalid_argument("'drift': window_s " + d["window_s"].dump() + " is not > 0");
  return out;
}

// The "placement" block (to_json): absent or null in files written before it existed.
std::optional<datasets::placement_states> read_placement(const json& j) {
  if (!j.contains("placement") || j["placement"].is_null()) return std::nullopt;
  if (!j["placement"].is_object()) throw std::invalid_argument("'placement' is not an object or null");
  const json& p = j["placement"];
  datasets::placement_states out;
  out.split_ns = num(p, "split_ns");
  out.near_share = num(p, "near_share");
  out.far_over_near = num(p, "far_over_near");
  out.near_readings = count(p, "near_readings");
  out.far_readings = count(p, "far_readings");
  if (!(out.split_ns > 0)) throw std::invalid_argument("'placement': split_ns " + p["split_ns"].dump() + " is not > 0");
  if (!(out.near_share >= 0 && out.near_share <= 1))
    throw std::invalid_argument("'placement': near_share " + p["near_share"].dump() + " is not within [0, 1]");
  if (!(out.far_over_near > 0) || !std::isfinite(out.far_over_near))
    throw std::invalid_argument("'placement': far_over_near " + p["far_over_near"].dump() + " is not > 0");
  return out;
}

// The "serial_stages" list (to_json): absent in files written before it existed.
std::vector<stage_hold> read_serial_stages(const json& j) {
  std::vector<stage_hold> out;
  if (!j.contains("serial_stages")) return out;
  const json& list = array(j, "serial_stages");
  for (std::size_t i = 0; i < list.size(); ++i) try {
      const json& s = list[i];
      if (!s.is_object()) throw std::invalid_argument("not an object");
      stage_hold h;
      h.experiment = cell_key(object(s, "experiment"));
      h.structure = text(s, "structure");
      h.hold_s = num(s, "hold_s");
      if (h.hold_s < 0) throw std::invalid_argument("'hold_s' " + s["hold_s"].dump() + " is negative");
      h.hold_sd_s = num(s, "hold_sd_s", true);
      h.residual_sd = num(s, "residual_sd", true);
      h.df = static_cast<int>(std::min<std::size_t>(count(s, "df"), 1'000'000));
      h.points = static_cast<int>(std::min<std::size_t>(count(s, "points"), 1'000'000));
      h.cpus = static_cast<std::int64_t>(count(s, "cpus"));
      if (h.cpus < 2) throw std::invalid_argument("'cpus' " + s["cpus"].dump() + " is below 2");
      h.max_threads = num(s, "max_threads");
      out.push_back(std::move(h));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("serial_stages[" + std::to_string(i) + "]: " + e.what());
    }
  return out;
}

// A count within [lo, 2^53], as a signed integer.
std::int64_t count_at_least(const json& j, const char* key, std::size_t lo) {
  const std::size_t v = count(j, key);
  if (v < lo)
    throw std::invalid_argument(std::string("'") + key + "' " + j[key].dump() + " is below " + std::to_string(lo));
  return static_cast<std::int64_t>(v);
}

scaling_fit read_scaling_fit(const json& f) {
  if (!f.is_object()) throw std::invalid_argument("a law is not an object");
  scaling_fit out;
  const std::string law = text(f, "law");
  if (law == name(scaling_law::linear))
    out.law = scaling_law::linear;
  else if (law == name(scaling_law::amdahl))
    out.law = scaling_law::amdahl;
  else if (law == name(scaling_law::usl))
    out.law = scaling_law::usl;
  else
    throw std::invalid_argument("'law' '" + law + "' is not one of linear, amdahl, usl");
  out.gamma = num(f, "gamma");
  out.sigma = num(f, "sigma");
  out.kappa = num(f, "kappa");
  if (!(out.gamma > 0) || out.sigma < 0 || out.kappa < 0)
    throw std::invalid_argument("gamma must be > 0, sigma and kappa >= 0");
  const json& cov = array(f, "covariance");
  if (cov.size() != 3) throw std::invalid_argument("'covariance' is not 3 x 3");
  for (std::size_t r = 0; r < 3; ++r) {
    if (!cov[r].is_array() || cov[r].size() != 3) throw std::invalid_argument("'covariance' is not 3 x 3");
    for (std::size_t c = 0; c < 3; ++c) {
      const json& v = cov[r][c];
      if (!v.is_null() && !v.is_number()) throw std::invalid_argument("'covariance' holds " + v.dump());
      out.covariance(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          v.is_null() ? not_available : v.get<double>();
    }
  }
  out.df = static_cast<double>(count(f, "df"));
  out.residual_sd = num(f, "residual_sd", true);
  const std::string weights = text(f, "weights");
  if (weights != "relative" && weights != "absolute")
    throw std::invalid_argument("'weights' '" + weights + "' is not relative or absolute");
  out.weights = weights == "relative" ? scaling_options::weighting::relative : scaling_options::weighting::absolute;
  out.loo = num(f, "loo", true);
  out.points = static_cast<std::size_t>(count_at_least(f, "points", 1));
  out.n_min = num(f, "n_min");
  out.n_max = num(f, "n_max");
  if (!(out.n_min >= 1) || out.n_max < out.n_min) throw std::invalid_argument("n_min must be >= 1 and <= n_max");
  return out;
}

serial_stage_fit read_serial_fit(const json& s) {
  if (!s.is_object()) throw std::invalid_argument("'serial' is not an object or null");
  serial_stage_fit out;
  out.cpus = count_at_least(s, "cpus", 2);
  out.hold = num(s, "hold");
  if (out.hold < 0) throw std::invalid_argument("'hold' " + s["hold"].dump() + " is negative");
  out.hold_sd = num(s, "hold_sd", true);
  out.residual_sd = num(s, "residual_sd", true);
  out.df = static_cast<int>(std::min<std::size_t>(count(s, "df"), 1'000'000));
  out.points = static_cast<int>(std::min<std::size_t>(count(s, "points"), 1'000'000));
  out.t_max = num(s, "t_max");
  if (!(out.t_max >= 1)) throw std::invalid_argument("'t_max' " + s["t_max"].dump() + " is below 1");
  return out;
}

pipeline_fit read_pipeline(const json& p) {
  if (!p.is_object()) throw std::invalid_argument("'pipeline' is not an object or null");
  pipeline_fit f;
  f.write_s = num(p, "write_s");
  f.consumer_s = num(p, "consumer_s");
  f.line_s = num(p, "line_s");
  if (!(f.write_s > 0) || !(f.consumer_s > 0) || !(f.line_s >= 0))
    throw std::invalid_argument("'pipeline' needs write_s and consumer_s > 0 and line_s >= 0, got " + p.dump());
  f.measured_write_s = f.write_s;
  f.measured_consumer_s = f.consumer_s;
  if (p.contains("switches_out") && !p["switches_out"].is_null()) {  // written since 2026-12-07 evening
    const json& o = p["switches_out"];
    if (!o.is_object()) throw std::invalid_argument("'pipeline.switches_out' is not an object or null");
    f.switch_s = num(o, "switch_s");
    f.measured_write_s = num(o, "measured_write_s");
    f.measured_consumer_s = num(o, "measured_consumer_s");
    if (!(f.switch_s > 0) || !(f.measured_write_s > 0) || !(f.measured_consumer_s > 0))
      throw std::invalid_argument(
          "'pipeline.switches_out' needs switch_s, measured_write_s and measured_consumer_s > 0, "
          "got " +
          o.dump());
  }
  if (!p.contains("uncertainty") || p["uncertainty"].is_null()) return f;  // written before 2026-12-06: no interval
  const json& u = p["uncertainty"];
  if (!u.is_object()) throw std::invalid_argument("'pipeline.uncertainty' is not an object or null");
  f.cov_ww = num(u, "cov_ww", true);
  f.cov_wa = num(u, "cov_wa", true);
  f.cov_aa = num(u, "cov_aa", true);
  f.residual_var = num(u, "residual_var", true);
  f.line_var = num(u, "line_var", true);
  f.df = static_cast<int>(std::min<std::size_t>(count(u, "df"), 1'000'000));
  for (double v : {f.cov_ww, f.cov_aa, f.residual_var, f.line_var})
    if (v < 0) throw std::invalid_argument("'pipeline.uncertainty' has a negative variance: " + u.dump());
  return f;
}

// The lines a ring's pass moves across CPUs (line_crossings.hpp).
crossing_charge read_crossings(const json& x) {
  if (!x.is_object()) throw std::invalid_argument("'line_crossings' is not an object or null");
  const json& lines = x.contains("lines") ? x["lines"] : json(nullptr);
  const json& line_s = x.contains("line_s") ? x["line_s"] : json(nullptr);
  if (!lines.is_number_integer() || lines.get<long long>() < 1 || lines.get<long long>() > 1000 ||
      !line_s.is_number() || !std::isfinite(line_s.get<double>()) || line_s.get<double>() < 0)
    throw std::invalid_argument("'line_crossings' needs lines (1-1000) and line_s >= 0, got " + x.dump());
  crossing_charge c{static_cast<int>(lines.get<long long>()), line_s.get<double>(), "the cache_line probe"};
  if (x.contains("line_from")) {
    if (!x["line_from"].is_string()) throw std::invalid_argument("'line_crossings.line_from' is not a string");
    c.line_from = x["line_from"].get<std::string>();
  }
  return c;
}

chain_fit read_chain(const json& c) {
  if (!c.is_object()) throw std::invalid_argument("'one_in_flight' is not an object or null");
  chain_fit f;
  f.switch_s = num(c, "switch_s");
  if (!(f.switch_s > 0))
    throw std::invalid_argument("'one_in_flight.switch_s' must be > 0, got " + c["switch_s"].dump());
  if (c.contains("cross_s")) {  // absent in files written before 2026-12-06 12:00 UTC
    f.cross_s = num(c, "cross_s", true);
    if (!std::isnan(f.cross_s) && !(f.cross_s > 0))
      throw std::invalid_argument("'one_in_flight.cross_s' must be > 0 or null, got " + c["cross_s"].dump());
  }
  for (const auto& w : array(c, "switches")) {
    if (!w.is_object()) throw std::invalid_argument("'one_in_flight.switches' holds " + w.dump() + ", not an object");
    const double n = num(w, "n"), k = num(w, "switches");
    if (!(n >= 1) || !(k >= 0) || (!f.switches.empty() && !(n > f.switches.back().first)))
      throw std::invalid_argument("'one_in_flight.switches' needs N >= 1 rising and switches >= 0, got " + w.dump());
    f.switches.emplace_back(n, k);
  }
  if (f.switches.empty()) throw std::invalid_argument("'one_in_flight.switches' is empty");
  return f;
}

cpu_scaling_laws read_laws(const json& s) {
  if (!s.is_object()) throw std::invalid_argument("not an object");
  cpu_scaling_laws l;
  l.experiment = cell_key(object(s, "experiment"));
  l.platform = text(s, "platform");
  l.kernel = text(s, "kernel");
  l.from_cpus = count_at_least(s, "from_cpus", 1);
  for (const auto& c : array(s, "measured_cpus")) {
    if (!c.is_number_integer() || c.get<long long>() < 1)
      throw std::invalid_argument("'measured_cpus' holds " + c.dump() + ", not a count >= 1");
    l.measured_cpus.push_back(c.get<long long>());
  }
  if (!s.contains("dedicated")) throw std::invalid_argument("missing 'dedicated'");
  if (!s["dedicated"].is_null()) l.dedicated = read_scaling_fit(s["dedicated"]);
  l.dedicated_note = text(s, "dedicated_note");
  if (!s.contains("capacity")) throw std::invalid_argument("missing 'capacity'");
  if (!s["capacity"].is_null()) {
    const json& c = s["capacity"];
    if (!c.is_object()) throw std::invalid_argument("'capacity' is not an object or null");
    l.capacity_cpus = count_at_least(c, "cpus", 1);
    l.capacity = read_scaling_fit(object(c, "law"));
  }
  if (!l.dedicated && !l.capacity) throw std::invalid_argument("neither 'dedicated' nor 'capacity' holds a law");
  l.serial_structure = text(s, "serial_structure");
  if (!s.contains("serial")) throw std::invalid_argument("missing 'serial'");
  if (!s["serial"].is_null()) {
    if (!l.capacity) throw std::invalid_argument("'serial' needs the 'capacity' law for its demand");
    l.serial = read_serial_fit(s["serial"]);
  }
  // Absent in files written before 2026-12-05 21:00 UTC; null where it does not apply.
  if (s.contains("pipeline") && !s["pipeline"].is_null()) l.pipeline = read_pipeline(s["pipeline"]);
  // Absent in files written before 2026-12-06 12:00 UTC; null where it does not apply.
  if (s.contains("one_in_flight") && !s["one_in_flight"].is_null()) {
    if (!l.capacity) throw std::invalid_argument("'one_in_flight' needs the 'capacity' law of one CPU");
    l.chain = read_chain(s["one_in_flight"]);
    l.chain->hand_offs = chain_hand_offs(l.experiment);  // the experiment's structure, not stored
  }
  // Absent in files written before 2026-12-07 21:00 UTC; null where it does not apply.
  if (s.contains("line_crossings") && !s["line_crossings"].is_null()) {
    if (l.capacity_cpus != 1) throw std::invalid_argument("'line_crossings' needs the 'capacity' law of one CPU");
    l.crossings = read_crossings(s["line_crossings"]);
  }
  l.caveat = text(s, "caveat");
  return l;
}

// The "cpu_scaling" list (to_json): absent in files written before it existed.
std::vector<cpu_scaling_laws> read_cpu_scaling(const json& j) {
  std::vector<cpu_scaling_laws> out;
  if (!j.contains("cpu_scaling")) return out;
  const json& list = array(j, "cpu_scaling");
  for (std::size_t i = 0; i < list.size(); ++i) try {
      out.push_back(read_laws(list[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("cpu_scaling[" + std::to_string(i) + "]: " + e.what());
    }
  return out;
}

// The "simulator_check" block (to_json): absent or null when the fit made none.
std::optional<simulator_discrepancy> read_simulator_check(const json& j) {
  if (!j.contains("simulator_check") || j["simulator_check"].is_null()) return std::nullopt;
  if (!j["simulator_check"].is_object()) throw std::invalid_argument("'simulator_check' is not an object or null");
  const json& d = j["simulator_check"];
  simulator_discrepancy out;
  out.log_sd = num(d, "log_sd");
  if (out.log_sd < 0) throw std::invalid_argument("'simulator_check': log_sd " + d["log_sd"].dump() + " is negative");
  out.rows = count(d, "rows");
  if (out.rows == 0) throw std::invalid_argument("'simulator_check': rows is 0");
  out.median_abs_error = num(d, "median_abs_error");
  out.rms_log_error = num(d, "rms_log_error");
  for (const auto& m : array(d, "mechanisms")) {
    if (!m.is_string()) throw std::invalid_argument("'simulator_check': mechanisms holds " + m.dump());
    out.mechanisms.push_back(m.get<std::string>());
  }
  return out;
}

// The "between_runs" block (to_json): absent or null when the fit carried none.
std::optional<between_runs_spread> read_between_runs_block(const json& j) {
  if (!j.contains("between_runs") || j["between_runs"].is_null()) return std::nullopt;
  try {
    return between_runs_from_json(j["between_runs"]);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("'between_runs': ") + e.what());
  }
}

// The "capacity_efficiency" block (to_json): absent or null when the fit carried none.
std::optional<capacity_efficiency> read_capacity_efficiency_block(const json& j) {
  if (!j.contains("capacity_efficiency") || j["capacity_efficiency"].is_null()) return std::nullopt;
  try {
    return capacity_efficiency_from_json(j["capacity_efficiency"]);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("'capacity_efficiency': ") + e.what());
  }
}

}  // namespace

model_set model_set_from_json(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("schema_version"))
    throw datasets::input_error(where + ": not a model set (no schema_version)");
  if (j.contains("kind") && j["kind"] != model_kind && j["kind"] != "pollscale model set")
    throw datasets::input_error(where + ": a " +
                                (j["kind"].is_string() ? j["kind"].get<std::string>() : j["kind"].dump()) +
                                " document, not a model set (pollscale fit writes one)");
  if (j["schema_version"] != model_schema_version)
    throw datasets::input_error(where + ": schema_version " + j["schema_version"].dump() +
                                " is not supported (this build reads " + std::to_string(model_schema_version) + ")");
  model_set out;
  try {
    out.context = j.contains("context") ? j["context"] : json::object();
    out.source = text(j, "source");
    // Model sets written before the choice existed were fitted to medians.
    out.statistic = j.contains("statistic") ? text(j, "statistic") : "median";
    try {
      parse_point_statistic(out.statistic);  // the one list of the statistics, observations.hpp
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("statistic ") + e.what());
    }
    out.drift = read_drift(j);
    out.call_spread = read_call_spread(j);
    out.serial_stages = read_serial_stages(j);
    out.cpu_scaling = read_cpu_scaling(j);
    out.simulator_check = read_simulator_check(j);
    out.placement = read_placement(j);
    out.between_runs = read_between_runs_block(j);
    out.efficiency = read_capacity_efficiency_block(j);
    for (auto& laws : out.cpu_scaling) laws.efficiency = out.efficiency;
    if (j.contains("skipped"))
      for (const auto& s : array(j, "skipped"))
        if (s.is_string()) out.skipped.push_back(s.get<std::string>());
    const json& models = array(j, "models");
    for (std::size_t i = 0; i < models.size(); ++i) {
      try {
        out.cells.push_back(read_cell(models[i]));
      } catch (const std::exception& e) {
        throw datasets::input_error(where + ": models[" + std::to_string(i) + "]: " + e.what());
      }
    }
  } catch (const std::invalid_argument& e) {
    throw datasets::input_error(where + ": " + e.what());
  }
  return out;
}

}  // namespace pollscale::model
