// A set-up kept between the points of one group (probe_def::setup_of). Opening 19,700
// loopback connections and closing them again takes about a second here; measuring a point
// over them a quarter of one. The points that name one set-up are visited together, and
// the first of them builds it; the others take it back by name; release() frees it when
// the session moves on. One slot: a different name frees the kept set-up before building
// the new one, whose descriptors may be the ones it held (RLIMIT_NOFILE is 20000 here).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "calibrate/channel.hpp"

namespace pollscale::calibrate {

class shared_setup {
 public:
  /// The channel set named `name`: the kept one when it has that name, else the one build()
  /// returns, kept under `name`. An empty name is never kept: build()'s set is the caller's.
  std::shared_ptr<channel_set> get(const std::string& name, const std::function<std::unique_ptr<channel_set>()>& build);
  /// Frees the kept set (a holder's shared_ptr keeps it alive until the holder lets go).
  void release();
  /// The name of the kept set ("" when none).
  const std::string& kept() const { return name_; }

 private:
  std::string name_;
  std::shared_ptr<channel_set> set_;
};

}  // namespace pollscale::calibrate
