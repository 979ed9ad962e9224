// Runs the pollscale binary as a user would and captures what it says, for end-to-end
// tests of the CLI contract (exit codes, one-line errors, data on stdout).
#pragma once

#include <sys/wait.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace pollscale::test {

struct command_result {
  int rc = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `POLLSCALE_BINARY args` through the shell; args are passed verbatim.
inline command_result run_pollscale(const std::string& args) {
  const std::string base = "/tmp/pollscale_cli_" + std::to_string(::getpid());
  const std::string cmd = std::string(POLLSCALE_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  command_result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace pollscale::test
