// The serial stage: a structure that every operation of a CPU-scaling scenario passes
// through and that one CPU at a time may hold — producers' one consumer thread, the one
// epoll instance T threads share (its ready-list lock and wait queue), the one listening
// socket of an accept herd. It is the mechanistic contention model of docs/scaling.md,
// "The serial stage":
//
// T threads cycle between a parallel part of mean p seconds, run on any of C CPUs (a
// C-server station), and the serial part of mean s seconds, held by one thread at a time
// (a single-server queue). Exact mean-value analysis of that closed network (Reiser and
// Lavenberg, with the load-dependent CPU station) gives the throughput X(T, C); the CPUs
// cap it at C/(p + s), since the holder also runs on a CPU.
//
// What is measured: one CPU gives the demand p + s of an operation (every part of it on
// that CPU, 1/X₁); a series on C0 >= 2 CPUs gives s, the hold time once threads hand the
// structure between CPUs (fitted). Carried to C > C0 CPUs the hold stays s (the central
// prediction) or grows with the share of hand-offs that cross CPUs, (1 − 1/C)/(1 − 1/C0),
// if all of s were the hand-off (the interval's lower end): which part of s is the
// hand-off, two CPUs cannot say.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "datasets/schema.hpp"
#include "model/scaling_law.hpp"

namespace pollscale::model {

/// The structure every operation of the experiment `k` holds alone ("the one consumer
/// thread", ...), or "" when its threads share no such structure (private_sets, one
/// EPOLLEXCLUSIVE instance per thread).
std::string serial_structure(const datasets::key& k);

/// What the threads of experiment `k` hand work on through where no one structure
/// serialises it — shared_epoll's EPOLLEXCLUSIVE variant: the ring's pipes, each watched by
/// every thread's own instance, so that a pass wakes a waiter of another thread — or ""
/// (nothing handed on: private_sets; or a serial stage says it: serial_structure). On a
/// machine of two CPUs or more those hand-offs cross CPUs (a wake-up by IPI, on a KVM guest
/// a hypervisor exit), which no series of one CPU pays.
std::string hand_off_structure(const datasets::key& k);

/// Throughput (operations per second when p and s are in seconds) of T >= 1 threads on
/// C >= 1 CPUs, each operation p >= 0 on any CPU and s >= 0 on the serial stage (p + s >
/// 0): exact MVA, capped by C/(p + s). Throws std::invalid_argument otherwise.
double serial_stage_throughput(double p, double s, std::int64_t threads, std::int64_t cpus);

/// One row of the series the hold time is fitted on.
struct serial_stage_point {
  double threads = 0;     ///< T, >= 1
  double demand = 0;      ///< p + s: 1/X of T threads on one CPU (the data's time unit), > 0
  double throughput = 0;  ///< measured on the series' CPUs, > 0
};

struct serial_stage_fit {
  std::int64_t cpus = 0;  ///< C0: the series' width
  double hold = 0;        ///< s, in 1/throughput units (>= 0)
  /// Its standard error (Gauss-Newton); NaN when not identified: df = 0, or a standard
  /// error wider than every hold the series could show (1.5 × its slowest 1/X), where the
  /// stage binds nowhere and any hold fits as well.
  double hold_sd = 0;
  double residual_sd = 0;  ///< of log(measured / fitted), NaN when df = 0
  int df = 0;              ///< points − 1
  int points = 0;
  double t_max = 0;  ///< the largest T fitted
};

/// The hold time s that makes serial_stage_throughput(max(demand − s, 0), s, T, cpus) fit
/// the points best in log (a scan of [0, 1.5 × the slowest 1/X], refined by Brent).
/// Throws std::invalid_argument for cpus < 2 (one CPU shows no hand-off), no points, or a
/// point that is not finite and positive.
serial_stage_fit fit_serial_stage(std::span<const serial_stage_point> points, std::int64_t cpus);

/// Whether the series pinned the hold down (df > 0 and a finite standard error).
bool identified(const serial_stage_fit& fit);

/// What the stage says at T threads on C >= 2 CPUs with a demand of p + s = demand per
/// operation: the hold carried over, one end of the interval with the hold scaled by the
/// crossing share (the lower end on C > fit.cpus, where it grows; the upper end on a
/// narrower machine, where it shrinks), both ends widened by the fit's scatter and the
/// hold's error (Student t, df). No interval when df = 0 or the hold is not identified.
/// Throws std::invalid_argument for C < 2 (one CPU hands nothing over), a demand not > 0,
/// or T < 1.
scaling_prediction predict_serial_stage(const serial_stage_fit& fit, double demand, double threads, std::int64_t cpus);

}  // namespace pollscale::model
