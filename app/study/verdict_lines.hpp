// The study's part of the report's verdict: what only the study knows, said first — whether
// the model met its accuracy targets on this machine's calibration (a pass/fail table with
// the worst row of each), poll and epoll predicted past the descriptor limit, and the idle
// connections the simulated server carries per mechanism before its replies fall.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pollscale::app::study {

/// The accuracy targets of docs/model.md §9 on this dataset, from `validate --format json`
/// of the extrapolation (train n <= 1000) and interpolation protocols; null documents are
/// steps that did not run.
std::string accuracy_verdict(const nlohmann::json& extrapolation, const nlohmann::json& interpolation);

/// poll and level-triggered epoll at the largest n of the study's predictions.json.
std::string beyond_limit_verdict(const nlohmann::json& predictions);

/// The CPU-scaling issue's two checks on this machine (docs/scaling.md), from `scale --format
/// json`: `threads`, the tables fitted on one and two threads asked about more (scale --train
/// 'n_fds<=2'); `wider`, the series of one CPU asked about every wider series measured
/// (scale --from-cpus 1). Each a median |error| against the aim of 15%, and how many rows
/// its 95% intervals hold; "" when neither ran.
std::string scaling_verdict(const nlohmann::json& threads, const nlohmann::json& wider);

/// Per mechanism of the study's whatif.json (a sweep over idle connections): replies/s with
/// no idle connection, and the most idle connections simulated at which it still serves at
/// least 90% of that.
std::string server_verdict(const nlohmann::json& whatif);

}  // namespace pollscale::app::study
