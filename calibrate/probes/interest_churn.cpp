// interest_churn — what it costs to change what a mechanism watches.
//
// select and poll keep no interest in the kernel: the caller rebuilds it for every call.
// epoll, realtime signals and io_uring keep it in the kernel and charge a system call per
// change instead. One operation is, by mechanism and metric (unit ns, per operation):
//  - epoll/lt `add`: one epoll_ctl(EPOLL_CTL_ADD) of an eventfd not yet watched, with
//    `n_fds` other eventfds already registered. The fds come from a pool of 128 kept open;
//    each timed batch ADDs up to 128 of them, then DELs them again *untimed*.
//  - epoll/lt `del`: one epoll_ctl(EPOLL_CTL_DEL), the mirror image (the ADDs untimed).
//  - epoll/lt `mod`: one epoll_ctl(EPOLL_CTL_MOD) of an already registered fd (cycling
//    through the n registered ones): a tree lookup plus one readiness query.
//    The trigger mode (lt/et/oneshot) only changes the stored event mask, not the ctl path,
//    so the rows are measured with level-triggered registrations and say `lt`.
//  - rtsig `setup`: fcntl(F_SETOWN_EX, this thread) + fcntl(F_SETSIG, SIGRTMIN+1) +
//    fcntl(F_SETFL, flags | O_ASYNC) on the read end of a *fresh* pipe (flags read once,
//    untimed). Fresh, because since Linux 6.12 a file's owner record is allocated on its
//    first F_SETOWN: a recycled fd would hide that cost. Creating and closing the pipes is
//    untimed; `n_fds` pipes are already set up for signals (owned by this thread).
//  - io_uring/{oneshot,multishot} `arm`: one IORING_OP_POLL_ADD (or its multishot form)
//    on a pool eventfd, prepared and submitted alone (one io_uring_enter each, as epoll_ctl
//    is one call each) and accepted: submit reports it consumed and no completion is
//    posted. `n_fds` polls are already armed on other eventfds. The POLL_REMOVE of each
//    batch and the reaping of its two completions per fd are untimed.
//  - poll `build_set`: filling an `n_fds`-entry pollfd array {fd, POLLIN, 0} from the
//    caller's list of descriptors — per array, not per fd. No system call: this is the
//    user-space half of poll's "interest" cost, paid before every call.
// Not timed: creating the fds, the undoing step of each batch, the checks. A batch the
// thread was preempted in is run again (it timed another task too). Every call's
// answer is checked: epoll_ctl fails with EEXIST/ENOENT if the set was not what we think
// (sys::call turns that into an error naming the call); after each rtsig batch F_GETSIG
// and F_GETFL must show the set-up; each io_uring submit must consume exactly one SQE and
// leave the completion queue empty, and each removal must complete with 0 and its poll
// with -ECANCELED; each built pollfd array is compared with the expected one. At
// construction each mechanism proves the registration works: a readable fd is reported.
// Key columns: n_fds = descriptors already registered; threads 1, cpus 1, pinning = the
// CPU the session pinned this thread to; fd_kind eventfd (rtsig: pipe, since eventfds
// have no fasync).

#include <poll.h>
#include <sys/epoll.h>

#include <algorithm>
#include <set>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/interest_churn_parts.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"

namespace pollscale::calibrate::probes {
namespace {

using datasets::metric;
constexpr datasets::scenario scenario = datasets::scenario::interest_churn;

const char* ctl_name(int op) {
  if (op == EPOLL_CTL_ADD) return "epoll_ctl(ADD)";
  if (op == EPOLL_CTL_MOD) return "epoll_ctl(MOD)";
  return "epoll_ctl(DEL)";
}

class epoll_ctl_instance final : public probe_instance {
 public:
  epoll_ctl_instance(const datasets::key& key, const selection& sel)
      : metric_(key.metric),
        registered_(churn::checked_channels(fd_kind::eventfd, churn::n_of(key), churn::pool_size + 2, sel)),
        pool_(std::make_unique<channel_set>(fd_kind::eventfd, churn::pool_size)),
        epfd_(sys::call("epoll_create1", [] { return ::epoll_create1(EPOLL_CLOEXEC); })) {
    if (metric_ != metric::add && metric_ != metric::del && metric_ != metric::mod)
      throw std::invalid_argument("interest_churn epoll has no metric '" + metric_ + "'");
    for (std::size_t i = 0; i < registered_->size(); ++i) ctl(EPOLL_CTL_ADD, registered_->watched(i), tag(i));
    prove();
  }

