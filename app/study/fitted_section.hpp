// The study's figure of the fitted models against what they were fitted on: for select,
// poll and level-triggered epoll waiting for 1 ready pipe among n (timeout 0), the measured
// medians with their 95% intervals and the fitted model from n = 1 to 10^6 with its 95%
// prediction band (where a new measurement's median would fall), the region past the
// measured n shaded as extrapolation. The report's measurement figures show points only;
// this one shows what the model makes of them, and where it stops knowing.
#pragma once

#include "app/report/report.hpp"
#include "datasets/dataset.hpp"
#include "model/model_set.hpp"

namespace pollscale::app::study {

/// The section (heading, a paragraph, one figure named `figure_name`); a paragraph saying
/// why when the model has none of the three cells.
report::extra_section fitted_curves_section(const model::model_set& models, const datasets::dataset& measured,
                                            const std::string& figure_name = "study_fitted_curves");

}  // namespace pollscale::app::study
