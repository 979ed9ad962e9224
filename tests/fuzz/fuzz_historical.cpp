// The historical CSV reader (datasets/historical.hpp) on arbitrary bytes: every row it
// accepts has a finite value >= 0; everything else is an input_error naming file:line.

#include <cmath>
#include <cstdlib>

#include "datasets/historical.hpp"
#include "datasets/input_error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  try {
    for (const auto& row : datasets::read_historical(fuzz::as_file("table.csv", fuzz::view(data, size))))
      if (!std::isfinite(row.value) || row.value < 0) std::abort();  // accepted garbage
  } catch (const datasets::input_error&) {
  }
  return 0;
}
