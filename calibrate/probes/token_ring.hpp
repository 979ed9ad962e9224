// The ring behind the token_ring probe (token_ring.cpp holds the essay): n channels in a
// ring, t tokens circulating, one waiter watching every channel. Declared here so that
// tests can reach the channels and check the kernel's state against the bookkeeping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "calibrate/probe.hpp"
#include "calibrate/waiter.hpp"

namespace pollscale::calibrate::probes {

class ring_driver {
 public:
  /// Builds the ring of key.n_fds channels of key.fd_kind with key.n_active tokens, watched
  /// by key's mechanism; key.blocking selects timeout 0 (0) or a sleeping wait (1).
  /// `ring`, when given, is a ring an earlier driver left (shared_setup.hpp): key.n_fds
  /// channels of key.fd_kind, every trigger end kept, every channel empty; the driver
  /// watches and uses it instead of building one. Throws probe_skipped when it cannot run
  /// here (descriptor limit, rtsig on a file kind without fasync), std::invalid_argument
  /// for a malformed key or a ring of another kind or size.
  ring_driver(const datasets::key& key, const selection& sel, std::shared_ptr<channel_set> ring = nullptr);
  /// Leaves the ring empty for the next driver: reads the tokens back from the channels that
  /// hold them, or from every channel when a call that moves tokens did not finish.
  ~ring_driver();
  ring_driver(const ring_driver&) = delete;
  ring_driver& operator=(const ring_driver&) = delete;

  /// Waits and moves tokens until at least `passes` passes were made; returns the passes
  /// made (fewer than passes + t: one wait moves at most t). Throws probe_failure when the kernel's answer contradicts
  /// the bookkeeping (a token lost, duplicated or never reported).
  std::size_t advance(std::size_t passes);

  /// Moves every token to a channel drawn from `rng` (distinct channels), outside any
  /// timing. Precondition: level-triggered mechanism (the move leaves no stale events).
  void scatter(std::mt19937_64& rng);

  const channel_set& channels() const { return *ch_; }
  bool level_triggered() const { return level_; }
  std::size_t tokens() const { return t_; }
  int max_watched_fd() const { return max_fd_; }

 private:
  void refill(int timeout_ms, int max_empty);
  void validate(const std::vector<std::uint32_t>& tags);
  std::size_t serve_reported();
  std::size_t drain(std::size_t i);
  void send(std::size_t i, std::size_t count);
  void check_for_stuck_tokens();
  void leave_empty() noexcept;
  void empty(std::size_t i) noexcept;

  std::size_t n_, t_;
  int timeout_ms_;
  std::shared_ptr<channel_set> ch_;
  std::unique_ptr<waiter> w_;  // declared after ch_: destroyed first
  bool moving_ = false;        // inside advance() or scatter(): the bookkeeping may be behind
  bool level_;
  int max_fd_ = -1;
  std::vector<std::size_t> tokens_in_;                        // tokens each channel holds (bookkeeping)
  std::vector<std::uint32_t> writes_since_;                   // writes since the channel was last reported
  std::vector<std::uint64_t> occupied_since_;                 // wait count when the channel got its tokens
  std::vector<std::uint64_t> stamp_;                          // wait count of the last report (duplicates)
  std::vector<std::uint32_t> scratch_;                        // the last wait's report
  std::vector<std::pair<std::uint32_t, std::size_t>> moved_;  // tokens read, to pass on
  std::size_t occupied_ = 0;
  std::uint64_t waits_ = 0, last_stuck_check_ = 0;
  std::vector<char> buf_;
  std::vector<std::uint32_t> draw_;  // scatter's candidate channels
};

}  // namespace pollscale::calibrate::probes
