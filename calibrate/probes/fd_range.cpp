// fd_range — Gooch's polling benchmark (linux-kernel, 1997-08-31; seed 004).
//
// The watched descriptors are exactly lo..hi, one per number, and the top `n_active` of
// them (hi-n_active+1..hi) stay readable: their data is written once at set-up and never
// read. One operation is one wait call with timeout 0 (select, pselect, poll or ppoll)
// over lo..hi, plus the caller's scan of the result (fd_set words or revents), as a real
// caller pays it. The answer of every call is checked inside the timed loop: exactly the
// top descriptors, none twice (about a nanosecond per reported descriptor).
// Not timed: creating the descriptors and moving them to their numbers. A batch during
// which the thread was preempted is run again (up to 8 times): it timed another task too.
//
// Key columns: n_fds = hi-lo+1 (so lo = max_fd-n_fds+1), max_fd = hi, n_active = 10,
// active_pos "top", blocking 0, threads 1, pinning = the session's CPU.
// Two grids share this one point shape (fd_range_points.cpp):
//  A. Gooch's four tests: hi = 1023, lo = 24, 524, 824, 924 (n_fds 1000, 500, 200, 100).
//  B. a fixed n_fds (100) with hi growing from 127 to ~19800: select's kernel cost follows
//     the ceil((hi+1)/64) bitmap words it scans and copies, poll's does not (its array has
//     n_fds entries whatever their numbers).
// fd_kind: Gooch watched the ttys of rlogin sessions; we use pipes (and, in the full
// profile, eventfds), so absolute figures differ by the file kind's readiness query.
// A pipe's write end must stay open (a closed one makes the read end report POLLHUP), so
// it is moved above hi, where neither select (nfds = hi+1) nor poll ever looks.
// A descriptor that is already open inside lo..hi (one inherited from the parent, say) is
// left alone and stepped over: the n watched ones are the n highest free numbers <= hi.
// A point whose max_fd is taken, or that does not fit under RLIMIT_NOFILE, is skipped
// with the reason.

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

/// n descriptors at the n highest free numbers <= hi (lo..hi when nothing else is open
/// there), and for pipes their write ends above hi. Owns all of them.
class placed_range {
 public:
  /// Precondition: n >= 1, hi >= n-1. Throws probe_skipped when hi is taken, too few numbers
  /// are free or the limit leaves no room; std::system_error when the kernel refuses one.
  placed_range(fd_kind kind, std::size_t n, int hi, std::size_t n_ready) : kind_(kind), hi_(hi) {
    const std::size_t writers = kind == fd_kind::pipe ? n : 0;
    const auto soft = sys::current_nofile_limit().soft;
    if (static_cast<std::uint64_t>(hi) + 1 + writers + 2 > soft)
      throw probe_skipped("descriptor " + std::to_string(hi) + " and " + std::to_string(writers) +
                          " write ends above it need numbers beyond RLIMIT_NOFILE " + std::to_string(soft));
    const std::vector<int> targets = free_numbers(n, hi);
    watched_.reserve(n);
    writers_.reserve(writers);
    for (std::size_t i = 0; i < n; ++i) place(targets[i], i + n_ready >= n);
  }

  int fd(std::size_t i) const { return watched_[i].get(); }
  std::size_t size() const { return watched_.size(); }

 private:
  /// The n highest free numbers <= hi, ascending. A descriptor this process inherited or
  /// opened elsewhere is stepped over (never closed): lo then sits a little lower, which
  /// changes neither n_fds nor max_fd, the two figures select and poll pay for.
  static std::vector<int> free_numbers(std::size_t n, int hi) {
    std::vector<int> out;
    for (int f = hi; f >= 0 && out.size() < n; --f) {
      const bool taken = sys::call("fcntl(F_GETFD)", [&] { return ::fcntl(f, F_GETFD); }, {EBADF}) != -1;
      if (taken && f == hi)
        throw probe_skipped("descriptor " + std::to_string(hi) + " (max_fd) is already open in this process");
      if (!taken) out.push_back(f);
    }
    if (out.size() < n)
      throw probe_skipped("only " + std::to_string(out.size()) + " numbers <= " + std::to_string(hi) +
                          " are free in this process; fd_range needs " + std::to_string(n));
    std::reverse(out.begin(), out.end());
    return out;
  }

