// The default scheduler: an implicit heap of events in one contiguous vector, O(log n) per
// push and pop, 32 bytes per pending event plus the vector's spare capacity. Best for the
// small pending sets (hundreds to tens of thousands of events) of most server models.
//
// Why not std::push_heap/pop_heap: with a binary layout and branchy comparisons half the
// sift steps mispredict; a 4-ary layout halves the depth and puts the four children in two
// cache lines, and the child selection compiles to conditional moves. The order is the
// same total order (time, sequence), so the pop sequence is identical.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/event.hpp"
#include "sim/core/invariant.hpp"

namespace pollscale::sim {

class binary_heap_queue {
 public:
  void push(const event& e) {
    heap_.push_back(e);
    std::size_t hole = heap_.size() - 1;
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / arity;
      if (!before(e, heap_[parent])) break;
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = e;
  }

  /// The next event to fire. Precondition: !empty().
  const event& top() const {
    POLLSCALE_SIM_EXPECT(!heap_.empty(), "top() of an empty event queue");
    return heap_.front();
  }

  /// Removes and returns the next event. Precondition: !empty().
  event pop() {
    POLLSCALE_SIM_EXPECT(!heap_.empty(), "pop() of an empty event queue");
    const event result = heap_.front();
    const event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return result;
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = arity * hole + 1;
      if (first >= n) break;
      const std::size_t end = first + arity < n ? first + arity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c) best = before(heap_[c], heap_[best]) ? c : best;
      if (!before(heap_[best], last)) break;
      heap_[hole] = heap_[best];
      hole = best;
    }
    heap_[hole] = last;
    return result;
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

  /// Bytes held for events, spare capacity included.
  std::size_t memory_bytes() const { return heap_.capacity() * sizeof(event); }

 private:
  static constexpr std::size_t arity = 4;

  // fires_before without short-circuit branches.
  static bool before(const event& a, const event& b) {
    return (a.time < b.time) | ((a.time == b.time) & (a.seq < b.seq));
  }

  std::vector<event> heap_;
};

}  // namespace pollscale::sim
