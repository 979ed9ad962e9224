// The documented exit codes of every pollscale subcommand (README, "Exit codes").
#pragma once

namespace pollscale::app {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;        ///< a runtime failure (OS error, probe failure)
inline constexpr int exit_bad_input = 2;      ///< bad usage, bad flag value or malformed input file
inline constexpr int exit_regression = 3;     ///< compare --fail-on-regression: B is significantly slower
inline constexpr int exit_interrupted = 130;  ///< Ctrl-C; what was measured is kept

}  // namespace pollscale::app
