// Candidate forms for a cell. A mechanism we know gets a mechanistic family: core terms
// the kernel's code guarantees (every scan-based call pays per fd), optional terms that
// model selection may add, and always-on prior terms (the working set). Anything else
// gets the Extra-P family: a constant plus one n^i·log2(n)^j term.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/basis.hpp"
#include "model/observations.hpp"
#include "model/working_set.hpp"

namespace pollscale::model {

/// A term whose coefficient a Gaussian prior sets when the data cannot (the memory terms).
struct prior_term {
  std::size_t index = 0;  ///< into form::terms
  footprint_prior prior;
};

/// A form: the terms of one candidate model. Every coefficient is non-negative (costs add).
struct form {
  std::vector<basis> terms;
  std::vector<prior_term> priors;  ///< always at the end of `terms`
  /// Index into `terms` of the per-fd working-set term, when present (its footprint is
  /// refined by Levenberg-Marquardt when the data reach past the knee).
  std::optional<std::size_t> working_set;

  std::string name() const;                                ///< "fixed + per_fd + per_ready"
  std::string formula(const std::string& response) const;  ///< "T = fixed + per_fd·n"
};

enum class family { mechanistic, extra_p };

struct form_request {
  cell_id cell;
  family fam = family::mechanistic;
  /// Regressors that vary across the cell's training points: only those can be fitted.
  bool n_varies = false, k_varies = false, words_vary = false, p_varies = false;
  std::optional<latency_curve> curve;  ///< cache geometry (calibration data only)
  /// What a descriptor of this cell's fd kind paid past L2 in the cold_scan probe, when the
  /// dataset has one: the mean of a streaming scan's working-set prior (working_set_prior).
  std::optional<cold_exposure> cold;
  /// RT-signal queue lengths to try for the overflow cliff: the known limit when it lies
  /// inside the measured k, otherwise the midpoints between measured k values (a profile
  /// search: the cliff is a step, so each threshold is its own candidate form).
  std::vector<double> overflow_thresholds;
};

/// True when the cell's metric is a rate modelled through its reciprocal.
bool is_rate(const datasets::key& cell);

/// True when model/ knows the mechanism and scenario well enough for a mechanistic family.
bool has_mechanistic_family(const cell_id& cell);

/// Why the mechanistic family cannot be fitted to points like these: a core term (one the
/// kernel's code guarantees, e.g. per_fd for poll) whose regressor does not vary. "" when
/// it can, and always "" for the Extra-P family.
std::string unfittable_core(const form_request& request);

/// The candidates for a cell, simplest first. Never empty: the constant form is always a
/// candidate.
std::vector<form> candidate_forms(const form_request& request);

}  // namespace pollscale::model
