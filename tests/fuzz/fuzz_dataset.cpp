// A calibration dataset (datasets/dataset.hpp) from arbitrary bytes: the input is split at
// the first two lines reading "====" into context.json, summary.csv and samples.csv (the
// corpus holds real datasets in that shape), and read_dataset must either accept it or
// refuse it with an input_error.

#include <string>
#include <string_view>

#include "datasets/dataset.hpp"
#include "datasets/input_error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

// The part of `text` up to the next "\n====\n" (or the end); advances `text` past it.
std::string_view next_part(std::string_view& text) {
  constexpr std::string_view separator = "\n====\n";
  const auto at = text.find(separator);
  const auto part = text.substr(0, at);
  text = at == std::string_view::npos ? std::string_view() : text.substr(at + separator.size());
  return part;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  std::string_view text = fuzz::view(data, size);
  fuzz::as_file("context.json", next_part(text));
  fuzz::as_file("summary.csv", next_part(text));
  fuzz::as_file("samples.csv", next_part(text));
  try {
    (void)datasets::read_dataset(fuzz::scratch());
  } catch (const datasets::input_error&) {
  }
  return 0;
}
