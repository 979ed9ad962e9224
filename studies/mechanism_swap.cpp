#include "studies/mechanism_swap.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <tuple>

#include "datasets/vocabulary.hpp"

namespace pollscale::studies {
namespace {

// "epoll/lt" -> {"epoll", "lt"}; "poll" -> {"poll", ""}.
std::pair<std::string, std::string> mechanism_and_variant(const std::string& side, const std::string& text) {
  auto [mechanism, variant] = datasets::split_flavour(side);
  if (!datasets::is_known_mechanism(mechanism))
    throw std::invalid_argument("'" + text + "': unknown mechanism '" + mechanism + "'");
  const auto token = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
             c == '.' || c == '-';
    });
  };
  if (side.find('/') != std::string::npos && !token(variant))
    throw std::invalid_argument("'" + text + "': variant '" + variant + "' is not a name");
  return {mechanism, variant};
}

// A cell's variant as a swap side names it: "" for none.
bool variant_is(const std::string& cell_variant, const std::string& wanted) {
  const bool empty = cell_variant.empty() || cell_variant == model::empty_column;
  return wanted.empty() ? empty : cell_variant == wanted;
}

}  // namespace

mechanism_swap parse_mechanism_swap(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size() || text.find('=', eq + 1) != std::string::npos)
    throw std::invalid_argument("'" + text + "' is not FROM=TO (e.g. poll=devpoll, poll=epoll/lt)");
  mechanism_swap s;
  s.text = text;
  std::tie(s.from_mechanism, s.from_variant) = mechanism_and_variant(text.substr(0, eq), text);
  std::tie(s.to_mechanism, s.to_variant) = mechanism_and_variant(text.substr(eq + 1), text);
  if (s.from_mechanism == s.to_mechanism && s.from_variant == s.to_variant)
    throw std::invalid_argument("'" + text + "' swaps a mechanism for itself");
  return s;
}

model::prediction answer_swapped(const model::model_set& models, const datasets::key& query,
                                 const mechanism_swap& swap) {
  const bool from_variant = swap.from_variant.empty() ? query.variant.empty() || query.variant == model::empty_column
                                                      : query.variant == swap.from_variant;
  if (query.mechanism != swap.from_mechanism || !from_variant)
    throw std::invalid_argument("'" + swap.text + "' swaps out " + swap.from_mechanism +
                                (swap.from_variant.empty() ? "" : "/" + swap.from_variant) +
                                ", which the query does not ask for (--mechanism, --variant)");
  datasets::key k = query;
  k.mechanism = swap.to_mechanism;
  k.variant = swap.to_variant.empty() ? std::string(model::empty_column) : swap.to_variant;
  std::string why;
  auto p = model::try_predict(models, k, &why);
  if (!p)
    throw std::invalid_argument(why + " (a swap needs " + swap.to_mechanism +
                                " measured on the machine the model was fitted on)");
  return *p;
}

model::model_set swap_cells(const model::model_set& models, const mechanism_swap& swap, std::size_t* moved) {
  model::model_set out = models;
  out.cells.clear();
  std::vector<model::cell_model> copied;
  for (const auto& c : models.cells) {
    const bool from = c.cell.mechanism == swap.from_mechanism && variant_is(c.cell.variant, swap.from_variant);
    const bool to = c.cell.mechanism == swap.to_mechanism && variant_is(c.cell.variant, swap.to_variant);
    if (to) {
      copied.push_back(c);
      copied.back().cell.mechanism = swap.from_mechanism;
      copied.back().cell.variant = swap.from_variant;
    }
    if (!from) out.cells.push_back(c);
  }
  if (copied.empty())
    throw std::invalid_argument("'" + swap.text + "': the model has no cell of " + swap.to_mechanism +
                                (swap.to_variant.empty() ? "" : "/" + swap.to_variant) +
                                " (a swap needs it measured on the machine the model was fitted on)");
  if (moved) *moved = copied.size();
  out.cells.insert(out.cells.end(), copied.begin(), copied.end());
  return out;
}

}  // namespace pollscale::studies
