#include "sim/core/engine.hpp"

#include <stdexcept>
#include <string>

namespace pollscale::sim {

scheduler_kind parse_scheduler_kind(std::string_view text) {
  if (text == "heap") return scheduler_kind::binary_heap;
  if (text == "calendar") return scheduler_kind::calendar_queue;
  throw std::invalid_argument("scheduler '" + std::string(text) + "' is not one of heap, calendar");
}

std::string_view to_string(scheduler_kind kind) { return kind == scheduler_kind::binary_heap ? "heap" : "calendar"; }

void engine::run_until(sim_time end) {
  POLLSCALE_SIM_EXPECT(end >= now_ && std::isfinite(end), "run_until() into the past or to NaN/inf");
  stopped_ = false;
  while (!stopped_ && pending() > 0 && next_time() <= end) {
    step();
    check_stop_request();
  }
  if (!stopped_) now_ = end;
}

void engine::run() {
  stopped_ = false;
  while (!stopped_ && step()) check_stop_request();
}

}  // namespace pollscale::sim
