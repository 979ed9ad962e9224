#include "calibrate/probes/own_pipe.hpp"

namespace pollscale::calibrate::probes {

own_pipe::own_pipe(const flavour& f, std::uint32_t tag) {
  channel_options ready;
  ready.ready_initially = [](std::size_t) { return true; };
  ch = std::make_unique<channel_set>(fd_kind::pipe, 1, ready);
  w = make_waiter(f, 1);
  w->add(fd(), tag);
  scratch.reserve(1);
}

bool own_pipe::call(std::uint32_t tag) {
  const bool right = w->wait(scratch, 0) == 1 && scratch[0] == tag;
  if (right && !w->level_triggered()) w->rearm(fd(), tag);
  return right;
}

}  // namespace pollscale::calibrate::probes
