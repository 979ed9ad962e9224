// interest_churn, rtsig `setup` (the essay is in interest_churn.cpp): F_SETOWN_EX +
// F_SETSIG + F_SETFL(O_ASYNC) on the read end of a fresh pipe, n_fds pipes already set up.
// The signal stays blocked on this thread for the instance's life, so a stray one (a pipe
// closed while still set up) is queued and drained, never delivered.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "calibrate/probes/interest_churn_parts.hpp"
#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate::probes::churn {
namespace {

/// Blocks `signo` and SIGIO on the calling thread until destroyed; then drains them.
class blocked_signals {
 public:
  explicit blocked_signals(int signo) {
    sigemptyset(&set_);
    sigaddset(&set_, signo);
    sigaddset(&set_, SIGIO);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~blocked_signals() {
    try {
      while (take(0)) {
      }
    } catch (...) {  // interrupted: the mask is restored below either way
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  blocked_signals(const blocked_signals&) = delete;
  blocked_signals& operator=(const blocked_signals&) = delete;

  /// Takes one queued signal of the set, waiting up to `timeout_ms`; false if none came.
  bool take(int timeout_ms, siginfo_t* info = nullptr) const {
    siginfo_t si{};
    const timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
    const int s = sys::call("sigtimedwait", [&] { return ::sigtimedwait(&set_, &si, &ts); }, {EAGAIN});
    if (info) *info = si;
    return s > 0;
  }

 private:
  sigset_t set_{}, old_{};
};

struct fresh_pipe {
  sys::unique_fd read_end, write_end;
};

class rtsig_setup_instance final : public probe_instance {
 public:
  rtsig_setup_instance(const datasets::key& key, const selection& sel)
      : signo_(SIGRTMIN + 1),
        tid_(static_cast<pid_t>(::syscall(SYS_gettid))),
        signals_(signo_),
        registered_(checked_channels(fd_kind::pipe, n_of(key), 2 * rtsig_batch + 2, sel)) {
    for (std::size_t i = 0; i < registered_->size(); ++i) {
      const int fd = registered_->watched(i);
      setup(fd, sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(fd, F_GETFL); }));
    }
    batch_.reserve(rtsig_batch);
    make_batch(1);
    fresh_flags_ = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(batch_[0].read_end.get(), F_GETFL); });
    prove();
  }

  ~rtsig_setup_instance() override {
    close_batch();
    for (std::size_t i = 0; i < registered_->size(); ++i) {  // before the keeper closes the writers
      const int fd = registered_->watched(i);
      const int fl = ::fcntl(fd, F_GETFL);
      if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_ASYNC);
    }
  }

  std::uint64_t run(std::size_t ops) override {
    return chunked(
        ops, rtsig_batch, [this](std::size_t c) { make_batch(c); },
        [this](std::size_t c) {
          for (std::size_t i = 0; i < c; ++i) setup(batch_[i].read_end.get(), fresh_flags_);
        },
        [this](std::size_t c) {
          for (std::size_t i = 0; i < c; ++i) check_setup(batch_[i].read_end.get());
          close_batch();
        });
  }

 private:
  /// The timed part: three fcntl calls, `flags` being the descriptor's current F_GETFL.
  void setup(int fd, int flags) const {
    const f_owner_ex owner{F_OWNER_TID, tid_};
    sys::call("fcntl(F_SETOWN_EX)", [&] { return ::fcntl(fd, F_SETOWN_EX, &owner); });
    sys::call("fcntl(F_SETSIG)", [&] { return ::fcntl(fd, F_SETSIG, signo_); });
    sys::call("fcntl(F_SETFL, O_ASYNC)", [&] { return ::fcntl(fd, F_SETFL, flags | O_ASYNC); });
  }

  void check_setup(int fd) const {
    f_owner_ex owner{};
    sys::call("fcntl(F_GETOWN_EX)", [&] { return ::fcntl(fd, F_GETOWN_EX, &owner); });
    const int sig = sys::call("fcntl(F_GETSIG)", [&] { return ::fcntl(fd, F_GETSIG); });
    const int fl = sys::call("fcntl(F_GETFL)", [&] { return ::fcntl(fd, F_GETFL); });
    if (owner.type != F_OWNER_TID || owner.pid != tid_ || sig != signo_ || !(fl & O_ASYNC))
      throw probe_failure("fd " + std::to_string(fd) + " is not set up for signals after F_SETOWN_EX/F_SETSIG/O_ASYNC");
  }

  void make_batch(std::size_t c) {
    close_batch();
    for (std::size_t i = 0; i < c; ++i) {
      int p[2];
      sys::call("pipe2", [&] { return ::pipe2(p, O_CLOEXEC | O_NONBLOCK); });
      batch_.push_back({sys::unique_fd(p[0]), sys::unique_fd(p[1])});
    }
  }

  /// Read ends first: closing a writer while its reader is set up would queue a signal.
  void close_batch() {
    for (auto& p : batch_) p.read_end.reset();
    batch_.clear();
  }

  /// One write to a freshly set-up pipe queues exactly our signal naming that pipe.
  void prove() {
    setup(batch_[0].read_end.get(), fresh_flags_);
    const char c = 'x';
    sys::call("write(pipe)", [&] { return ::write(batch_[0].write_end.get(), &c, 1); });
    siginfo_t si{};
    if (!signals_.take(1000, &si) || si.si_signo != signo_ || si.si_fd != batch_[0].read_end.get() ||
        !(si.si_band & POLLIN))
      throw probe_failure("a write to a pipe set up with F_SETSIG queued no signal naming it");
    close_batch();
  }

  int signo_;
  pid_t tid_;
  blocked_signals signals_;  // declared before the fds: destroyed after they are closed
  std::unique_ptr<channel_set> registered_;
  std::vector<fresh_pipe> batch_;
  int fresh_flags_ = 0;
};

}  // namespace

std::unique_ptr<probe_instance> make_rtsig_setup(const datasets::key& key, const selection& sel) {
  return std::make_unique<rtsig_setup_instance>(key, sel);
}

}  // namespace pollscale::calibrate::probes::churn
