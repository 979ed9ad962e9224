// Internal to model/: a cell's measured points in the shape the fitters take, and the
// design rows of a form. Shared by cell_fit.cpp and bootstrap.cpp.
#pragma once

#include <vector>

#include <Eigen/Dense>

#include "model/basis.hpp"
#include "model/forms.hpp"
#include "model/linear_fit.hpp"
#include "model/observations.hpp"

namespace pollscale::model {

struct cell_points {
  std::vector<point> x;
  Eigen::VectorXd y;          ///< responses: the value, or 1/value for rates
  std::vector<double> value;  ///< as measured, in the cell's unit
  std::vector<const observation*> rows;
  bool reciprocal = false;
};

/// The regressors of `f` at `x`.
Eigen::VectorXd problem_row(const form& f, const point& x);

/// The non-negative least-squares problem of `f` on the points flagged in `keep` (all
/// when empty), with the working-set prior when `f` has that term.
linear_problem problem_for(const form& f, const cell_points& pts, const std::vector<bool>& keep);

}  // namespace pollscale::model
