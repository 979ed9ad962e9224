// What the model fits and validates against: measured points from a calibration dataset
// (summary medians, with their raw samples) or from the historical record (published
// values with provenance), in one shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/call_spread.hpp"
#include "datasets/placement_states.hpp"
#include "datasets/schema.hpp"
#include "datasets/simultaneous_drift.hpp"

namespace pollscale::model {

/// Which of a calibration point's summaries the model fits and validates against.
///  - median: the median of the visits' medians — the typical cost on this machine as it
///    was, interference included;
///  - fastest: the fastest batch of all visits (summary.csv's min; max for a rate) — the
///    intrinsic cost. Interference from a shared host only ever slows a batch down, so the
///    fastest batch is the one it touched least (Chen & Revels 2016); it reproduces
///    between runs several times better than the median on a host that flips between
///    speeds (docs/calibrate.md), and the context's stability block reports how often and
///    how much slower the machine ran. Published (historical) values have no such choice.
///  - adjusted: the median of the visits' medians after each sample is brought to the run's
///    fast mode by the drift sentinel read at its visit (datasets::fast_mode_factor: a cost
///    times the sentinel's p10 over that reading, a rate divided by it; counts untouched).
///    Two runs that met a host's speed modes in different shares differ in their medians by
///    the mix; brought to the fast mode they agree several times better (docs/calibrate.md,
///    "Adjusted to the fast mode"). The raw samples and visit medians the bootstrap resamples
///    are the adjusted ones. A dataset without a drift sentinel is refused.
enum class point_statistic { median, fastest, adjusted };

std::string_view statistic_name(point_statistic s);
/// "median", "fastest" or "adjusted"; throws std::invalid_argument naming the text otherwise.
point_statistic parse_point_statistic(std::string_view text);

struct observation {
  datasets::key k;
  double value = 0;             ///< the chosen statistic (dataset) or published value (historical), in k.unit
  std::vector<double> samples;  ///< raw repetitions when the dataset has them
  /// The median of each visit's samples, when the point was visited more than once (each
  /// visit a fresh set-up at another moment): the bootstrap resamples these, so its
  /// intervals carry the drift between visits and not only the batches' scatter.
  std::vector<double> visit_medians;
  std::string platform;  ///< historical: machine; "" for a calibration dataset
  std::string kernel;    ///< historical: kernel or OS release
  std::string source;    ///< historical: seed file, author, date
  std::string where;     ///< "file:line" of the row, for messages
  /// Rank of n_fds among the distinct n_fds of the row's cell (0 = smallest); -1 without
  /// n_fds. Lets --train pick every other n ('n_rank%2==0') for interpolation tests.
  std::int64_t n_rank = -1;
};

struct observation_set {
  nlohmann::json context;  ///< the dataset's context block; {} for historical data
  std::string source;      ///< the path that was read
  bool historical = false;
  point_statistic statistic = point_statistic::median;  ///< what a dataset row's value is
  /// How much of its points' movement between visits the machine shared at each moment
  /// (datasets/simultaneous_drift.hpp); none for historical data or a run without visit times.
  std::optional<datasets::simultaneous_drift> drift;
  /// The spread of single calls around their mean (datasets/call_spread.hpp); none without
  /// call_spread samples.
  std::optional<datasets::call_spread> call_spread;
  /// Where the host kept the first two CPUs through the run, and what the far placement
  /// costs a cross-CPU operation (datasets/placement_states.hpp); none for historical data
  /// and runs whose placement did not move or that kept no placement sentinel.
  std::optional<datasets::placement_states> placement;
  std::vector<observation> rows;
};

/// Reads a calibration dataset directory (context.json + summary.csv + samples.csv), a
/// historical CSV, or a directory of historical CSVs (one without context.json).
/// Throws datasets::input_error naming file:line for anything it cannot trust, and for
/// a path that is none of these.
observation_set load_observations(const std::filesystem::path& path,
                                  point_statistic statistic = point_statistic::median);

/// What `path` holds as separate sources: itself when it is a dataset, a historical CSV or a
/// directory of historical CSVs; otherwise every dataset directory beneath it (a corpus such
/// as datasets/machines/), sorted by path. Throws datasets::input_error when it holds none.
std::vector<std::filesystem::path> find_sources(const std::filesystem::path& path);

/// A row of a CPU-scaling scenario (datasets::scales_with_threads): the scalability law
/// fits it (model/scaling.hpp), the per-descriptor cost forms leave it out.
bool is_scaling_row(const observation& o);

/// A row that measures the machine, not a mechanism (datasets::is_machine_primitive:
/// memory_latency, cache_line): an input of the models, never a cost cell of its own.
bool is_machine_primitive_row(const observation& o);

/// Sets every row's n_rank (load_observations does this; call again after editing rows).
void rank_n_within_cells(observation_set& set);

/// Provenance and key columns that --train and --group-by may name, and n_rank.
std::vector<std::string_view> observation_columns();

/// The text of `column` for `o` ("" when empty). Precondition: the column is one of
/// observation_columns(); throws std::invalid_argument otherwise.
std::string column_text(const observation& o, std::string_view column);

/// The model cell an observation belongs to: its key with the regressors (n_fds,
/// n_active, active_pos, max_fd) cleared, and its platform and kernel.
struct cell_id {
  datasets::key k;
  std::string platform;
  std::string kernel;
  friend auto operator<=>(const cell_id&, const cell_id&) = default;
  friend bool operator==(const cell_id&, const cell_id&) = default;
};

cell_id cell_of(const observation& o);

/// "find_active/poll/pipe t0 time_per_call" (+ " @ platform, kernel" when historical).
std::string describe_cell(const cell_id& c);

}  // namespace pollscale::model
