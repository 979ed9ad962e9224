// The model the studies tests ask: fitted on tests/model/data/synthetic (planted poll,
// select and epoll costs over pipes), and the key of poll's timeout-0 call over n pipes.
#pragma once

#include <cstdint>
#include <filesystem>

#include "datasets/schema.hpp"
#include "model/fit.hpp"
#include "model/observations.hpp"
#include "tests/model/synthetic.hpp"

namespace pollscale::test {

inline model::model_set synthetic_model() {
  return model::fit_models(
      model::load_observations(std::filesystem::path(POLLSCALE_SOURCE_DIR) / "tests/model/data/synthetic"));
}

inline datasets::key poll_pipe_call(std::int64_t n) {
  datasets::key k = model::test::cell_key("poll");
  k.n_fds = n;
  k.n_active = 1;
  return k;
}

}  // namespace pollscale::test
