// One operation in flight: a chain that more CPUs cannot run side by side (docs/scaling.md,
// "One in flight: a chain").
//
// shared_epoll with one token (K = 1) and accept_herd (the client waits for every accept
// before it connects again) keep exactly one operation in flight: the token's pass, or the
// connection, moves from one thread to the next and nothing else has work. However many
// CPUs there are, the operations follow one another. What a wider machine can remove from
// the chain is what one CPU spends because the chain's threads share it: the context
// switches from one thread to the next. The rest — the wait, the read, the write, the
// accept — stays on the chain. So where one CPU passes X1(N) operations per second at N
// threads, making w(N) same-CPU wake-ups and switches per operation at s seconds each, C
// >= 2 CPUs pass at most
//
//     X1(N) / (1 − w(N) · s · X1(N))  =  1 / (1/X1(N) − w(N)·s)
//
// — a ceiling, never a prediction: on two CPUs the hand-offs that cross CPUs add their
// cross-CPU wake-ups, and how many do cannot be seen on one CPU (there the token's writer
// usually takes its own token on: no switch at all, and two CPUs pass it at half the
// rate). What can be said is how far down they can take it: an operation hands on to at
// most max(1, w(N)) threads, and each hand-off costs at most one cross-CPU wake-up x (half
// the wakeup probe's round trip between two CPUs), so the chain passes at least
//
//     1 / (1/X1(N) + max(1, w(N)) · x)
//
// — the floor of the answer's interval on two CPUs (the pair whose wake-up was measured;
// a wider machine's hand-offs cross further), where the data has the cross-CPU wake-up. w(N) is the series' own wakeups
// count (each waiter's voluntary switches per operation) plus the client's one wait per connection where a client waits
// for each operation (accept_herd); s is half the wakeup probe's same-CPU round trip between two threads over a pipe
// (one wake-up and switch each way, the read and write included: the most a switch can cost, so the ceiling errs high).
// Written after looking at one calibration's series (2026-12-06, the AMD l3-508m v1272 host's 07:41 quick run); of the
// 105 two-CPU rows of such experiments in the corpus and two later runs, none lies above
// the ceiling's upper end, which sits a median 76% above them, nor below the floor, a median
// 0.56 of them (docs/scaling.md). The ninth host (2026-12-07) broke it: its level-triggered
// ring passed 10-18% above the ceiling while its two vCPUs sat near each other, because its
// waiters never slept — they spun through epoll_wait on the other CPU, so no wake-up or
// switch was left in the chain, and part of one pass overlapped the next (docs/scaling.md,
// "The ninth host"); far apart they slept, and the ceiling held. 7 of 153 corpus rows, 6 of
// that host's 18 more.
// Where waiters can spin (waiters_may_spin) the answer's interval reaches up to the
// capacity bound since (model/cpu_scaling.cpp).
//
// Between the two, the answer (2026-12-07, evening): the chain's own hand-offs — h(N) =
// min(w(N), H) an operation, H the hand-offs its structure makes (chain_hand_offs: a
// connection wakes the worker that accepts it and the accept wakes the client, 2; the ring's
// token write wakes the thread that takes it on, 1) — land on another CPU than the thread
// that woke them (C − 1)/C of the time when nothing ties a woken thread to its waker's CPU,
// and each that does costs a cross-CPU wake-up x in place of the switch s:
//
//     1 / (1/X1(N) + h(N) · (C − 1)/C · (x − s))
//
// The herd's futile wake-ups (w − h) stay as one CPU paid them. Where one CPU hid the
// hand-offs (w(N) < H/2: the ring's writer takes its own token on) nothing measured there
// says how many a wider machine makes, and the answer stays the ceiling. Chosen after the
// corpus's two-CPU rows were read: the share of hand-offs that crossed, (1/X2 − 1/X1 +
// w·s)/(w·x) solved from each, lay anywhere from 0.03 to 0.99 between runs and hosts
// (docs/scaling.md, "Hand-offs that cross CPUs"), so this is the expectation, not a fit: the
// interval stays the floor to the ceiling.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "datasets/schema.hpp"
#include "model/observations.hpp"