  std::uint64_t run(std::size_t ops) override {
    if (metric_ == metric::mod) {
      return time_unpreempted(
          [&] {
            const std::uint64_t t0 = clock_ns();
            for (std::size_t i = 0; i < ops; ++i) {
              ctl(EPOLL_CTL_MOD, registered_->watched(next_), tag(next_));
              next_ = next_ + 1 == registered_->size() ? 0 : next_ + 1;
            }
            return clock_ns() - t0;
          },
          [] {});
    }
    const int timed_op = metric_ == metric::add ? EPOLL_CTL_ADD : EPOLL_CTL_DEL;
    const int undo_op = metric_ == metric::add ? EPOLL_CTL_DEL : EPOLL_CTL_ADD;
    auto pool_ctl = [this](int op, std::size_t c) {
      for (std::size_t i = 0; i < c; ++i) ctl(op, pool_->watched(i), pool_tag(i));
    };
    return churn::chunked(
        ops, churn::pool_size,
        [&](std::size_t c) {
          if (undo_op == EPOLL_CTL_ADD) pool_ctl(undo_op, c);
        },
        [&](std::size_t c) { pool_ctl(timed_op, c); },
        [&](std::size_t c) {
          if (undo_op == EPOLL_CTL_DEL) pool_ctl(undo_op, c);
        });
  }

 private:
  std::uint32_t tag(std::size_t i) const { return static_cast<std::uint32_t>(i); }
  std::uint32_t pool_tag(std::size_t i) const { return static_cast<std::uint32_t>(registered_->size() + i); }

  void ctl(int op, int fd, std::uint32_t t) const {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = t;
    sys::call(ctl_name(op), [&] { return ::epoll_ctl(epfd_.get(), op, fd, op == EPOLL_CTL_DEL ? nullptr : &ev); });
  }

  /// Registrations are real: with the pool added, a ready pool fd and a ready registered fd
  /// (the last) are exactly what epoll_wait reports; after the DELs only the registered one.
  void prove() const {
    const std::size_t last = registered_->size() - 1;
    for (std::size_t i = 0; i < pool_->size(); ++i) ctl(EPOLL_CTL_ADD, pool_->watched(i), pool_tag(i));
    pool_->trigger(0);
    registered_->trigger(last);
    expect_ready({tag(last), pool_tag(0)});
    for (std::size_t i = 0; i < pool_->size(); ++i) ctl(EPOLL_CTL_DEL, pool_->watched(i), pool_tag(i));
    expect_ready({tag(last)});
    pool_->consume(0);
    registered_->consume(last);
    expect_ready({});
  }

  void expect_ready(std::set<std::uint32_t> want) const {
    epoll_event ev[4];
    const int got = sys::call("epoll_wait", [&] { return ::epoll_wait(epfd_.get(), ev, 4, 0); });
    std::set<std::uint32_t> seen;
    for (int i = 0; i < got; ++i) seen.insert(ev[i].data.u32);
    if (seen != want || static_cast<std::size_t>(got) != want.size())
      throw probe_failure("epoll_wait after epoll_ctl reported " + std::to_string(got) + " fds, expected " +
                          std::to_string(want.size()));
  }

  std::string metric_;
  std::unique_ptr<channel_set> registered_;
  std::unique_ptr<channel_set> pool_;
  sys::unique_fd epfd_;
  std::size_t next_ = 0;
};

/// Fills a pollfd array from the caller's descriptor list, as a poll() loop does per call.
class build_set_instance final : public probe_instance {
 public:
  build_set_instance(const datasets::key& key, const selection& sel)
      : ch_(churn::checked_channels(fd_kind::eventfd, churn::n_of(key), 2, sel)), set_(ch_->size()) {
    for (std::size_t i = 0; i < ch_->size(); ++i) fds_.push_back(ch_->watched(i));
  }

