#include "calibrate/waiter.hpp"

#include "calibrate/waiters/waiters.hpp"

namespace pollscale::calibrate {

std::unique_ptr<waiter> make_waiter(const flavour& f, std::size_t capacity) {
  switch (f.mech) {
    case mechanism::select: return waiters::make_select(false, capacity);
    case mechanism::pselect: return waiters::make_select(true, capacity);
    case mechanism::poll: return waiters::make_poll(false, capacity);
    case mechanism::ppoll: return waiters::make_poll(true, capacity);
    case mechanism::epoll: return waiters::make_epoll(f.variant, capacity);
    case mechanism::rtsig: return waiters::make_rtsig(capacity);
    case mechanism::io_uring: return waiters::make_io_uring(f.variant, capacity);
  }
  return nullptr;
}

}  // namespace pollscale::calibrate
