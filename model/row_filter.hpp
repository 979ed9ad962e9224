// The --train expression of `pollscale validate`: which rows a model may learn from.
//
//   expr       := and_expr ( ("||" | "or") and_expr )*
//   and_expr   := unary ( ("&&" | "and" | ",") unary )*
//   unary      := ("!" | "not") unary | "(" expr ")" | comparison
//   comparison := COLUMN ["%" INTEGER] ("<=" | "<" | ">=" | ">" | "==" | "=" | "!=") VALUE
//   VALUE      := a number | max | min | a word | 'quoted text' | "quoted text"
//
// COLUMN is a key column or platform, kernel, source, or n_rank (the rank of the row's
// n_fds within its cell, 0 = smallest): 'n_rank%2==0 || n_fds==max' trains on every
// other n and holds out the ones in between (interpolation). `max` / `min` stand for the
// largest / smallest value of that column within the row's validation group, so
// 'n_fds<max' trains on each table's smaller n and holds out its largest. A comparison
// on a column that is empty in a row is true: the row has no such dimension (an ipc row
// has no n_fds, so 'n_fds<=1000' keeps it for training). Text compares only with == / !=.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/observations.hpp"

namespace pollscale::model {

/// The smallest and largest numeric value of each column within one group.
using column_extremes = std::map<std::string, std::pair<double, double>, std::less<>>;

class row_filter {
 public:
  /// Parses `text`. Throws std::invalid_argument with a one-line message naming the
  /// offending token, column or value.
  static row_filter parse(std::string_view text);

  /// Whether `o` passes. `extremes` must hold every column compared against max/min
  /// (see columns_needing_extremes).
  bool operator()(const observation& o, const column_extremes& extremes) const;

  /// Columns the expression compares against `max` or `min`.
  std::vector<std::string> columns_needing_extremes() const;

  struct node;

 private:
  std::shared_ptr<const node> root_;
};

/// Extremes of `columns` over `rows` (columns whose values are all empty are left out).
column_extremes extremes_of(const std::vector<const observation*>& rows, const std::vector<std::string>& columns);

}  // namespace pollscale::model
