// Broken internal invariants of the simulator (scheduling into the past, a NaN time, a
// handler that is not there): a programming error, so the run aborts naming file and line
// instead of producing silently wrong simulated times (docs/architecture.md, "Errors").
#pragma once

#include <cstdio>
#include <cstdlib>

namespace pollscale::sim::detail {

[[noreturn]] inline void invariant_failed(const char* file, int line, const char* what) {
  std::fprintf(stderr, "%s:%d: simulator invariant broken: %s\n", file, line, what);
  std::abort();
}

}  // namespace pollscale::sim::detail

/// Aborts with file:line and `what` when `cond` is false (checked in every build type).
#define POLLSCALE_SIM_EXPECT(cond, what)                                    \
  do {                                                                      \
    if (!(cond)) [[unlikely]]                                               \
      ::pollscale::sim::detail::invariant_failed(__FILE__, __LINE__, what); \
  } while (false)
