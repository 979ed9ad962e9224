#include "model/bootstrap.hpp"

#include <algorithm>
#include <random>

#include "datasets/statistics.hpp"

namespace pollscale::model {
namespace {

// FNV-1a: a stable per-cell stream so that one cell's replicates do not depend on how
// many other cells were fitted before it.
std::uint64_t stream_of(const cell_model& m) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : datasets::describe(m.cell) + "|" + m.platform + "|" + m.kernel) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

std::vector<double> residual_pool(const cell_model& m, const form& f, const cell_points& pts,
                                  const std::vector<double>& loo) {
  if (!loo.empty()) return loo;
  std::vector<double> pool;
  for (std::size_t i = 0; i < pts.value.size(); ++i) {
    double c = 0;
    for (std::size_t j = 0; j < f.terms.size(); ++j) c += m.terms[j].coefficient * f.terms[j](pts.x[i]);
    if (c > 0) pool.push_back((pts.reciprocal ? 1 / c : c) / pts.value[i] - 1);
  }
  if (pool.empty()) pool.push_back(0);
  return pool;
}

// The median of `values` drawn with replacement, as many as there are.
double resampled_median(const std::vector<double>& values, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  std::vector<double> draw(values.size());
  for (auto& d : draw) d = values[pick(rng)];
  return datasets::median(draw);
}

// One resampled data set: for a point visited several times, the median of its visit
// medians drawn with replacement (the drift between visits is the larger noise on a shared
// host, and a point's own summary is built the same way); else the median of resampled raw
// samples; else (published figures) fitted x (1 + e*).
cell_points resample(const cell_model& m, const form& f, const cell_points& pts, const std::vector<double>& pool,
                     std::mt19937_64& rng) {
  cell_points star = pts;
  std::uniform_int_distribution<std::size_t> pick_residual(0, pool.size() - 1);
  for (std::size_t i = 0; i < pts.value.size(); ++i) {
    const auto& samples = pts.rows[i]->samples;
    const auto& visits = pts.rows[i]->visit_medians;
    double v = 0;
    if (visits.size() >= 2) {
      v = resampled_median(visits, rng);
    } else if (samples.size() >= 3) {
      v = resampled_median(samples, rng);
    } else {
      double c = 0;
      for (std::size_t j = 0; j < f.terms.size(); ++j) c += m.terms[j].coefficient * f.terms[j](pts.x[i]);
      const double fitted = pts.reciprocal ? (c > 0 ? 1 / c : pts.value[i]) : c;
      v = fitted * (1 + pool[pick_residual(rng)]);
    }
    v = std::max(v, 1e-12 * pts.value[i]);
    star.value[i] = v;
    star.y(static_cast<Eigen::Index>(i)) = pts.reciprocal ? 1 / v : v;
  }
  return star;
}

}  // namespace

void add_bootstrap(cell_model& m, const form& f, const cell_points& pts, const std::vector<double>& loo,
                   const fit_options& o) {
  std::mt19937_64 rng(o.seed ^ stream_of(m));
  const auto pool = residual_pool(m, f, pts, loo);
  std::uniform_int_distribution<std::size_t> pick_residual(0, pool.size() - 1);
  const auto reps = static_cast<Eigen::Index>(o.bootstrap_replicates);
  const auto p = static_cast<Eigen::Index>(f.terms.size());
  m.bootstrap.resize(reps, p);
  m.bootstrap_residuals.resize(o.bootstrap_replicates);
  Eigen::VectorXd fitted_beta(p);
  for (Eigen::Index j = 0; j < p; ++j) fitted_beta(j) = m.terms[static_cast<std::size_t>(j)].coefficient;
  robust_options quick = o.robust;
  quick.max_iterations = std::min<std::size_t>(quick.max_iterations, 12);
  std::normal_distribution<double> unit_normal(0.0, 1.0);
  for (Eigen::Index b = 0; b < reps; ++b) {
    const cell_points star = resample(m, f, pts, pool, rng);
    linear_problem prob = problem_for(f, star, {});
    // A prior is uncertain too: each replicate refits against a prior mean drawn from
    // the prior itself (a randomised prior), so a term the data cannot see spreads the
    // replicates as widely as the prior says, as it does the analytic interval.
    for (auto& pr : prob.priors) pr.mean += pr.sd * unit_normal(rng);
    m.bootstrap.row(b) =
        identifiable(prob.x, prob.priors) ? solve_robust(prob, quick).beta.transpose() : fitted_beta.transpose();
    m.bootstrap_residuals[static_cast<std::size_t>(b)] = pool[pick_residual(rng)];
  }
}

}  // namespace pollscale::model
