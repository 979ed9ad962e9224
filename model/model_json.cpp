#include "model/model_json.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "datasets/atomic_file.hpp"
#include "datasets/csv_table.hpp"
#include "datasets/json_file.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"

namespace pollscale::model {
namespace {

using datasets::input_error;
using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json cell_json(const datasets::key& k) {
  json c = json::object();
  for (auto col : datasets::key_columns()) {
    if (col == "n_fds" || col == "n_active" || col == "active_pos" || col == "max_fd") continue;
    const std::string text = datasets::key_field(k, col);
    const bool count = col == "blocking" || col == "threads" || col == "cpus";
    c[std::string(col)] = count ? (text.empty() ? json(nullptr) : json(std::stoll(text))) : json(text);
  }
  return c;
}

json term_json(const term& t) {
  return {{"name", t.name},
          {"meaning", t.meaning},
          {"unit", t.unit},
          {"coefficient", t.coefficient},
          {"ci95_lo", number(t.ci95_lo)},
          {"ci95_hi", number(t.ci95_hi)},
          {"at_bound", t.at_bound},
          {"from_prior", t.from_prior},
          {"basis", basis_to_json(t.b)}};
}

json matrix_json(const Eigen::MatrixXd& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(number(m(r, c)));
    rows.push_back(row);
  }
  return rows;
}

json cell_model_json(const cell_model& m) {
  json terms = json::array();
  for (const auto& t : m.terms) terms.push_back(term_json(t));
  json rivals = json::array();
  for (const auto& r : m.rivals)
    rivals.push_back({{"form", r.form}, {"n_terms", r.n_terms}, {"mape_loo", number(r.mape_loo)}, {"note", r.note}});
  const auto& s = m.stats;
  json j = {{"cell", cell_json(m.cell)},
            {"platform", m.platform},
            {"kernel", m.kernel},
            {"formula", m.formula},
            {"response", m.reciprocal ? "reciprocal" : "value"},
            {"terms", terms},
            {"covariance", matrix_json(m.covariance)},
            {"t95", number(m.t95)},
            {"fit",
             {{"n_points", s.n_points},
              {"df", s.df},
              {"mape_in_sample", number(s.mape_in_sample)},
              {"mape_loo", number(s.mape_loo)},
              {"residual_spread", number(s.residual_spread)},
              {"sigma_rel", number(s.sigma_rel)},
              {"method", s.method}}},
            {"domain",
             {{"n_min", m.dom.n_min},
              {"n_max", m.dom.n_max},
              {"n_active_min", m.dom.k_min},
              {"n_active_max", m.dom.k_max},
              {"words_min", m.dom.words_min},
              {"words_max", m.dom.words_max}}},
            {"selection", {{"chosen_by", m.chosen_by}, {"rivals", rivals}}}};
  if (m.bootstrap.rows() > 0)
    j["bootstrap"] = {{"coefficients", matrix_json(m.bootstrap)}, {"residuals", m.bootstrap_residuals}};
  return j;
}

json shapes_json(const std::vector<datasets::spread_shape>& shapes) {
  json out = json::array();
  for (const auto& s : shapes)
    out.push_back({{"point", s.point},
                   {"mean_ns", s.mean_ns},
                   {"ratios", s.ratios},
                   {"samples", s.samples},
                   {"visits", s.visits}});
  return out;
}

// The "call_spread" block (docs/model.md §7), or null.
json call_spread_json(const std::optional<datasets::call_spread>& spread) {
  if (!spread) return nullptr;
  return {{"probabilities", datasets::spread_probabilities},
          {"wait_calls", shapes_json(spread->wait_calls)},
          {"handlers", shapes_json(spread->handlers)},
          {"wakeups_same_cpu", shapes_json(spread->wakeups_same_cpu)},
          {"wakeups_cross_cpu", shapes_json(spread->wakeups_cross_cpu)}};
}

json experiment_json(const datasets::key& k) {
  json experiment = cell_json(k);
  experiment["n_active"] = k.n_active ? json(*k.n_active) : json(nullptr);
  return experiment;
}

// The "serial_stages" list (docs/model.md §7): one object per fitted stage. An experiment
// keeps its n_active where a series kept one token for every T (a cell never has one).
json serial_stages_json(const std::vector<stage_hold>& holds) {
  json out = json::array();
  for (const auto& h : holds) {
    out.push_back({{"experiment", experiment_json(h.experiment)},
                   {"structure", h.structure},
                   {"hold_s", h.hold_s},
                   {"hold_sd_s", number(h.hold_sd_s)},
                   {"residual_sd", number(h.residual_sd)},
                   {"df", h.df},
                   {"points", h.points},
                   {"cpus", h.cpus},
                   {"max_threads", h.max_threads}});
  }
  return out;
}

json scaling_fit_json(const scaling_fit& f) {
  return {{"law", name(f.law)},
          {"gamma", f.gamma},
          {"sigma", f.sigma},
          {"kappa", f.kappa},
          {"covariance", matrix_json(f.covariance)},
          {"df", f.df},
          {"residual_sd", number(f.residual_sd)},
          {"weights", f.weights == scaling_options::weighting::relative ? "relative" : "absolute"},
          {"loo", number(f.loo)},
          {"points", f.points},
          {"n_min", f.n_min},
          {"n_max", f.n_max}};
}

// The pipeline's parts and what its interval is made of (producer_pipeline.hpp).
json pipeline_json(const pipeline_fit& p) {
  json j = {{"write_s", p.write_s}, {"consumer_s", p.consumer_s}, {"line_s", p.line_s}, {"uncertainty", nullptr}};
  // Where the split left the consumer's switches out: s, and the split with them in (the
  // floor's, both_busy_rate).
  if (std::isfinite(p.switch_s))
    j["switches_out"] = {{"switch_s", p.switch_s},
                         {"measured_write_s", p.measured_write_s},
                         {"measured_consumer_s", p.measured_consumer_s}};
  if (p.df >= 0)  // recorded (a pipeline read from an older file has none to write)
    j["uncertainty"] = {{"cov_ww", number(p.cov_ww)},
                        {"cov_wa", number(p.cov_wa)},
                        {"cov_aa", number(p.cov_aa)},
                        {"residual_var", number(p.residual_var)},
                        {"df", p.df},
                        {"line_var", number(p.line_var)}};
  return j;
}

// The "cpu_scaling" list (docs/model.md §7): per experiment, the laws `predict --cpus`
// answers from (cpu_scaling.hpp), in the data's unit.
json cpu_scaling_json(const std::vector<cpu_scaling_laws>& laws) {
  json out = json::array();
  for (const auto& l : laws) {
    json serial = nullptr;
    if (l.serial)
      serial = {{"cpus", l.serial->cpus},
                {"hold", l.serial->hold},
                {"hold_sd", number(l.serial->hold_sd)},
                {"residual_sd", number(l.serial->residual_sd)},
                {"df", l.serial->df},
                {"points", l.serial->points},
                {"t_max", l.serial->t_max}};
    out.push_back({{"experiment", experiment_json(l.experiment)},
                   {"platform", l.platform},
                   {"kernel", l.kernel},
                   {"from_cpus", l.from_cpus},
                   {"measured_cpus", l.measured_cpus},
                   {"dedicated", l.dedicated ? scaling_fit_json(*l.dedicated) : json(nullptr)},
                   {"dedicated_note", l.dedicated_note},
                   {"capacity", l.capacity ? json{{"cpus", *l.capacity_cpus}, {"law", scaling_fit_json(*l.capacity)}}
                                           : json(nullptr)},
                   {"serial_structure", l.serial_structure},
                   {"serial", serial},
                   {"pipeline", l.pipeline ? pipeline_json(*l.pipeline) : json(nullptr)},
                   {"one_in_flight", l.chain ? to_json(*l.chain) : json(nullptr)},
                   {"line_crossings", l.crossings ? json{{"lines", l.crossings->lines},
                                                         {"line_s", l.crossings->line_s},
                                                         {"line_from", l.crossings->line_from}}
                                                  : json(nullptr)},
                   {"caveat", l.caveat}});
  }
  return out;
}

// The "simulator_check" block: null when the fit made no check.
json simulator_check_json(const std::optional<simulator_discrepancy>& d) {
  if (!d) return nullptr;
  return {{"log_sd", d->log_sd},
          {"rows", d->rows},
          {"median_abs_error", d->median_abs_error},
          {"rms_log_error", d->rms_log_error},
          {"mechanisms", d->mechanisms}};
}

json placement_json(const std::optional<datasets::placement_states>& p) {
  if (!p) return nullptr;
  return {{"split_ns", p->split_ns},
          {"near_share", p->near_share},
          {"far_over_near", p->far_over_near},
          {"near_readings", p->near_readings},
          {"far_readings", p->far_readings}};
}

}  // namespace