  /// Creates one channel, makes it readable when `ready`, and moves its watched end to `f`.
  void place(int f, bool ready) {
    sys::unique_fd r;
    if (kind_ == fd_kind::pipe) {
      int p[2];
      sys::call("pipe2", [&] { return ::pipe2(p, O_CLOEXEC | O_NONBLOCK); });
      r.reset(p[0]);
      sys::unique_fd w(p[1]);
      // Above hi first: the temporary may sit on a number still to be placed.
      writers_.emplace_back(
          sys::call("fcntl(F_DUPFD_CLOEXEC, above hi)", [&] { return ::fcntl(w.get(), F_DUPFD_CLOEXEC, hi_ + 1); }));
      if (ready) write_token(kind_, writers_.back().get());
    } else {
      r.reset(sys::call("eventfd", [] { return ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }));
      if (ready) write_token(kind_, r.get());
    }
    if (r.get() != f) {
      sys::unique_fd moved(sys::call("fcntl(F_DUPFD_CLOEXEC)", [&] { return ::fcntl(r.get(), F_DUPFD_CLOEXEC, f); }));
      if (moved.get() != f)
        throw probe_skipped("descriptor " + std::to_string(f) + " was taken while fd_range placed its range");
      r = std::move(moved);
    }
    watched_.push_back(std::move(r));
  }

  fd_kind kind_;
  int hi_;
  std::vector<sys::unique_fd> watched_;  // ascending, watched_.back() holds hi
  std::vector<sys::unique_fd> writers_;  // pipe write ends, all above hi
};

class range_instance final : public probe_instance {
 public:
  range_instance(const datasets::key& key, const selection& sel) : k_(checked_active(key)) {
    const auto n = static_cast<std::size_t>(*key.n_fds);
    const int hi = static_cast<int>(*key.max_fd);
    const fd_kind kind = fd_kind_of(key);
    if (kind != fd_kind::pipe && kind != fd_kind::eventfd)
      throw std::invalid_argument("fd_range places pipes or eventfds, not " + key.fd_kind);
    require_fds((kind == fd_kind::pipe ? 2 * n : n) + 4, sel);
    range_ = std::make_unique<placed_range>(kind, n, hi, k_);
    w_ = make_waiter(flavour_of(key), n);
    if (!w_->level_triggered())
      throw std::invalid_argument("fd_range needs a level-triggered mechanism, not " + key.mechanism);
    for (std::size_t i = 0; i < n; ++i) w_->add(range_->fd(i), static_cast<std::uint32_t>(i));
    check_ = std::make_unique<answer_checker>(n, active_positions("top", n, k_, 0));
    scratch_.reserve(n);
    run(1);  // proves the answer before anything is timed
  }

  std::uint64_t run(std::size_t ops) override {
    return time_unpreempted(
        [&] {
          const std::uint64_t t0 = clock_ns();
          for (std::size_t i = 0; i < ops; ++i) call_and_check();
          return clock_ns() - t0;
        },
        [] {});
  }

 private:
  void call_and_check() {
    if (w_->wait(scratch_, 0) != k_)
      throw probe_failure("wait over " + std::to_string(range_->fd(0)) + ".." +
                          std::to_string(range_->fd(range_->size() - 1)) + " returned " +
                          std::to_string(scratch_.size()) + " ready, expected " + std::to_string(k_));
    check_->reset();
    check_->accept(scratch_, "wait");
  }

  static std::size_t checked_active(const datasets::key& key) {
    if (!key.n_fds || *key.n_fds < 1 || !key.max_fd || *key.max_fd < *key.n_fds - 1 || key.active_pos != "top")
      throw std::invalid_argument("fd_range point " + datasets::describe(key) +
                                  " needs n_fds >= 1, max_fd >= n_fds-1 and active_pos 'top'");
    const std::int64_t k = key.n_active.value_or(0);
    if (k < 1 || k > *key.n_fds)
      throw std::invalid_argument("fd_range point " + datasets::describe(key) + " needs 1 <= n_active <= n_fds");
    return static_cast<std::size_t>(k);
  }

  std::size_t k_;
  std::unique_ptr<placed_range> range_;
  std::unique_ptr<waiter> w_;  // destroyed before range_: it may hold references to the fds
  std::unique_ptr<answer_checker> check_;
  std::vector<std::uint32_t> scratch_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  return std::make_unique<range_instance>(key, sel);
}

}  // namespace

probe_def fd_range() {
  return {datasets::name(datasets::scenario::fd_range),
          "one select/poll (timeout 0) over fds lo..hi with the top 10 ready (Gooch 1997)", fd_range_points,
          make_instance};
}

}  // namespace pollscale::calibrate::probes
