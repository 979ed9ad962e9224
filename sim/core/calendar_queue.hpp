// The scheduler for large pending sets: Brown's calendar queue (CACM 31(10), 1988).
// Events hash by time into a ring of buckets ("days") of one width; each bucket is a
// sorted singly-linked list. With the width near three mean inter-event gaps a bucket
// holds O(1) events, so push and pop cost O(1) on average whatever the pending count;
// the ring doubles or halves as the population changes and the width is re-estimated
// from the earliest events. The width is also re-estimated when operations get slow (more
// than 8 list nodes walked or buckets scanned per operation over a window of 1024, and at
// least size/8 operations after the previous re-estimate, so that its O(n) cost stays
// amortised),
// which happens when the distribution of event times changes under a fixed population -
// a million keep-alives a minute away, then dense microsecond traffic (Oh and Ahn's
// dynamic calendar queue does the same).
//
// Ties and order are exactly those of the binary heap, (time, sequence): the bucket of an
// event is its *virtual* bucket number floor(time / width) taken modulo the ring size, and
// integer virtual numbers (not an accumulated floating "top of day") decide whether a
// bucket's head belongs to the current year, so no rounding drift can reorder events.
//
// Each bucket slot keeps its first event's time next to the node index, so scanning for
// the next event and inserting in front of a bucket never touch the node pool: with a
// million events pending that pool is far bigger than the caches.
//
// Memory: 40 bytes per node in one pool (freed nodes are reused) plus 16 bytes per bucket,
// at most two buckets per pending event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event.hpp"

namespace pollscale::sim {

class calendar_queue {
 public:
  calendar_queue();

  void push(const event& e);

  /// The next event to fire. Precondition: !empty().
  const event& top();

  /// Removes and returns the next event. Precondition: !empty().
  event pop();

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  /// Bytes held by the node pool and the bucket ring, spare capacity included.
  std::size_t memory_bytes() const;

  /// Current number of buckets and bucket width in seconds (for tests and tuning).
  std::size_t bucket_count() const { return heads_.size(); }
  double bucket_width() const { return width_; }

 private:
  static constexpr std::uint32_t nil = UINT32_MAX;
  struct node {
    event ev;
    std::uint32_t next = nil;
  };
  struct bucket {
    sim_time first = 0;        // time of the first node (valid when head != nil)
    std::uint32_t head = nil;  // first node, nil when empty
  };

  std::int64_t virtual_bucket(sim_time t) const;
  std::size_t ring_index(std::int64_t vb) const;
  std::uint32_t allocate(const event& e);
  void link(std::uint32_t n);
  bool head_before(const bucket& a, const bucket& b) const;
  std::size_t find_min();
  void resize(std::size_t buckets);
  double estimate_width() const;

  std::vector<node> pool_;
  std::uint32_t free_ = nil;     // head of the free-node list
  std::vector<bucket> heads_;    // the ring of buckets
  double width_ = 1.0;           // seconds per bucket
  std::int64_t current_vb_ = 0;  // virtual bucket where the search for the minimum starts
  std::size_t size_ = 0;
  std::size_t cached_min_ = SIZE_MAX;  // bucket holding the minimum, SIZE_MAX when unknown
  std::uint64_t ops_ = 0;              // pushes and pops in the current cost window
  std::uint64_t steps_ = 0;            // list nodes walked and buckets scanned in them
  std::uint64_t since_resize_ = 0;     // pushes and pops since the last resize
  void note_cost();
};

}  // namespace pollscale::sim
