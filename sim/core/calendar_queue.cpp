#include "sim/core/calendar_queue.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

namespace {
constexpr std::size_t min_buckets = 16;
// Brown's estimate uses the gaps between the first few events to be dequeued.
constexpr std::size_t width_sample = 25;
}  // namespace

calendar_queue::calendar_queue() : heads_(min_buckets) {}

std::int64_t calendar_queue::virtual_bucket(sim_time t) const {
  const double q = std::floor(t / width_);
  POLLSCALE_SIM_EXPECT(q >= 0 && q < 9.0e18, "event time outside the calendar's range");
  return static_cast<std::int64_t>(q);
}

std::size_t calendar_queue::ring_index(std::int64_t vb) const {
  // heads_.size() is a power of two.
  return static_cast<std::size_t>(vb) & (heads_.size() - 1);
}

std::uint32_t calendar_queue::allocate(const event& e) {
  if (free_ != nil) {
    const std::uint32_t n = free_;
    free_ = pool_[n].next;
    pool_[n] = node{e, nil};
    return n;
  }
  POLLSCALE_SIM_EXPECT(pool_.size() < nil, "more than 2^32-1 pending events");
  pool_.push_back(node{e, nil});
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void calendar_queue::link(std::uint32_t n) {
  const event& e = pool_[n].ev;
  bucket& b = heads_[ring_index(virtual_bucket(e.time))];
  // In front of the bucket: decided from the cached time alone unless the times tie.
  if (b.head == nil || e.time < b.first || (e.time == b.first && fires_before(e, pool_[b.head].ev))) {
    pool_[n].next = b.head;
    b.head = n;
    b.first = e.time;
    return;
  }
  std::uint32_t* slot = &pool_[b.head].next;
  while (*slot != nil && fires_before(pool_[*slot].ev, e)) {
    slot = &pool_[*slot].next;
    ++steps_;
  }
  pool_[n].next = *slot;
  *slot = n;
}

bool calendar_queue::head_before(const bucket& a, const bucket& b) const {
  return a.first < b.first || (a.first == b.first && fires_before(pool_[a.head].ev, pool_[b.head].ev));
}

void calendar_queue::push(const event& e) {
  POLLSCALE_SIM_EXPECT(std::isfinite(e.time) && e.time >= 0, "event time must be finite and >= 0");
  const std::uint32_t n = allocate(e);
  link(n);
  ++size_;
  // An event earlier than the current search position (possible after top() advanced
  // it) moves the search back, and any cached minimum may no longer be one.
  current_vb_ = std::min(current_vb_, virtual_bucket(e.time));
  if (cached_min_ != SIZE_MAX && fires_before(e, pool_[heads_[cached_min_].head].ev)) cached_min_ = SIZE_MAX;
  if (size_ > 2 * heads_.size())
    resize(2 * heads_.size());
  else
    note_cost();
}

void calendar_queue::note_cost() {
  // Brown's queue assumes a stationary spread of event times; when it drifts, operations
  // slow down without the population changing. Re-estimate the width then.
  constexpr std::uint64_t max_steps_per_op = 8;
  constexpr std::uint64_t window = 1024;
  ++since_resize_;
  if (++ops_ < window) return;
  if (steps_ > max_steps_per_op * ops_ && since_resize_ >= size_ / 8) resize(heads_.size());
  ops_ = steps_ = 0;
}

std::size_t calendar_queue::find_min() {
  if (cached_min_ != SIZE_MAX) return cached_min_;
  const std::size_t buckets = heads_.size();
  for (std::size_t i = 0; i < buckets; ++i, ++steps_) {
    const std::int64_t vb = current_vb_ + static_cast<std::int64_t>(i);
    const std::size_t b = ring_index(vb);
    if (heads_[b].head != nil && virtual_bucket(heads_[b].first) == vb) {
      current_vb_ = vb;
      return cached_min_ = b;
    }
  }
  // A whole year without an event: the next one is far ahead, find it directly.
  std::size_t best = SIZE_MAX;
  steps_ += buckets;
  for (std::size_t b = 0; b < buckets; ++b)
    if (heads_[b].head != nil && (best == SIZE_MAX || head_before(heads_[b], heads_[best]))) best = b;
  current_vb_ = virtual_bucket(heads_[best].first);
  return cached_min_ = best;
}

const event& calendar_queue::top() {
  POLLSCALE_SIM_EXPECT(size_ > 0, "top() of an empty event queue");
  return pool_[heads_[find_min()].head].ev;
}

event calendar_queue::pop() {
  POLLSCALE_SIM_EXPECT(size_ > 0, "pop() of an empty event queue");
  const std::size_t b = find_min();
  const std::uint32_t n = heads_[b].head;
  const event e = pool_[n].ev;
  heads_[b].head = pool_[n].next;
  if (heads_[b].head != nil) heads_[b].first = pool_[heads_[b].head].ev.time;
  pool_[n].next = free_;
  free_ = n;
  --size_;
  cached_min_ = SIZE_MAX;
  if (heads_.size() > min_buckets && size_ < heads_.size() / 2)
    resize(heads_.size() / 2);
  else
    note_cost();
  return e;
}

double calendar_queue::estimate_width() const {
  std::vector<double> times;
  times.reserve(size_);
  for (const bucket& b : heads_)
    for (std::uint32_t n = b.head; n != nil; n = pool_[n].next) times.push_back(pool_[n].ev.time);
  const std::size_t m = std::min(times.size(), width_sample);
  if (m < 2) return width_;
  std::partial_sort(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(m), times.end());
  const double mean_gap = (times[m - 1] - times[0]) / static_cast<double>(m - 1);
  // Brown: average again without the gaps larger than twice the mean, then triple it.
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t i = 1; i < m; ++i) {
    const double gap = times[i] - times[i - 1];
    if (gap <= 2 * mean_gap) {
      sum += gap;
      ++count;
    }
  }
  const double width = count ? 3 * sum / static_cast<double>(count) : 0;
  // Equal times give no spacing to learn from: keep the width that worked so far. A width
  // far below the times' own resolution would overflow the virtual bucket numbers.
  if (!(width > 0) || width < times[0] * 1e-15) return width_;
  return width;
}

void calendar_queue::resize(std::size_t buckets) {
  ops_ = steps_ = since_resize_ = 0;
  width_ = estimate_width();
  std::vector<std::uint32_t> nodes;
  nodes.reserve(size_);
  for (const bucket& b : heads_)
    for (std::uint32_t n = b.head; n != nil; n = pool_[n].next) nodes.push_back(n);
  heads_.assign(buckets, bucket{});
  cached_min_ = SIZE_MAX;
  if (nodes.empty()) return;
  sim_time earliest = pool_[nodes.front()].ev.time;
  for (std::uint32_t n : nodes) {
    earliest = std::min(earliest, pool_[n].ev.time);
    link(n);
  }
  current_vb_ = virtual_bucket(earliest);
}

std::size_t calendar_queue::memory_bytes() const {
  return pool_.capacity() * sizeof(node) + heads_.capacity() * sizeof(bucket);
}

}  // namespace pollscale::sim
