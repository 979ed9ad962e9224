#include "studies/model_change.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <tuple>

#include "datasets/number_text.hpp"
#include "datasets/schema.hpp"

namespace pollscale::studies {
namespace {

double number_in(const std::string& text, const std::string& whole) {
  const auto v = datasets::parse_number(text);
  if (!v || !std::isfinite(*v)) throw std::invalid_argument("'" + whole + "': '" + text + "' is not a finite number");
  return *v;
}

// MECH.TERM of "MECH.TERM<op>...": both non-empty.
std::pair<std::string, std::string> target_of(const std::string& lhs, const std::string& whole) {
  const auto dot = lhs.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == lhs.size())
    throw std::invalid_argument("'" + whole + "' is not MECHANISM.TERM followed by *=, +=, -= or = and a number");
  return {lhs.substr(0, dot), lhs.substr(dot + 1)};
}

// Applies one change to term j of cell m; returns whether it was clamped at 0.
bool apply(model::cell_model& m, std::size_t j, const term_change& c) {
  auto& t = m.terms[j];
  const auto i = static_cast<Eigen::Index>(j);
  double factor = 1;  // how the coefficient's uncertainty moves with it
  double next = t.coefficient;
  switch (c.how) {
    case term_change::op::scale: next = t.coefficient * c.value, factor = c.value; break;
    case term_change::op::add: next = t.coefficient + c.value; break;
    case term_change::op::set: next = c.value, factor = 0; break;
  }
  const bool clamped = next < 0;
  if (clamped) next = 0, factor = 0;
  const double shift = next - t.coefficient * factor;  // interval ends move as the coefficient does
  t.coefficient = next;
  t.ci95_lo = t.ci95_lo * factor + shift;
  t.ci95_hi = t.ci95_hi * factor + shift;
  if (i < m.covariance.rows()) {
    m.covariance.row(i) *= factor;
    m.covariance.col(i) *= factor;
  }
  if (i < m.bootstrap.cols())
    m.bootstrap.col(i) = m.bootstrap.col(i) * factor + Eigen::VectorXd::Constant(m.bootstrap.rows(), shift);
  return clamped;
}

}  // namespace

term_change parse_term_change(const std::string& text) {
  term_change c;
  c.text = text;
  for (const auto& [symbol, how] :
       {std::pair{std::string("*="), term_change::op::scale}, std::pair{std::string("+="), term_change::op::add},
        std::pair{std::string("-="), term_change::op::add}}) {
    const auto at = text.find(symbol);
    if (at == std::string::npos) continue;
    std::tie(c.mechanism, c.term) = target_of(text.substr(0, at), text);
    c.how = how;
    c.value = number_in(text.substr(at + 2), text) * (symbol == "-=" ? -1 : 1);
    if (how == term_change::op::scale && c.value < 0)
      throw std::invalid_argument("'" + text + "': a factor must be >= 0 (a cost cannot be negative)");
    return c;
  }
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw std::invalid_argument("'" + text + "' is not MECHANISM.TERM followed by *=, +=, -= or = and a number");
  std::tie(c.mechanism, c.term) = target_of(text.substr(0, eq), text);
  c.how = term_change::op::set;
  c.value = number_in(text.substr(eq + 1), text);
  if (c.value < 0) throw std::invalid_argument("'" + text + "': a cost cannot be negative");
  return c;
}

term_change parse_term_drop(const std::string& text) {
  if (text.find('=') != std::string::npos)
    throw std::invalid_argument("'" + text + "': --drop takes MECHANISM.TERM alone");
  term_change c = parse_term_change(text + "=0");
  c.text = "drop " + text;
  return c;
}

model::model_set apply_changes(const model::model_set& models, const std::vector<term_change>& changes,
                               change_report* report) {
  model::model_set out = models;
  for (const term_change& c : changes) {
    std::size_t changed = 0;
    std::set<std::string> terms_seen;
    for (auto& m : out.cells) {
      if (m.cell.mechanism != c.mechanism) continue;
      for (std::size_t j = 0; j < m.terms.size(); ++j) {
        terms_seen.insert(m.terms[j].name);
        if (m.terms[j].name != c.term) continue;
        ++changed;
        if (apply(m, j, c) && report) report->clamped.push_back(datasets::describe(m.cell) + ": " + c.term);
      }
    }
    if (changed == 0) {
      std::string have;
      for (const auto& t : terms_seen) have += (have.empty() ? "" : ", ") + t;
      throw std::invalid_argument(
          "'" + c.text + "': no " + c.mechanism + " cell has a term " + c.term +
          (have.empty() ? " (the model has no " + c.mechanism + " cell)" : "; its cells have: " + have));
    }
    if (report) report->cells_changed.emplace_back(c.text, changed);
  }
  return out;
}

}  // namespace pollscale::studies
