// What-ifs on a fitted model's terms: "what if poll's per-descriptor cost were 10% lower,
// or its fixed cost 2 µs less (Manfred Spraul's on-stack allocation, seed 000)?" A change
// names a mechanism and one of its terms as model.json writes them (fixed, per_fd,
// per_ready, working_set, ...: `pollscale cells` lists each cell's formula) and what to do
// to the coefficient:
//   poll.per_fd*=0.9     scale it (its interval scales with it)
//   poll.fixed-=2000     subtract an amount in the term's own unit (ns, ns/fd, ...)
//   poll.fixed+=500      add one
//   poll.per_fd=0        set it (a value known exactly: its variance goes)
//   --drop poll.per_fd   the same as poll.per_fd=0
// applied to every cell of that mechanism that has the term (every scenario, fd kind and
// variant: the same kernel path), so that the simulator's costs follow. A coefficient is
// never taken below 0: a cost cannot be negative; the change then says it was clamped.
#pragma once

#include <string>
#include <vector>

#include "model/model_set.hpp"

namespace pollscale::studies {

struct term_change {
  enum class op { scale, add, set };
  std::string mechanism;
  std::string term;
  op how = op::scale;
  double value = 1;  ///< the factor (scale) or the amount, in the term's unit (add, set)
  std::string text;  ///< as written: "poll.per_fd*=0.9"
};

/// Parses MECH.TERM*=F, MECH.TERM+=X, MECH.TERM-=X or MECH.TERM=X. Throws
/// std::invalid_argument naming the text when it is none of these or the number is not
/// finite (a factor must also be >= 0).
term_change parse_term_change(const std::string& text);

/// --drop MECH.TERM: MECH.TERM=0.
term_change parse_term_drop(const std::string& text);

/// What applying the changes did: the cells changed per change (its text), and the
/// coefficients a subtraction would have taken below 0, which are held at 0.
struct change_report {
  std::vector<std::pair<std::string, std::size_t>> cells_changed;
  std::vector<std::string> clamped;  ///< "cell: term"
};

/// `models` with every change applied in order. Throws std::invalid_argument when a
/// change's mechanism has no cell with that term, naming the terms its cells do have.
model::model_set apply_changes(const model::model_set& models, const std::vector<term_change>& changes,
                               change_report* report = nullptr);

}  // namespace pollscale::studies
