// model.json (model/prediction.hpp load_model) from arbitrary bytes; a model it accepts is
// then asked one question, which must answer or say why not.

#include "datasets/input_error.hpp"
#include "model/prediction.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  try {
    const auto models = model::load_model(fuzz::as_file("model.json", fuzz::view(data, size)));
    for (const auto& cell : models.cells) {
      datasets::key q = cell.cell;
      q.n_fds = 1000;
      (void)model::try_predict(models, q);
    }
  } catch (const datasets::input_error&) {
  }
  return 0;
}
