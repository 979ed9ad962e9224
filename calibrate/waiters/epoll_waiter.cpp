// epoll(7): the interest set lives in the kernel (a red-black tree), so a wait costs the
// ready events, not the registered descriptors. Variants: level-triggered (lt), edge-
// triggered (et: reported once per new data), one-shot (disabled after one report until
// EPOLL_CTL_MOD re-enables it, which rearm() does).

#include <sys/epoll.h>

#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/sys/unique_fd.hpp"
#include "calibrate/waiters/waiters.hpp"

namespace pollscale::calibrate::waiters {
namespace {

class epoll_waiter final : public waiter {
 public:
  epoll_waiter(std::uint32_t mode, std::size_t capacity)
      : epfd_(sys::call("epoll_create1", [] { return ::epoll_create1(EPOLL_CLOEXEC); })),
        mode_(mode),
        events_(std::max<std::size_t>(capacity, 1)) {}

  void add(int fd, std::uint32_t tag) override { ctl(EPOLL_CTL_ADD, fd, tag); }

  void remove(int fd, std::uint32_t) override {
    sys::call("epoll_ctl(DEL)", [&] { return ::epoll_ctl(epfd_.get(), EPOLL_CTL_DEL, fd, nullptr); });
  }

  std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) override {
    out.clear();
    const int n = sys::call("epoll_wait", [&] {
      return ::epoll_wait(epfd_.get(), events_.data(), static_cast<int>(events_.size()), timeout_ms);
    });
    for (int i = 0; i < n; ++i) out.push_back(events_[static_cast<std::size_t>(i)].data.u32);
    return out.size();
  }

  void rearm(int fd, std::uint32_t tag) override {
    if (mode_ & EPOLLONESHOT) ctl(EPOLL_CTL_MOD, fd, tag);
  }

  bool level_triggered() const override { return mode_ == 0; }
  std::size_t own_fds() const override { return 1; }

 private:
  void ctl(int op, int fd, std::uint32_t tag) {
    epoll_event ev{};
    ev.events = EPOLLIN | mode_;
    ev.data.u32 = tag;
    sys::call(op == EPOLL_CTL_ADD ? "epoll_ctl(ADD)" : "epoll_ctl(MOD)",
              [&] { return ::epoll_ctl(epfd_.get(), op, fd, &ev); });
  }

  sys::unique_fd epfd_;
  std::uint32_t mode_;
  std::vector<epoll_event> events_;
};

}  // namespace

std::unique_ptr<waiter> make_epoll(std::string_view variant, std::size_t capacity) {
  std::uint32_t mode = 0;
  if (variant == "et")
    mode = EPOLLET;
  else if (variant == "oneshot")
    mode = EPOLLONESHOT;
  return std::make_unique<epoll_waiter>(mode, capacity);
}

}  // namespace pollscale::calibrate::waiters
