// select(2) and pselect(2). glibc's fd_set holds 1024 bits and _FORTIFY_SOURCE aborts on
// larger descriptors, but the kernel accepts any nfds up to the descriptor limit with
// bitmaps of ceil(nfds/64) words; we keep our own word arrays so select can be measured
// all the way to n ≈ 19000 (docs/model.md §2: its cost follows max fd in words, not count).
// One call copies the interest bitmap (the kernel overwrites it), calls select, then scans
// the result word by word as a careful application would.

#include <signal.h>
#include <sys/select.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "calibrate/sys/syscall.hpp"
#include "calibrate/waiters/waiters.hpp"

namespace pollscale::calibrate::waiters {
namespace {

using word = unsigned long;
constexpr int word_bits = 64;
static_assert(sizeof(word) * 8 == word_bits);

class select_waiter final : public waiter {
 public:
  select_waiter(bool with_sigmask, std::size_t capacity) : with_sigmask_(with_sigmask) {
    tag_of_fd_.reserve(capacity);
    pthread_sigmask(SIG_SETMASK, nullptr, &mask_);
  }

  void add(int fd, std::uint32_t tag) override {
    const auto f = static_cast<std::size_t>(fd);
    if (tag_of_fd_.size() <= f) tag_of_fd_.resize(f + 1, no_tag);
    tag_of_fd_[f] = tag;
    const std::size_t words = f / word_bits + 1;
    if (interest_.size() < words) {
      interest_.resize(words, 0);
      result_.resize(words, 0);
    }
    interest_[f / word_bits] |= word{1} << (f % word_bits);
    max_fd_ = std::max(max_fd_, fd);
  }

  void remove(int fd, std::uint32_t) override {
    const auto f = static_cast<std::size_t>(fd);
    interest_[f / word_bits] &= ~(word{1} << (f % word_bits));
    tag_of_fd_[f] = no_tag;
    while (max_fd_ >= 0 && tag_of_fd_[static_cast<std::size_t>(max_fd_)] == no_tag) --max_fd_;
  }

  std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) override {
    out.clear();
    const std::size_t words = static_cast<std::size_t>(max_fd_) / word_bits + 1;
    std::copy_n(interest_.begin(), words, result_.begin());
    auto* set = reinterpret_cast<fd_set*>(result_.data());
    const int nfds = max_fd_ + 1;
    if (with_sigmask_) {
      timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
      sys::call("pselect",
                [&] { return ::pselect(nfds, set, nullptr, nullptr, timeout_ms < 0 ? nullptr : &ts, &mask_); });
    } else {
      timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000L};
      sys::call("select", [&] { return ::select(nfds, set, nullptr, nullptr, timeout_ms < 0 ? nullptr : &tv); });
    }
    for (std::size_t w = 0; w < words; ++w)
      for (word bits = result_[w]; bits; bits &= bits - 1)
        out.push_back(tag_of_fd_[w * word_bits + static_cast<std::size_t>(std::countr_zero(bits))]);
    return out.size();
  }

  bool level_triggered() const override { return true; }

 private:
  static constexpr std::uint32_t no_tag = UINT32_MAX;
  bool with_sigmask_;
  sigset_t mask_{};
  int max_fd_ = -1;
  std::vector<word> interest_, result_;
  std::vector<std::uint32_t> tag_of_fd_;
};

}  // namespace

std::unique_ptr<waiter> make_select(bool with_sigmask, std::size_t capacity) {
  return std::make_unique<select_waiter>(with_sigmask, capacity);
}

}  // namespace pollscale::calibrate::waiters
