#include "app/study/crossover.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "model/prediction.hpp"

namespace pollscale::app::study {

using datasets::mechanism;

const model::cell_model* pipe_wait_cell(const model::model_set& models, mechanism m,
                                        std::optional<datasets::variant> v) {
  const model::cell_model* found = nullptr;
  for (const auto& c : models.cells) {
    const auto& k = c.cell;
    const bool variant_matches = v ? k.variant == *v : k.variant.empty();
    if (k.scenario != datasets::scenario::find_active || k.mechanism != m || !variant_matches ||
        k.fd_kind != datasets::fd_kind::pipe || k.blocking.value_or(1) != 0 ||
        k.metric != datasets::metric::time_per_call || k.cpus.value_or(1) != 1 || !datasets::one_thread(k) ||
        !c.platform.empty())
      continue;
    if (found) return nullptr;  // ambiguous: say nothing rather than pick one
    found = &c;
  }
  return found;
}

datasets::key one_ready_at(const datasets::key& cell, std::int64_t n) {
  datasets::key q = cell;
  q.n_fds = n;
  q.n_active = 1;
  q.active_pos = datasets::name(datasets::position::middle);
  return q;
}

std::vector<double> log_grid(double n_max, int per_decade) {
  std::vector<double> out;
  for (int i = 0;; ++i) {
    const double n = std::round(std::pow(10.0, static_cast<double>(i) / per_decade));
    if (n > n_max) return out;
    if (out.empty() || out.back() != n) out.push_back(n);
  }
}

namespace {

struct grid_point {
  double n = 0;
  bool epoll_cheaper = false, epoll_clear = false, poll_clear = false;
};

std::optional<model::prediction> ask(const model::model_set& models, const model::cell_model& c, double n) {
  return model::try_predict(models, one_ready_at(c.cell, static_cast<std::int64_t>(n)));
}

std::vector<grid_point> walk(const model::model_set& models, const model::cell_model& poll,
                             const model::cell_model& epoll, double n_max) {
  std::vector<grid_point> out;
  for (const double n : log_grid(n_max, 40)) {
    const auto p = ask(models, poll, n), e = ask(models, epoll, n);
    if (!p || !e) continue;
    grid_point g{n, e->value < p->value, false, false};
    if (p->has_interval && e->has_interval) {
      g.epoll_clear = e->hi < p->lo;
      g.poll_clear = p->hi < e->lo;
    }
    out.push_back(g);
  }
  return out;
}

// The first grid point of the last run of points where epoll's median is below poll's;
// absent when the last point is not one.
std::optional<std::size_t> crossing(const std::vector<grid_point>& g) {
  if (g.empty() || !g.back().epoll_cheaper) return std::nullopt;
  std::size_t i = g.size() - 1;
  while (i > 0 && g[i - 1].epoll_cheaper) --i;
  return i;
}

}  // namespace

std::optional<model_crossover> predicted_crossover(const model::model_set& models, double n_max) {
  const auto* poll = pipe_wait_cell(models, mechanism::poll, std::nullopt);
  const auto* epoll = pipe_wait_cell(models, mechanism::epoll, datasets::variant::lt);
  if (!poll || !epoll) return std::nullopt;
  const auto g = walk(models, *poll, *epoll, n_max);
  const auto cheaper = crossing(g);
  if (!cheaper) return std::nullopt;
  model_crossover x;
  x.n = g[*cheaper].n;
  for (std::size_t i = 0; i < *cheaper; ++i)
    if (g[i].poll_clear) x.poll_clear_up_to = g[i].n;
  // The first n past the crossing where epoll is clearly cheaper, not the start of a run to
  // the grid's end: far past the data poll's interval may reach down to 0 (the model then
  // says it does not know how much dearer poll is, not that it may be cheaper).
  for (std::size_t i = *cheaper; i < g.size() && !x.epoll_clear_from; ++i)
    if (g[i].epoll_clear) x.epoll_clear_from = g[i].n;
  x.measured_n_max = std::min(poll->dom.n_max, epoll->dom.n_max);
  x.poll_cell = datasets::describe(poll->cell);
  x.epoll_cell = datasets::describe(epoll->cell);
  return x;
}

std::string crossover_verdict(const model::model_set& models, double n_max) {
  const auto x = predicted_crossover(models, n_max);
  if (!x) {
    if (!pipe_wait_cell(models, mechanism::poll, std::nullopt) ||
        !pipe_wait_cell(models, mechanism::epoll, datasets::variant::lt))
      return "";
    return "- By the fitted model, epoll's wait call is not cheaper than poll's even at n = " + count_text(n_max) +
           " (1 ready pipe, timeout 0).\n";
  }
  std::ostringstream md;
  md << "- **By the fitted model, epoll's wait call is cheaper than poll's from n ≈ " << count_text(x->n)
     << "** (1 ready "
     << "pipe in the middle, timeout 0; level-triggered epoll). Where the 95% prediction intervals part: ";
  md << (x->poll_clear_up_to ? "poll clearly cheaper up to n = " + count_text(*x->poll_clear_up_to)
                             : std::string("poll clearly cheaper at no n"));
  md << ", "
     << (x->epoll_clear_from ? "epoll clearly cheaper from n = " + count_text(*x->epoll_clear_from)
                             : "epoll never clearly cheaper up to n = " + count_text(n_max));
  md << ".";
  const double beyond = x->epoll_clear_from.value_or(x->n);
  if (beyond > x->measured_n_max)
    md << " Both cells were measured up to n = " << count_text(x->measured_n_max)
       << ": past that the crossing is the model's extrapolation.";
  md << "\n";
  return md.str();
}

}  // namespace pollscale::app::study
