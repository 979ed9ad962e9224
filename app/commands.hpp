// Entry points of the subcommands, one file each (cmd_<name>.cpp). Each receives the
// arguments after its name and returns an exit code (app/exit_codes.hpp).
#pragma once

#include <string>
#include <vector>

namespace pollscale::app {

using args_t = std::vector<std::string>;

int cmd_calibrate(const args_t& args);
int cmd_fit(const args_t& args);
int cmd_predict(const args_t& args);
int cmd_cells(const args_t& args);
int cmd_validate(const args_t& args);
int cmd_scale(const args_t& args);
int cmd_compare(const args_t& args);
int cmd_report(const args_t& args);
int cmd_simulate(const args_t& args);
int cmd_whatif(const args_t& args);
int cmd_capacity(const args_t& args);
int cmd_study(const args_t& args);

}  // namespace pollscale::app
