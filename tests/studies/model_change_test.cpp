// What-ifs on a fitted model's terms (studies/model_change.hpp): the grammar, each operation
// on a planted model, the interval moving with the coefficient, and the errors that name
// what the model does have.

#include "studies/model_change.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "model/prediction.hpp"
#include "tests/studies/synthetic_model.hpp"

namespace pollscale::studies {
namespace {

TEST(ModelChangeTest, ParsesEveryOperation) {
  const auto scale = parse_term_change("poll.per_fd*=0.9");
  EXPECT_EQ(scale.mechanism, "poll");
  EXPECT_EQ(scale.term, "per_fd");
  EXPECT_EQ(scale.how, term_change::op::scale);
  EXPECT_DOUBLE_EQ(scale.value, 0.9);
  EXPECT_EQ(parse_term_change("poll.fixed-=2000").how, term_change::op::add);
  EXPECT_DOUBLE_EQ(parse_term_change("poll.fixed-=2000").value, -2000);
  EXPECT_DOUBLE_EQ(parse_term_change("poll.fixed+=5e2").value, 500);
  EXPECT_EQ(parse_term_change("epoll.per_ready=0").how, term_change::op::set);
  const auto drop = parse_term_drop("poll.per_fd");
  EXPECT_EQ(drop.how, term_change::op::set);
  EXPECT_DOUBLE_EQ(drop.value, 0);
  for (const char* bad : {"poll", "poll.per_fd", ".per_fd*=2", "poll.*=2", "poll.per_fd*=x", "poll.per_fd*=-1",
                          "poll.fixed=-3", "poll.fixed*=nan", "poll.fixed+="}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_term_change(bad), std::invalid_argument);
  }
  EXPECT_THROW(parse_term_drop("poll.per_fd=1"), std::invalid_argument);
}

// On the synthetic fixture (poll: fixed + per_fd·n planted): halving per_fd halves the
// prediction's per_fd part and its interval's spread from that term; subtracting more than
// the fixed cost holds it at 0 and says so; a term no poll cell has is named with the terms
// the cells do have.
TEST(ModelChangeTest, ChangesMoveThePredictionAndItsInterval) {
  const model::model_set base = test::synthetic_model();
  const datasets::key k = test::poll_pipe_call(1000);
  const auto cell = model::find_cell(base, k).model;
  ASSERT_NE(cell, nullptr);
  double fixed = -1, per_fd = -1;
  for (const auto& t : cell->terms) {
    if (t.name == "fixed") fixed = t.coefficient;
    if (t.name == "per_fd") per_fd = t.coefficient;
  }
  ASSERT_GT(per_fd, 0);
  ASSERT_GE(fixed, 0);
  const auto before = model::predict(base, k);
  change_report report;
  const auto halved = apply_changes(base, {parse_term_change("poll.per_fd*=0.5")}, &report);
  const auto after = model::predict(halved, k);
  EXPECT_NEAR(before.value - after.value, 0.5 * per_fd * 1000, 1e-6 * before.value);
  EXPECT_LT(after.hi - after.lo, before.hi - before.lo);
  ASSERT_EQ(report.cells_changed.size(), 1u);
  EXPECT_GE(report.cells_changed[0].second, 1u);

  const auto minus = apply_changes(base, {parse_term_change("poll.fixed-=1e12")}, &report);
  EXPECT_NEAR(before.value - model::predict(minus, k).value, fixed, 1e-6 * before.value);
  EXPECT_FALSE(report.clamped.empty());

  const auto dropped = apply_changes(base, {parse_term_drop("poll.per_fd")});
  EXPECT_NEAR(model::predict(dropped, k).value, before.value - per_fd * 1000, 1e-6 * before.value);
  try {
    apply_changes(base, {parse_term_change("poll.per_word*=2")});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("its cells have: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("per_fd"), std::string::npos) << e.what();
  }
  EXPECT_THROW(apply_changes(base, {parse_term_change("io_uring.fixed*=2")}), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::studies
