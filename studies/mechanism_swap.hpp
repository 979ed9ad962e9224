// "What would this cost with /dev/poll instead of poll?" A swap answers a query with another
// mechanism in the first one's place (poll=devpoll, poll=epoll/lt), on the same model: the
// swapped mechanism's own cell, fitted on the same machine (a calibration that measured poll
// and epoll; a historical table that measured poll and /dev/poll side by side), so that the
// two answers differ by the mechanism alone. Where the model has no such cell there is no
// answer: carrying a ratio measured on another machine and era over to this one was tried
// and missed by 2.5-39x (docs/historical.md, "Why no ratio is carried between machines").
#pragma once

#include <string>

#include "datasets/schema.hpp"
#include "model/model_set.hpp"
#include "model/prediction.hpp"

namespace pollscale::studies {

struct mechanism_swap {
  std::string from_mechanism, from_variant;  ///< "poll", "" (as a key writes them)
  std::string to_mechanism, to_variant;      ///< "devpoll", ""; "epoll", "lt"
  std::string text;                          ///< as written: "poll=devpoll"
};

/// Parses FROM=TO, each MECH or MECH/VARIANT ("poll=devpoll", "poll=epoll/lt"). Throws
/// std::invalid_argument naming the text.
mechanism_swap parse_mechanism_swap(const std::string& text);

/// The query (whose mechanism and variant must be FROM's) answered by the cell of `models`
/// with TO in FROM's place, every other column as asked. Throws std::invalid_argument with
/// one line when the query is not FROM's or no cell of TO answers (naming the nearest).
model::prediction answer_swapped(const model::model_set& models, const datasets::key& query,
                                 const mechanism_swap& swap);

/// `models` with TO's cells in FROM's place, for the simulator (whatif/simulate --swap):
/// every cell of FROM (its variant as the swap names it; none named: the variantless cells)
/// removed, and every cell of TO copied in with FROM's mechanism and variant, every other
/// column kept. The costs the simulator then asks of FROM come from TO's measurements on the
/// same machine; what the server does with them (a scan per call, a ready list) stays
/// FROM's. `moved` (if given) receives the number of cells copied. Throws
/// std::invalid_argument when the model has no cell of TO.
model::model_set swap_cells(const model::model_set& models, const mechanism_swap& swap, std::size_t* moved = nullptr);

}  // namespace pollscale::studies
