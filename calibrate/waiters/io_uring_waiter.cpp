// io_uring IORING_OP_POLL_ADD through liburing. One-shot (the default): each armed poll
// completes once and must be armed again (rearm() queues a new POLL_ADD, submitted with
// the next wait); multishot: the poll stays armed and posts a completion per wake-up until
// the kernel ends it (no IORING_CQE_F_MORE), when it is re-armed here. Submissions are
// batched: add() and rearm() only queue an SQE; wait() submits and reaps in one enter.
// A completion's res is the event mask of the wake-up that fired (io_poll_check_events
// keeps the mask __io_poll_execute stashed; it asks the file again only when there was
// none), so a wake-up that arrives late — its writer's vCPU stalled between filling the
// pipe and waking the queue, while the reader took that token through a newer poll and
// armed the next one — can complete a poll with POLLIN over an empty pipe. A report over
// an empty pipe was seen twice in about thirty wake-up runs across CPUs (one-shot, pipes)
// on a 2-vCPU KVM guest, and the late wake-up is the path the kernel's code leaves for it;
// harvest() re-arms past such a report (may_report_stale).

#include <liburing.h>
#include <poll.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/waiters/waiters.hpp"

namespace pollscale::calibrate::waiters {
namespace {

constexpr std::uint64_t removal_tag = UINT64_MAX;
constexpr std::uint64_t final_removal_tag = UINT64_MAX - 1;  // remove_all's, apart from remove()'s
constexpr std::uint64_t no_poll = UINT64_MAX - 2;            // armed_: none, or removed (fd < 2^31)

std::uint64_t user_data(int fd, std::uint32_t tag) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(fd)) << 32) | tag;
}

class io_uring_waiter final : public waiter {
 public:
  io_uring_waiter(bool multishot, std::size_t capacity) : multishot_(multishot) {
    const unsigned sq = std::bit_ceil(static_cast<unsigned>(std::clamp<std::size_t>(capacity, 64, 4096)));
    const unsigned cq = std::bit_ceil(static_cast<unsigned>(std::clamp<std::size_t>(2 * capacity, 128, 65536)));
    io_uring_params p{};
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = cq;
    const int rc = io_uring_queue_init_params(sq, &ring_, &p);
    if (rc < 0) throw probe_skipped("io_uring refused here: io_uring_queue_init: " + std::string(std::strerror(-rc)));
    if (multishot && !(p.features & IORING_FEAT_FAST_POLL))
      throw probe_skipped("io_uring multishot poll needs a newer kernel (no IORING_FEAT_FAST_POLL)");
    armed_.reserve(capacity);
  }

  /// Every poll still armed is removed and the removals reaped before the ring goes, so
  /// that no poll entry is left on the descriptors' wait queues when the next waiter of a
  /// shared set-up watches them (closing the ring alone cancels them later, from a kernel
  /// worker).
  ~io_uring_waiter() override {
    remove_all();
    io_uring_queue_exit(&ring_);
  }

  void add(int fd, std::uint32_t tag) override {
    io_uring_sqe* sqe = next_sqe();
    if (multishot_)
      io_uring_prep_poll_multishot(sqe, fd, POLLIN);
    else
      io_uring_prep_poll_add(sqe, fd, POLLIN);
    io_uring_sqe_set_data64(sqe, user_data(fd, tag));
    set_armed(tag, user_data(fd, tag));
  }

  void remove(int fd, std::uint32_t tag) override {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_poll_remove(sqe, user_data(fd, tag));
    io_uring_sqe_set_data64(sqe, removal_tag);
    set_armed(tag, no_poll);
  }

