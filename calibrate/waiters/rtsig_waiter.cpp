// Realtime signals (F_SETOWN_EX + F_SETSIG + O_ASYNC), harvested with sigtimedwait(2).
// Every wake-up of a watched file queues one siginfo (si_fd names the descriptor) for the
// waiting thread, paid by the writer; one sigtimedwait takes one event. There is no
// level-triggering: data already present when O_ASYNC is set is never signalled. When the
// queue overflows RLIMIT_SIGPENDING the kernel sends a plain SIGIO instead and the
// application must poll() every descriptor to recover — implemented here, because that
// cliff is part of the mechanism's real cost.
//
// Precondition: construct, add and wait on the same thread (signals are directed at it).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/waiters/waiters.hpp"

namespace pollscale::calibrate::waiters {
namespace {

class rtsig_waiter final : public waiter {
 public:
  explicit rtsig_waiter(std::size_t capacity) : signo_(SIGRTMIN + 1), tid_(static_cast<pid_t>(::syscall(SYS_gettid))) {
    sigemptyset(&set_);
    sigaddset(&set_, signo_);
    sigaddset(&set_, SIGIO);
    pthread_sigmask(SIG_BLOCK, &set_, &old_mask_);
    fds_.reserve(capacity);
    drain();
  }

  ~rtsig_waiter() override {
    for (const auto& p : fds_) disable(p.fd);
    drain();  // signals still queued for descriptors we no longer watch
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }

  void add(int fd, std::uint32_t tag) override {
    const f_owner_ex owner{F_OWNER_TID, tid_};
    sys::call("fcntl(F_SETOWN_EX)", [&] { return ::fcntl(fd, F_SETOWN_EX, &owner); });
    sys::call("fcntl(F_SETSIG)", [&] { return ::fcntl(fd, F_SETSIG, signo_); });
    const int fl = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(fd, F_GETFL); });
    sys::call("fcntl(F_SETFL, O_ASYNC)", [&] { return ::fcntl(fd, F_SETFL, fl | O_ASYNC | O_NONBLOCK); });
    const auto f = static_cast<std::size_t>(fd);
    if (tag_of_fd_.size() <= f) {
      tag_of_fd_.resize(f + 1, no_tag);
      seen_.resize(f + 1, 0);
    }
    tag_of_fd_[f] = tag;
    fds_.push_back({fd, POLLIN, 0});
  }

  void remove(int fd, std::uint32_t) override {
    disable(fd);
    tag_of_fd_[static_cast<std::size_t>(fd)] = no_tag;
    std::erase_if(fds_, [fd](const pollfd& p) { return p.fd == fd; });
  }

  std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) override {
    out.clear();
    ++generation_;
    siginfo_t si;
    timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
    int s =
        sys::call("sigtimedwait", [&] { return ::sigtimedwait(&set_, &si, timeout_ms < 0 ? nullptr : &ts); }, {EAGAIN});
    const timespec zero{0, 0};
    while (s > 0) {
      if (s == SIGIO) return recover_from_overflow(out);
      take(si, out);
      s = sys::call("sigtimedwait", [&] { return ::sigtimedwait(&set_, &si, &zero); }, {EAGAIN});
    }
    return out.size();
  }

  bool level_triggered() const override { return false; }

  std::size_t overflows() const { return overflows_; }

 private:
  static constexpr std::uint32_t no_tag = UINT32_MAX;

  /// Records one signal's descriptor, once per wait() even if several writes queued several.
  void take(const siginfo_t& si, std::vector<std::uint32_t>& out) {
    if (!(si.si_band & (POLLIN | POLLRDNORM | POLLHUP | POLLERR))) return;  // POLL_OUT only
    const auto f = static_cast<std::size_t>(si.si_fd);
    if (f >= tag_of_fd_.size() || tag_of_fd_[f] == no_tag || seen_[f] == generation_) return;
    seen_[f] = generation_;
    out.push_back(tag_of_fd_[f]);
  }

  /// The queue overflowed: events were lost, so drop what is queued and poll everything.
  std::size_t recover_from_overflow(std::vector<std::uint32_t>& out) {
    ++overflows_;
    drain();
    out.clear();
    sys::call("poll (rtsig overflow recovery)", [&] { return ::poll(fds_.data(), fds_.size(), 0); });
    for (const auto& p : fds_)
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) out.push_back(tag_of_fd_[static_cast<std::size_t>(p.fd)]);
    return out.size();
  }

  void drain() {
    siginfo_t si;
    const timespec zero{0, 0};
    while (sys::call("sigtimedwait (drain)", [&] { return ::sigtimedwait(&set_, &si, &zero); }, {EAGAIN}) > 0) {
    }
  }

  /// Leaves the descriptor as a set-up shared with other mechanisms needs it: no O_ASYNC
  /// (its fasync entry goes), no owner (so that nothing could be signalled even if a flag
  /// were left) and the default signal. What stays is the owner structure the kernel
  /// allocated for F_SETOWN_EX, which no readiness path reads.
  static void disable(int fd) {
    const int fl = ::fcntl(fd, F_GETFL);
    if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_ASYNC);
    ::fcntl(fd, F_SETOWN, 0);
    ::fcntl(fd, F_SETSIG, 0);
  }

  int signo_;
  pid_t tid_;
  sigset_t set_{}, old_mask_{};
  std::vector<pollfd> fds_;
  std::vector<std::uint32_t> tag_of_fd_;
  std::vector<std::uint64_t> seen_;  // generation of the wait() that last reported each fd
  std::uint64_t generation_ = 0;
  std::size_t overflows_ = 0;
};

}  // namespace

std::unique_ptr<waiter> make_rtsig(std::size_t capacity) { return std::make_unique<rtsig_waiter>(capacity); }

}  // namespace pollscale::calibrate::waiters
