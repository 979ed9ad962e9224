// interest_churn, io_uring `arm` (the essay is in interest_churn.cpp): one POLL_ADD
// (one-shot or multishot) prepared and submitted alone on an eventfd that is not ready,
// with n_fds polls already armed on other eventfds. Cancelling each batch is untimed.

#include <liburing.h>
#include <poll.h>

#include <cstring>
#include <string>

#include "calibrate/probes/interest_churn_parts.hpp"
#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate::probes::churn {
namespace {

/// liburing returns -errno; sys::call wants -1 with errno (EINTR retry, fault injection).
template <class F>
int uring_call(std::string_view what, F&& f) {
  return sys::call(what, [&] {
    const int r = f();
    if (r < 0) {
      errno = -r;
      return -1;
    }
    return r;
  });
}

constexpr std::uint64_t pool_bit = std::uint64_t{1} << 32;
constexpr std::uint64_t removal_bit = std::uint64_t{1} << 33;

struct ring_holder {
  io_uring ring{};
  bool ok = false;
  ring_holder() = default;
  ring_holder(const ring_holder&) = delete;
  ring_holder& operator=(const ring_holder&) = delete;
  ~ring_holder() {
    if (ok) io_uring_queue_exit(&ring);
  }
};

class uring_arm_instance final : public probe_instance {
 public:
  uring_arm_instance(const datasets::key& key, const selection& sel)
      : multishot_(key.variant == "multishot"),
        registered_(checked_channels(fd_kind::eventfd, n_of(key), pool_size + 2, sel)),
        pool_(std::make_unique<channel_set>(fd_kind::eventfd, pool_size)) {
    io_uring_params p{};
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = 4 * pool_size;
    const int rc = io_uring_queue_init_params(pool_size, &r_.ring, &p);
    if (rc < 0) throw probe_skipped("io_uring refused here: io_uring_queue_init: " + std::string(std::strerror(-rc)));
    r_.ok = true;
    prove();
    for (std::size_t i = 0; i < registered_->size(); ++i) {
      if (io_uring_sq_space_left(&r_.ring) == 0)
        uring_call("io_uring_submit", [&] { return io_uring_submit(&r_.ring); });
      prep_arm(registered_->watched(i), i);
    }
    uring_call("io_uring_submit", [&] { return io_uring_submit(&r_.ring); });
    expect_no_completion("arming the registered fds");
  }

  std::uint64_t run(std::size_t ops) override {
    return chunked(
        ops, pool_size, [](std::size_t) {},
        [this](std::size_t c) {
          for (std::size_t i = 0; i < c; ++i) {
            prep_arm(pool_->watched(i), pool_bit | i);
            if (uring_call("io_uring_submit(POLL_ADD)", [&] { return io_uring_submit(&r_.ring); }) != 1)
              throw probe_failure("io_uring_submit did not consume the POLL_ADD");
          }
        },
        [this](std::size_t c) {
          expect_no_completion("POLL_ADD on an idle eventfd");
          cancel(c);
        });
  }

 private:
  void prep_arm(int fd, std::uint64_t ud) {
    io_uring_sqe* sqe = io_uring_get_sqe(&r_.ring);
    if (!sqe) throw std::logic_error("io_uring: no free SQE");
    if (multishot_)
      io_uring_prep_poll_multishot(sqe, fd, POLLIN);
    else
      io_uring_prep_poll_add(sqe, fd, POLLIN);
    io_uring_sqe_set_data64(sqe, ud);
  }

  void expect_no_completion(const char* what) {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_peek_cqe(&r_.ring, &cqe) == 0 && cqe)
      throw probe_failure(std::string(what) + " completed at once (res " + std::to_string(cqe->res) + ")");
  }

  /// Removes the polls on pool fds 0..c-1: each removal completes with 0, its poll with
  /// -ECANCELED; anything else is a wrong answer.
  void cancel(std::size_t c) {
    for (std::size_t i = 0; i < c; ++i) {
      io_uring_sqe* sqe = io_uring_get_sqe(&r_.ring);
      if (!sqe) throw std::logic_error("io_uring: no free SQE");
      io_uring_prep_poll_remove(sqe, pool_bit | i);
      io_uring_sqe_set_data64(sqe, removal_bit | i);
    }
    uring_call("io_uring_submit(POLL_REMOVE)", [&] { return io_uring_submit(&r_.ring); });
    for (std::size_t seen = 0; seen < 2 * c; ++seen) {
      io_uring_cqe* cqe = nullptr;
      uring_call("io_uring_wait_cqe", [&] { return io_uring_wait_cqe(&r_.ring, &cqe); });
      const std::uint64_t ud = io_uring_cqe_get_data64(cqe);
      const int res = cqe->res;
      io_uring_cqe_seen(&r_.ring, cqe);
      const bool ok = (ud & removal_bit) ? res == 0 : ((ud & pool_bit) && res == -ECANCELED);
      if (!ok) throw probe_failure("io_uring cancel: completion " + std::to_string(ud) + " res " + std::to_string(res));
    }
  }

  /// An armed poll on an eventfd that becomes readable completes with POLLIN and our tag.
  void prove() {
    prep_arm(pool_->watched(0), pool_bit);
    uring_call("io_uring_submit", [&] { return io_uring_submit(&r_.ring); });
    expect_no_completion("POLL_ADD on an idle eventfd");
    pool_->trigger(0);
    io_uring_cqe* cqe = nullptr;
    uring_call("io_uring_wait_cqe", [&] { return io_uring_wait_cqe(&r_.ring, &cqe); });
    const std::uint64_t ud = io_uring_cqe_get_data64(cqe);
    const int res = cqe->res;
    const bool more = cqe->flags & IORING_CQE_F_MORE;
    io_uring_cqe_seen(&r_.ring, cqe);
    if (multishot_ && res == -EINVAL) throw probe_skipped("io_uring multishot poll refused by this kernel (EINVAL)");
    if (ud != pool_bit || res < 0 || !(res & POLLIN))
      throw probe_failure("armed POLL_ADD completed with res " + std::to_string(res) + ", not POLLIN");
    pool_->consume(0);
    if (multishot_ && more) cancel(1);
  }

  bool multishot_;
  std::unique_ptr<channel_set> registered_;
  std::unique_ptr<channel_set> pool_;
  ring_holder r_;  // last member: the ring goes first, cancelling its polls
};

}  // namespace

std::unique_ptr<probe_instance> make_uring_arm(const datasets::key& key, const selection& sel) {
  return std::make_unique<uring_arm_instance>(key, sel);
}

}  // namespace pollscale::calibrate::probes::churn
