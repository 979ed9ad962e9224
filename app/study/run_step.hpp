// A study runs the other subcommands as steps, exactly as a user would, and keeps each
// one's stdout in a file of the study folder; a step that fails is recorded and the study
// goes on where it can (a report without a simulation is still a report).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli.hpp"

namespace pollscale::app::study {

struct step_result {
  std::string name;     ///< what the step is for, e.g. "validate (extrapolation)"
  std::string command;  ///< the subcommand it ran, e.g. "validate"
  std::vector<std::string> args;
  int exit_code = 0;
  std::string error;  ///< the failure's one-line message, "" on success
  double wall_s = 0;
  std::filesystem::path output;  ///< where its stdout went ("" if discarded)
  bool ok() const { return exit_code == 0 && error.empty(); }
};

/// Runs `fn(args)` with std::cout redirected into `output` (written atomically; nothing
/// written when `output` is empty). Exceptions other than an interruption become a failed
/// step with the message; sys::interrupted propagates so that the study can stop.
step_result run_step(const std::string& name, const std::string& command, const command_fn& fn,
                     const std::vector<std::string>& args, const std::filesystem::path& output);

/// The manifest entry of a step (name, command line, exit code, error, seconds, output).
nlohmann::json step_json(const step_result& s, const std::filesystem::path& study_dir);

}  // namespace pollscale::app::study
