// A first-in first-out queue in one power-of-two ring buffer: the waiting lines of the
// models (customers, ready connections, runnable threads). Unlike std::deque it allocates
// only when it grows past its largest size so far, which keeps a model's inner loop free
// of allocations.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

template <typename T>
class ring_fifo {
 public:
  void push(const T& v) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = v;
    ++size_;
  }
  /// Precondition: !empty().
  T pop() {
    POLLSCALE_SIM_EXPECT(size_ > 0, "pop() of an empty fifo");
    T v = std::move(buf_[head_]);
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
    return v;
  }
  /// The oldest element. Precondition: !empty().
  const T& front() const {
    POLLSCALE_SIM_EXPECT(size_ > 0, "front() of an empty fifo");
    return buf_[head_];
  }
  /// The i-th oldest element (0: front()). Precondition: i < size().
  const T& operator[](std::size_t i) const {
    POLLSCALE_SIM_EXPECT(i < size_, "index past the end of a fifo");
    return buf_[(head_ + i) & (buf_.size() - 1)];
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  void clear() { head_ = size_ = 0; }
  std::size_t memory_bytes() const { return buf_.capacity() * sizeof(T); }

 private:
  void grow() {
    std::vector<T> bigger(buf_.empty() ? 16 : 2 * buf_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(buf_[(head_ + i) & (buf_.size() - 1)]);
    buf_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> buf_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace pollscale::sim
