// Which pollscale produced a file: its version, the commit it was built from, and how it
// was built. Every dataset's context block and every study manifest carries it, so that a
// number can be traced to the code that measured it (a Debug build measures the probes'
// own loops slower; a tree with uncommitted changes is not the commit it names).
//
// The values come from one source file that cmake/build_info.cmake writes at every build.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pollscale::datasets {

struct build_info {
  const char* version;     ///< the project version, e.g. "0.1.0"
  const char* git_hash;    ///< 12 hex digits of the commit, or "unknown" outside a git tree
  bool dirty;              ///< tracked files differed from that commit when it was built
  const char* build_type;  ///< CMAKE_BUILD_TYPE: Release, Debug, RelWithDebInfo, ...
  const char* compiler;    ///< compiler id and version, e.g. "GNU 12.2.0"
  const char* flags;       ///< the extra compiler flags of the build (sanitizers show here)
};

const build_info& this_build();

/// "0.1.0 (1a2b3c4d5e6f)", with "-dirty" after the hash when the tree had changes.
std::string version_text(const build_info& b);

/// The "tool" block of context.json and of the study manifest (docs/datasets.md).
nlohmann::json tool_json(const build_info& b);

}  // namespace pollscale::datasets