json to_json(const chain_fit& c) {
  json switches = json::array();
  for (const auto& [n, w] : c.switches) switches.push_back({{"n", n}, {"switches", w}});
  return {{"switches", switches}, {"switch_s", c.switch_s}, {"cross_s", number(c.cross_s)}};
}

json to_json(const model_set& models) {
  json cells = json::array();
  for (const auto& m : models.cells) cells.push_back(cell_model_json(m));
  json drift = nullptr;
  if (models.drift)
    drift = {{"correlation", models.drift->correlation},
             {"raw_correlation", models.drift->raw_correlation},
             {"pairs", models.drift->pairs},
             {"points", models.drift->points},
             {"window_s", models.drift->window_s}};
  return {{"schema_version", model_schema_version},
          {"kind", model_kind},
          {"source", models.source},
          {"statistic", models.statistic},
          {"drift", drift},
          {datasets::text(datasets::scenario::call_spread), call_spread_json(models.call_spread)},
          {"serial_stages", serial_stages_json(models.serial_stages)},
          {"cpu_scaling", cpu_scaling_json(models.cpu_scaling)},
          {"simulator_check", simulator_check_json(models.simulator_check)},
          {"placement", placement_json(models.placement)},
          {"between_runs", models.between_runs ? to_json(*models.between_runs) : json(nullptr)},
          {"capacity_efficiency", models.efficiency ? to_json(*models.efficiency) : json(nullptr)},
          {"context", models.context},
          {"models", cells},
          {"skipped", models.skipped}};
}

void save_model(const std::filesystem::path& path, const model_set& models) {
  datasets::write_file_atomically(path, to_json(models).dump(2) + "\n");
}

model_set load_model(const std::filesystem::path& path) {
  return model_set_from_json(datasets::read_json_file(path), path.string());
}

}  // namespace pollscale::model