  std::uint64_t run(std::size_t ops) override {
    const std::size_t n = fds_.size();
    const std::uint64_t t = time_unpreempted(
        [&] {
          std::fill(set_.begin(), set_.end(), pollfd{-1, 0, 0});
          const std::uint64_t t0 = clock_ns();
          for (std::size_t op = 0; op < ops; ++op) {
            for (std::size_t i = 0; i < n; ++i) set_[i] = pollfd{fds_[i], POLLIN, 0};
            asm volatile("" ::: "memory");  // each build must reach memory; no merging of builds
          }
          return clock_ns() - t0;
        },
        [] {});
    for (std::size_t i = 0; i < n; ++i)
      if (set_[i].fd != fds_[i] || set_[i].events != POLLIN || set_[i].revents != 0)
        throw probe_failure("pollfd entry " + std::to_string(i) + " was not built as expected");
    return t;
  }

 private:
  std::unique_ptr<channel_set> ch_;
  std::vector<int> fds_;
  std::vector<pollfd> set_;
};

std::unique_ptr<probe_instance> make_instance(const datasets::key& key, const selection& sel) {
  const auto m = parse_mechanism(key.mechanism);
  if (m == mechanism::epoll) return std::make_unique<epoll_ctl_instance>(key, sel);
  if (m == mechanism::poll) return std::make_unique<build_set_instance>(key, sel);
  if (m == mechanism::rtsig) return churn::make_rtsig_setup(key, sel);
  if (m == mechanism::io_uring) return churn::make_uring_arm(key, sel);
  throw std::invalid_argument("interest_churn has no mechanism '" + key.mechanism + "'");
}

bool wanted(std::span<const flavour> mechs, mechanism m, std::string_view variant = {}) {
  return std::any_of(mechs.begin(), mechs.end(),
                     [&](const flavour& f) { return f.mech == m && (variant.empty() || f.variant == variant); });
}

std::vector<datasets::key> interest_churn_points(const selection& sel, std::span<const flavour> mechs) {
  std::vector<datasets::key> out;
  const std::string cpu0 = sel.cpus.empty() ? "0" : std::to_string(sel.cpus[0]);
  auto add = [&](const flavour& f, fd_kind kind, metric what, std::int64_t n_max) {
    for (auto n : n_grid(sel, std::max<std::int64_t>(n_max, 1), 7, 12)) {
      datasets::key k = base_key(scenario, f, kind, what, "ns");
      k.n_fds = n;
      k.threads = 1;
      k.cpus = 1;
      k.pinning = cpu0;
      out.push_back(std::move(k));
    }
  };
  const auto n_eventfd = max_channels(fd_kind::eventfd, 0, churn::pool_size + 8, sel);
  if (wanted(mechs, mechanism::epoll))
    for (auto m : {metric::add, metric::mod, metric::del})
      add({mechanism::epoll, "lt"}, fd_kind::eventfd, m, n_eventfd);
  if (wanted(mechs, mechanism::rtsig))
    add({mechanism::rtsig, ""}, fd_kind::pipe, metric::setup,
        max_channels(fd_kind::pipe, 0, 2 * churn::rtsig_batch + 8, sel));
  for (auto v : variants_of(mechanism::io_uring))
    if (wanted(mechs, mechanism::io_uring, v))
      add({mechanism::io_uring, std::string(v)}, fd_kind::eventfd, metric::arm, n_eventfd);
  if (wanted(mechs, mechanism::poll))
    add({mechanism::poll, ""}, fd_kind::eventfd, metric::build_set, max_channels(fd_kind::eventfd, 0, 8, sel));
  return out;
}

}  // namespace

probe_def interest_churn() {
  return {datasets::name(scenario),
          "one change of interest: epoll_ctl ADD/MOD/DEL, rtsig set-up, io_uring poll arm, pollfd array build",
          interest_churn_points, make_instance};
}

}  // namespace pollscale::calibrate::probes
