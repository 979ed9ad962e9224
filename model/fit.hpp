// Fitting a whole data set: its rows grouped into cells, each cell fitted by fit_cell
// with the machine facts the data set's context provides (cache geometry, a measured
// memory-latency curve, the RT-signal queue limit).
#pragma once

#include <vector>

#include "model/cell_fit.hpp"
#include "model/model_set.hpp"
#include "model/observations.hpp"

namespace pollscale::model {

/// The machine facts of `data`: the latency curve (from "caches" and, when present, a
/// memory_latency probe) and the signal queue limit ("rlimit_sigpending"."soft").
fit_environment environment_of(const observation_set& data);

/// Per fd kind, the cold_scan probe's excess (cold_exposure): the cold rows' slope between
/// the smallest and largest n measured both warm and cold, minus the warm rows' slope, from
/// the values the dataset's statistic reads; the eviction size from the context's
/// "cold_scan" block. A kind without both variants at two n is left out.
std::map<std::string, cold_exposure, std::less<>> cold_exposures_of(const observation_set& data);

/// Rows grouped by cell, in cell order; memory_latency rows (machine facts, not a
/// mechanism) are left out.
std::vector<std::pair<cell_id, std::vector<const observation*>>> cells_of(const std::vector<const observation*>& rows);

/// Fits every cell of `data`. Throws datasets::input_error when there is nothing to fit
/// or a row cannot be used (see fit_cell).
model_set fit_models(const observation_set& data, const fit_options& options = {});

/// Fits the cells of `rows` (a subset of `data`, e.g. a training split).
model_set fit_models(const observation_set& data, const std::vector<const observation*>& rows,
                     const fit_options& options);

}  // namespace pollscale::model
