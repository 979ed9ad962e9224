#include "calibrate/shared_setup.hpp"

namespace pollscale::calibrate {

std::shared_ptr<channel_set> shared_setup::get(const std::string& name,
                                               const std::function<std::unique_ptr<channel_set>()>& build) {
  if (!name.empty() && name == name_ && set_) return set_;
  release();  // its descriptors are free before the new set needs them
  std::shared_ptr<channel_set> made = build();
  if (!name.empty()) {
    name_ = name;
    set_ = made;
  }
  return made;
}

void shared_setup::release() {
  set_.reset();
  name_.clear();
}

}  // namespace pollscale::calibrate
