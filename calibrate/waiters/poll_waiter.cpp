// poll(2) and ppoll(2). The interest set is a pollfd array the kernel copies in and whose
// revents it writes back on every call; the caller then scans the revents to find the
// ready ones (stopping once it has seen as many as poll returned, as a careful caller
// does) — that user-space scan is part of a real caller's cost and is included.

#include <poll.h>
#include <signal.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/sys/syscall.hpp"
#include "calibrate/waiters/waiters.hpp"

namespace pollscale::calibrate::waiters {
namespace {

class poll_waiter final : public waiter {
 public:
  poll_waiter(bool with_sigmask, std::size_t capacity) : with_sigmask_(with_sigmask) {
    fds_.reserve(capacity);
    tags_.reserve(capacity);
    pthread_sigmask(SIG_SETMASK, nullptr, &mask_);
  }

  void add(int fd, std::uint32_t tag) override {
    fds_.push_back({fd, POLLIN, 0});
    tags_.push_back(tag);
  }

  void remove(int fd, std::uint32_t) override {
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i].fd != fd) continue;
      fds_[i] = fds_.back();
      tags_[i] = tags_.back();
      fds_.pop_back();
      tags_.pop_back();
      return;
    }
  }

  std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) override {
    out.clear();
    int ready = 0;
    if (with_sigmask_) {
      timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
      ready =
          sys::call("ppoll", [&] { return ::ppoll(fds_.data(), fds_.size(), timeout_ms < 0 ? nullptr : &ts, &mask_); });
    } else {
      ready = sys::call("poll", [&] { return ::poll(fds_.data(), fds_.size(), timeout_ms); });
    }
    for (std::size_t i = 0; i < fds_.size() && out.size() < static_cast<std::size_t>(ready); ++i) {
      const short r = fds_[i].revents;
      if (r == 0) continue;
      if (r & POLLNVAL) throw std::runtime_error("poll: fd " + std::to_string(fds_[i].fd) + " is not open (POLLNVAL)");
      out.push_back(tags_[i]);
    }
    return out.size();
  }

  bool level_triggered() const override { return true; }

 private:
  bool with_sigmask_;
  sigset_t mask_{};
  std::vector<pollfd> fds_;
  std::vector<std::uint32_t> tags_;
};

}  // namespace

std::unique_ptr<waiter> make_poll(bool with_sigmask, std::size_t capacity) {
  return std::make_unique<poll_waiter>(with_sigmask, capacity);
}

}  // namespace pollscale::calibrate::waiters
