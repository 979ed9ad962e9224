// The simulator's workload file (sim/workload.hpp read_workload, which parses its
// distributions too) from arbitrary bytes: accepted, or refused with an input_error.

#include "datasets/input_error.hpp"
#include "sim/workload.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  try {
    (void)sim::read_workload(fuzz::as_file("workload.json", fuzz::view(data, size)).string());
  } catch (const datasets::input_error&) {
  }
  return 0;
}
