#include "datasets/build_info.hpp"

namespace pollscale::datasets {

std::string version_text(const build_info& b) {
  return std::string(b.version) + " (" + b.git_hash + (b.dirty ? "-dirty" : "") + ")";
}

nlohmann::json tool_json(const build_info& b) {
  return {{"name", "pollscale"},        {"version", b.version},   {"git_hash", b.git_hash}, {"dirty", b.dirty},
          {"build_type", b.build_type}, {"compiler", b.compiler}, {"flags", b.flags}};
}

}  // namespace pollscale::datasets
