// The study's predictions beyond the measured range: every find_active cell of one fd
// kind (1 ready, timeout 0) asked at n values no process here can register.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_set.hpp"

namespace pollscale::app::study {

/// For each find_active cell of `fd_kind` with blocking 0 in `models`, the prediction at
/// each n in `ns` (k = 1, middle): [{query, value, lo, hi, unit, extrapolation, formula}].
/// Cells that cannot answer are left out (their reason in "skipped").
nlohmann::json predict_beyond(const model::model_set& models, const std::string& fd_kind,
                              const std::vector<std::int64_t>& ns);

}  // namespace pollscale::app::study
