// How far a machine's live server, measured in *another* run, lands from a simulation driven
// by a model fitted on this one. The simulator's discrepancy (simulator_discrepancy.hpp)
// compares the simulation with the server of the run the model was fitted on: the machine
// in the state it was in for those few minutes. A shared VM does not stay in one state. Its
// neighbours' share of the L3, the placement of its vCPUs and the host's idle policy move
// between runs, and the server measured an hour (or two minutes) later runs 10-50% off the
// same model's simulation where the run itself agreed with it (docs/sim.md, "Between
// runs"). One run cannot see that spread: it lasts minutes, the state moves over hours.
// The corpus of machines can (datasets/machines/): every host in it with two runs gives
// live-server rows of one run simulated from a model of the other, and their log errors
// beyond each simulation's own spread have a standard deviation ρ, estimated by maximum
// likelihood as the discrepancy's τ is (scripts/corpus_between_runs.py writes it to
// datasets/machines/between_runs.json). `pollscale fit` copies it into model.json, and a
// drawn simulation moves the whole machine of each replication — its model costs and the
// load generator it gives — by one factor exp(ρ·z), so the answer's interval says where the
// server would be if it were measured again on another occasion.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace pollscale::model {

/// The spread of a live server between runs of one host (model.json between_runs).
struct between_runs_spread {
  double log_sd = 0;      ///< ρ: sd of log(measured / simulated) across runs, beyond the simulations' spread, >= 0
  std::size_t rows = 0;   ///< live-server rows it was estimated from, > 0
  std::size_t pairs = 0;  ///< (run fitted, run judged) pairs those rows came from, > 0
  std::size_t hosts = 0;  ///< distinct hosts among them, > 0
  std::string horizon;    ///< between runs how far apart: "minutes" (under an hour) or "hours"
  std::string estimated;  ///< the UTC date of the estimate (YYYY-MM-DD)
  std::string source;     ///< the file it was read from, as given
};

/// What the corpus file says it is ("kind"), and the only layout this build reads.
inline constexpr const char* between_runs_kind = "pollscale between-runs spread";
inline constexpr int between_runs_schema_version = 1;

/// The horizons a between-runs file estimates: a server measured within the hour of its
/// calibration, or on another occasion (the spread grows with the time between runs).
inline constexpr const char* between_runs_horizons[] = {"minutes", "hours"};

/// Reads one horizon of a between-runs file (scripts/corpus_between_runs.py writes one).
/// Throws datasets::input_error ("file: what") when it is unreadable, not JSON, of another
/// kind or version, has no such horizon, or when its log_sd is not a finite number in
/// [0, 5] (a factor of e⁵ between runs is no machine worth modelling) or rows, pairs or
/// hosts is not a count > 0. Throws std::invalid_argument for a horizon not listed above.
between_runs_spread read_between_runs(const std::filesystem::path& file, const std::string& horizon);

/// The model.json block, and back: between_runs_from_json throws std::invalid_argument
/// naming the field for the same faults as read_between_runs.
nlohmann::json to_json(const between_runs_spread& b);
between_runs_spread between_runs_from_json(const nlohmann::json& j);

}  // namespace pollscale::model
