// The simulator's costs file (sim/costs.hpp read_cost_table) from arbitrary bytes: accepted,
// or refused with an input_error. What it accepts must then drive a cost model: every
// mechanism it names becomes one (make_cost_model refuses only rtsig without poll, with
// std::invalid_argument, as documented), and every answer for a few wait queries is a
// finite number >= 0 or +infinity from an overflowing product (the simulator's own check
// names such a query) — never NaN, and never undefined behaviour on the way.

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "datasets/input_error.hpp"
#include "sim/costs.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

void check(double seconds) {
  if (std::isnan(seconds) || seconds < 0) std::abort();  // a finding: the reader let it through
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pollscale;
  sim::cost_table table;
  try {
    table = sim::read_cost_table(fuzz::as_file("costs.json", fuzz::view(data, size)).string());
  } catch (const datasets::input_error&) {
    return 0;
  }
  for (const auto& [name, wait] : table.wait) {
    sim::cost_model m;
    try {
      m = sim::make_cost_model(table, name);
    } catch (const std::invalid_argument&) {
      continue;  // rtsig without a poll entry
    }
    for (const sim::wait_query q : {sim::wait_query{0, 0, false}, sim::wait_query{1, 1, true},
                                    sim::wait_query{19708, 1, true, 9853}, sim::wait_query{1000000, 0, true}}) {
      check(m.wait_call_s(q));
      check(m.rescan_s(q));
      if (m.overflow_poll_s) check(m.overflow_poll_s(q));
    }
    check(m.rearm_s(1000));
  }
  check(table.handler_s);
  check(table.wakeup_same_cpu_s);
  check(table.wakeup_cross_cpu_s);
  return 0;
}