  std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) override {
    out.clear();
    if (timeout_ms < 0) {
      check(io_uring_submit_and_wait(&ring_, 1), "io_uring_submit_and_wait");
    } else if (timeout_ms == 0) {
      check(io_uring_submit(&ring_), "io_uring_submit");
    } else {
      check(io_uring_submit(&ring_), "io_uring_submit");
      __kernel_timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
      io_uring_cqe* c = nullptr;
      const int rc = io_uring_wait_cqe_timeout(&ring_, &c, &ts);
      if (rc < 0 && rc != -ETIME) check(rc, "io_uring_wait_cqe_timeout");
    }
    reap(out);
    return out.size();
  }

  void rearm(int fd, std::uint32_t tag) override {
    if (!multishot_) add(fd, tag);
  }

  bool level_triggered() const override { return false; }
  bool may_report_stale() const override { return true; }
  std::size_t own_fds() const override { return 1; }

 private:
  void reap(std::vector<std::uint32_t>& out) {
    io_uring_cqe* cqe = nullptr;
    unsigned head = 0, seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      const std::uint64_t ud = io_uring_cqe_get_data64(cqe);
      if (ud == removal_tag) continue;
      const auto tag = static_cast<std::uint32_t>(ud);
      const int fd = static_cast<int>(ud >> 32);
      if (cqe->res == -ECANCELED || is_removed(tag)) continue;
      if (cqe->res < 0)
        throw std::system_error(-cqe->res, std::generic_category(), "io_uring poll on fd " + std::to_string(fd));
      if (cqe->res & (POLLIN | POLLHUP | POLLERR)) out.push_back(tag);
      if (multishot_ && !(cqe->flags & IORING_CQE_F_MORE)) add(fd, tag);  // the kernel ended it
    }
    io_uring_cq_advance(&ring_, seen);
  }

  /// One POLL_REMOVE per poll this waiter armed and did not remove (a one-shot poll that
  /// fired answers -ENOENT), then every removal's completion and every cancelled poll's:
  /// a poll's wait-queue entries are gone once it has completed. One request at a time,
  /// found by its user_data — a single "cancel all" (IORING_ASYNC_CANCEL_ALL) searches the
  /// whole table per request, 0.5 s for 9,000 polls here against 8 ms. Bounded: a second
  /// without a completion ends it (a destructor must not hang).
  void remove_all() noexcept {
    int asked = 0, answered = 0, removed = 0, cancelled = 0;
    for (std::size_t tag = 0; tag < armed_.size(); ++tag) {
      if (armed_[tag] == no_poll) continue;
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (!sqe && io_uring_submit(&ring_) >= 0) sqe = io_uring_get_sqe(&ring_);
      if (!sqe) return;
      io_uring_prep_poll_remove(sqe, armed_[tag]);
      io_uring_sqe_set_data64(sqe, final_removal_tag);
      ++asked;
    }
    if (io_uring_submit(&ring_) < 0) return;
    while (answered < asked || cancelled < removed) {
      io_uring_cqe* cqe = nullptr;
      __kernel_timespec second{1, 0};
      if (io_uring_wait_cqe_timeout(&ring_, &cqe, &second) < 0) return;
      if (io_uring_cqe_get_data64(cqe) == final_removal_tag) {
        ++answered;
        removed += cqe->res == 0 ? 1 : 0;
      } else if (cqe->res == -ECANCELED) {
        ++cancelled;
      }
      io_uring_cqe_seen(&ring_, cqe);
    }
  }

  io_uring_sqe* next_sqe() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe) return sqe;
    check(io_uring_submit(&ring_), "io_uring_submit (SQ full)");
    sqe = io_uring_get_sqe(&ring_);
    if (!sqe) throw std::runtime_error("io_uring: no SQE free after submit");
    return sqe;
  }

  static int check(int rc, const char* what) {
    if (rc == -EINTR && sys::stop_requested.load()) throw sys::interrupted();
    if (rc < 0 && rc != -EINTR && rc != -ETIME) throw std::system_error(-rc, std::generic_category(), what);
    return rc;
  }

  void set_armed(std::uint32_t tag, std::uint64_t poll) {
    if (armed_.size() <= tag) armed_.resize(tag + 1, no_poll);
    armed_[tag] = poll;
  }
  /// A completion for a tag whose poll remove() took away (completions only come for
  /// tags add() armed, so no_poll here means removed).
  bool is_removed(std::uint32_t tag) const { return tag < armed_.size() && armed_[tag] == no_poll; }

  io_uring ring_{};
  bool multishot_;
  std::vector<std::uint64_t> armed_;  // by tag: the user_data of its poll; no_poll once removed
};

}  // namespace

std::unique_ptr<waiter> make_io_uring(std::string_view variant, std::size_t capacity) {
  return std::make_unique<io_uring_waiter>(variant == "multishot", capacity);
}

}  // namespace pollscale::calibrate::waiters