namespace pollscale::model {

/// H: the hand-offs one operation of `experiment` passes along its chain — accept_herd 2 (the
/// connection wakes the worker that accepts it; the accept wakes the client), shared_epoll's
/// one-token ring 1 (the token's write wakes the thread that takes it on), 0 for experiments
/// that keep more than one operation in flight.
double chain_hand_offs(const datasets::key& experiment);

struct chain_fit {
  /// (N, same-CPU switches per operation on one CPU), sorted by N, N distinct and >= 1,
  /// switches >= 0.
  std::vector<std::pair<double, double>> switches;
  double switch_s = 0;  ///< s: one same-CPU wake-up and switch, seconds (> 0)
  /// x: one wake-up across two CPUs, seconds (> 0); NaN where the data has none (no floor).
  double cross_s = NAN;
  /// H: chain_hand_offs of the experiment (set where the chain is fitted or read: the
  /// experiment's structure, not a measurement; model.json does not carry it). 0: none known.
  double hand_offs = 0;

  /// w(N): linear between the measured N, the first one's below them, and beyond the last
  /// growing in proportion to N (a herd wakes every waiter: the count can grow no faster).
  double switches_at(double n) const;
  /// The most operations per second (1/s) C >= 2 CPUs pass at N where one CPU passes x1
  /// (1/s): 1/(1/x1 − w(N)·s); +inf where the switches take all of one CPU's time (nothing
  /// bounds it then) or x1 is not finite and > 0.
  double ceiling(double x1, double n) const;
  /// The fewest operations per second (1/s) C >= 2 CPUs pass at N where one CPU passes x1:
  /// 1/(1/x1 + max(1, w(N))·x); 0 without the cross-CPU wake-up or for x1 not finite and > 0.
  double floor(double x1, double n) const;
  /// True where one CPU shows the chain's hand-offs — w(N) >= H/2, H > 0 — and the cross-CPU
  /// wake-up was measured, so that a wider machine's answer can price them (expected).
  bool hand_offs_seen(double n) const;
  /// The operations per second (1/s) C >= 2 CPUs are expected to pass at N where one CPU
  /// passes x1: 1/(1/x1 + h·(C − 1)/C·(x − s)), h = min(w(N), H); the ceiling where the
  /// hand-offs are not seen (hand_offs_seen) or x1 is not finite and > 0.
  double expected(double x1, double n, std::int64_t cpus) const;
};

/// True for an experiment that keeps one operation in flight: shared_epoll's ring with one
/// token (n_active 1 in its key) and accept_herd (one connection at a time).
bool one_in_flight(const datasets::key& experiment);

/// True where the chain's waiters can stay awake on a wider machine instead of sleeping: a
/// ring on level-triggered instances (shared_epoll lt or exclusive), which re-queue an item
/// they reported, so that a waiter's epoll_wait on another CPU keeps returning and reading
/// the pipe empty rather than sleeping. Then no switch is left in the chain, one pass
/// overlaps the next, and only the CPUs bound the rate: the ceiling's interval reaches up to
/// the capacity bound (docs/scaling.md, "The ninth host": 10-18% above the chain while the
/// two vCPUs sat near each other, under it while they sat far apart).
bool waiters_may_spin(const datasets::key& experiment);

/// s: half the wakeup probe's round trip between two threads over a pipe on one CPU (pinning
/// 0+0, the fewest descriptors): one same-CPU wake-up and switch, in seconds; empty where the
/// data has none.
std::optional<double> same_cpu_hand_off_s(const observation_set& data);

/// The wakeups count (per operation) measured at the same point as the rate row `rate` (same
/// key but the metric, same platform, kernel and source), where the data has a finite one >= 0.
std::optional<double> wakeups_at(const observation_set& data, const observation& rate);

/// The chain of `experiment` (a scaling table's key without its CPUs: scaling.hpp) from its
/// one-CPU series `one_cpu_rows`: each row's N and the wakeups row of the same point (same
/// key but the metric, same platform, kernel and source), and the same-CPU switch from the
/// data's wakeup round trip over a pipe between two threads on one CPU (pinning 0+0, the
/// fewest descriptors), and the cross-CPU wake-up from the same round trip across the first
/// two CPUs (pinning 0+1) where there is one. Empty, with `note` saying why, where the experiment keeps more than
/// one in flight, its rate is not in 1/s, or a part is missing.
std::optional<chain_fit> fit_chain(const observation_set& data, const datasets::key& experiment,
                                   std::span<const observation* const> one_cpu_rows, std::string& note);

}  // namespace pollscale::model
