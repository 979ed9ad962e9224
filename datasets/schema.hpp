// The tidy key columns every pollscale table shares (docs/datasets.md),
// and the fixed vocabularies of names that tools and people rely on.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pollscale::datasets {

inline constexpr int schema_version = 1;
/// context.json's `kind` (written since every JSON output carries one; older ones have none).
inline constexpr const char* context_kind = "context";

/// One measured point's identity. Columns that do not apply stay empty (std::nullopt / "").
struct key {
  std::string scenario;
  std::string mechanism;              ///< select, pselect, poll, ppoll, epoll, rtsig, io_uring, devpoll, poll2, kqueue
  std::string variant;                ///< lt, et, oneshot, exclusive, multishot, same_cpu, a patch or kernel name
  std::string fd_kind;                ///< pipe, eventfd, socketpair, tcp, udp, fifo, tmpfile
  std::optional<std::int64_t> n_fds;  ///< descriptors registered with the mechanism
  std::optional<std::int64_t> n_active;  ///< descriptors ready per call
  std::string active_pos;                ///< first, middle, last, spread, random, top
  std::optional<std::int64_t> max_fd;    ///< highest descriptor number passed (select's nfds-1)
  std::optional<std::int64_t> blocking;  ///< 0: timeout 0, 1: the call sleeps until woken
  /// threads taking part in one operation; for a timeout-0 find_active call, the threads of
  /// the process (2: a second thread is parked while the call is timed, so the kernel takes
  /// a reference on every file it looks up, docs/calibrate.md)
  std::optional<std::int64_t> threads;
  std::optional<std::int64_t> cpus;  ///< distinct CPUs those threads were pinned to
  std::string pinning;               ///< CPU of each thread joined by '+', e.g. "0" or "0+1"; "" = unpinned
  std::string metric;                ///< time_per_call, time_per_op, latency, throughput or a scenario's own
  std::string unit;                  ///< ns, us, ms, s, 1/s, 1/ms, B, 1 (a count per operation)

  friend bool operator==(const key&, const key&) = default;
  friend auto operator<=>(const key&, const key&) = default;
};

/// The key columns in their fixed order, as written in every CSV header.
std::span<const std::string_view> key_columns();

/// Renders one key column of `k` as CSV text ("" for an absent value).
std::string key_field(const key& k, std::string_view column);

/// Sets one key column of `k` from CSV text. Throws std::invalid_argument with a message
/// naming the column and the value when the text is not acceptable for that column.
void set_key_field(key& k, std::string_view column, std::string_view text);

std::span<const std::string_view> measured_mechanisms();
std::span<const std::string_view> historical_mechanisms();
std::span<const std::string_view> fd_kinds();
std::span<const std::string_view> units();

bool is_known_mechanism(std::string_view name);
bool is_known_fd_kind(std::string_view name);
bool is_known_unit(std::string_view name);

/// Multiplier that converts a value in `unit` to seconds (time units) or to 1/s (rates).
/// Throws std::invalid_argument for a unit that is neither.
double to_si_factor(std::string_view unit);

/// "ns", "us", "ms", "s": a time (a cost: larger is slower).
bool is_time_unit(std::string_view unit);
/// "1/s", "1/ms": a rate (larger is faster).
bool is_rate_unit(std::string_view unit);

/// Whether `k` was measured by one thread in a process of one thread (threads empty or 1):
/// the textbook call, which the report's figures and verdicts compare across mechanisms.
inline bool one_thread(const key& k) { return k.threads.value_or(1) == 1; }

/// A short human-readable label: "find_active/poll/pipe n=1000 k=1".
std::string describe(const key& k);

}  // namespace pollscale::datasets
