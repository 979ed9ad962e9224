// The --train expression parser (model/row_filter.hpp) on arbitrary text, then every parsed
// filter evaluated on two rows: it may refuse text with std::invalid_argument (its
// documented error) and nothing else.

#include <stdexcept>
#include <string>

#include "datasets/vocabulary.hpp"
#include "model/row_filter.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  model::observation a, b;
  a.k.scenario = b.k.scenario = std::string(datasets::name(datasets::scenario::find_active));
  a.k.n_fds = 10;
  b.k.n_fds = 100000;
  a.k.mechanism = "poll";
  b.n_rank = 3;
  const std::vector<const model::observation*> rows = {&a, &b};
  try {
    const auto f = model::row_filter::parse(std::string(fuzz::view(data, size)));
    const auto ext = model::extremes_of(rows, f.columns_needing_extremes());
    (void)f(a, ext);
    (void)f(b, ext);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
