#include "sim/readiness_state.hpp"

#include "sim/core/invariant.hpp"

namespace pollscale::sim {

readiness_state::readiness_state(std::uint32_t connections, std::uint32_t sets, std::int64_t signal_limit,
                                 partition how)
    : conns_(connections), sets_(sets), how_(how), signal_limit_(signal_limit) {
  POLLSCALE_SIM_EXPECT(sets >= 1, "a server needs at least one interest set");
  block_ = connections > sets ? (connections + sets - 1) / sets : 1;
  for (std::uint32_t c = 0; c < connections; ++c) ++sets_[set_of(c)].registered;
}

void readiness_state::make_ready(std::uint32_t conn) {
  connection& c = conns_[conn];
  c.ready = true;
  ++c.epoch;
  interest_set& s = sets_[set_of(conn)];
  s.ready.push({conn, c.epoch});
  ++s.ready_count;
  ++ready_total_;
}

bool readiness_state::request_arrived(std::uint32_t conn) {
  connection& c = conns_[conn];
  ++c.pending;
  if (signal_limit_ > 0) {
    if (static_cast<std::int64_t>(signals_.size()) < signal_limit_ && !overflow_) {
      signals_.push(conn);
    } else {
      // Beyond RLIMIT_SIGPENDING the kernel queues nothing more: one SIGIO says "poll".
      if (!overflow_) ++overflows_;
      overflow_ = true;
    }
  }
  if (c.ready) return false;
  // A connection being handled (claimed) is neither ready nor idle: its handler will see
  // the new request when it finishes and requeue it.
  if (c.pending > 1) return false;
  make_ready(conn);
  return true;
}

bool readiness_state::request_handled(std::uint32_t conn) {
  connection& c = conns_[conn];
  POLLSCALE_SIM_EXPECT(c.pending > 0 && !c.ready, "handled a request that was not claimed");
  --c.pending;
  if (c.pending == 0) return false;
  make_ready(conn);
  return true;
}

void readiness_state::claim(std::uint32_t set, std::int64_t limit, std::vector<std::uint32_t>& out) {
  interest_set& s = sets_[set];
  std::int64_t taken = 0;
  while (!s.ready.empty() && (limit <= 0 || taken < limit)) {
    const entry e = s.ready.pop();
    connection& c = conns_[e.conn];
    if (!c.ready || c.epoch != e.epoch) continue;  // stale: already claimed elsewhere
    c.ready = false;
    --s.ready_count;
    --ready_total_;
    out.push_back(e.conn);
    ++taken;
  }
}

bool readiness_state::claim_connection(std::uint32_t conn) {
  connection& c = conns_[conn];
  if (!c.ready) return false;
  // Its entry in the set's ready queue becomes stale by the flag.
  c.ready = false;
  --sets_[set_of(conn)].ready_count;
  --ready_total_;
  return true;
}

std::uint32_t readiness_state::take_signal() {
  const std::uint32_t conn = signals_.pop();
  return claim_connection(conn) ? conn : UINT32_MAX;
}

void readiness_state::flush_signals() {
  signals_.clear();
  overflow_ = false;
}

void readiness_state::claim_all(std::vector<std::uint32_t>& out) {
  for (std::uint32_t s = 0; s < sets_.size(); ++s) claim(s, 0, out);
}

std::size_t readiness_state::memory_bytes() const {
  std::size_t bytes = conns_.capacity() * sizeof(connection) + signals_.memory_bytes();
  for (const interest_set& s : sets_) bytes += sizeof(s) + s.ready.memory_bytes() + s.sleepers.memory_bytes();
  return bytes;
}

}  // namespace pollscale::sim
