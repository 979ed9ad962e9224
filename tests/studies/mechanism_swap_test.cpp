// A swapped model (studies/mechanism_swap.hpp): TO's cells relabelled in FROM's place,
// FROM's own cells gone, everything else kept; a swap the model cannot make is refused.

#include "studies/mechanism_swap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace pollscale::studies {
namespace {

model::cell_model cell(const std::string& mechanism, const std::string& variant, const std::string& fd_kind,
                       const std::string& formula) {
  model::cell_model c;
  c.cell.scenario = "find_active";
  c.cell.mechanism = mechanism;
  c.cell.variant = variant;
  c.cell.fd_kind = fd_kind;
  c.formula = formula;
  return c;
}

model::model_set three() {
  model::model_set m;
  m.cells = {cell("poll", "", "pipe", "poll's"), cell("epoll", "lt", "pipe", "epoll lt's"),
             cell("epoll", "lt", "tcp", "epoll lt's tcp"), cell("epoll", "et", "pipe", "epoll et's")};
  return m;
}

std::size_t count(const model::model_set& m, const std::string& mechanism, const std::string& variant) {
  return static_cast<std::size_t>(std::count_if(m.cells.begin(), m.cells.end(), [&](const auto& c) {
    return c.cell.mechanism == mechanism && c.cell.variant == variant;
  }));
}

TEST(MechanismSwapTest, ToCellsTakeFromsPlaceWithEveryOtherColumnKept) {
  std::size_t moved = 0;
  const auto m = swap_cells(three(), parse_mechanism_swap("poll=epoll/lt"), &moved);
  EXPECT_EQ(moved, 2U);
  EXPECT_EQ(count(m, "poll", ""), 2U);  // epoll/lt's pipe and tcp cells, as poll
  EXPECT_EQ(count(m, "epoll", "lt"), 2U);
  EXPECT_EQ(count(m, "epoll", "et"), 1U);
  for (const auto& c : m.cells)
    if (c.cell.mechanism == "poll") {
      EXPECT_NE(c.formula, "poll's");  // poll's own cell is gone
      EXPECT_EQ(c.cell.scenario, "find_active");
    }
  // The other way round: epoll/lt's cells replaced by poll's; epoll/et untouched.
  const auto back = swap_cells(three(), parse_mechanism_swap("epoll/lt=poll"));
  EXPECT_EQ(count(back, "epoll", "lt"), 1U);
  EXPECT_EQ(count(back, "epoll", "et"), 1U);
  EXPECT_EQ(count(back, "poll", ""), 1U);
}

TEST(MechanismSwapTest, AMechanismTheModelLacksIsRefused) {
  EXPECT_THROW(swap_cells(three(), parse_mechanism_swap("poll=devpoll")), std::invalid_argument);
  EXPECT_THROW(parse_mechanism_swap("poll=poll"), std::invalid_argument);
  EXPECT_THROW(parse_mechanism_swap("poll"), std::invalid_argument);
  EXPECT_THROW(parse_mechanism_swap("poll=bogus"), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::studies
