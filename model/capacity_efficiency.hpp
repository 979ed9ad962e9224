// What a CPU added to the ones measured is worth, on the machines of the corpus. The
// capacity bound (cpu_scaling.hpp) says C CPUs do C/c0 times the work of the c0 measured:
// every operation needs its CPU time, and each CPU has as much to give as the first. On the
// 2-vCPU guests and the 16-CPU machine this project measured, the second CPU (and the next
// ones) gives a little less: a thread on one CPU runs 1-13% slower while its neighbour is
// busy — a shared core's power budget and turbo, the host's other tenants, a sibling's caches.
// Where nothing is shared (private_sets, private_processes: a thread, its own fds, no
// hand-off) the bound lay a median 1.5-13% from the measurement, mostly above it, on the
// corpus's five hosts, and its interval, drawn from one-CPU visits that agree to a fraction
// of a percent, held 0 of 3, 11 of 26 and 15 of 21 rows on three of them (docs/scaling.md,
// "What a CPU beyond the measured ones delivers"). One CPU cannot see
// what the second costs it, so the corpus says it: scripts/corpus_capacity.py takes every
// corpus calibration's nothing-shared rows of C > c0 CPUs, predicted by the bound from c0,
// and estimates by maximum likelihood, every host weighing the same,
//   ln(measured / bound) ~ N(μ·d, s² + τ²·d),   d = log₂(C / c0),
// s the bound's own spread: each doubling of the CPUs costs a factor exp(μ) with a log sd τ
// between machines and runs, independent from one doubling to the next, so the interval
// widens with the extrapolation in C. It writes datasets/machines/capacity_efficiency.json,
// which `pollscale scale --from-cpus` reads by default and `pollscale fit` copies into
// model.json for `predict --cpus` and for simulated servers wider than the fitted run's
// machine (sim::cpu_width_pricing).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/scaling_law.hpp"

namespace pollscale::model {

/// What each doubling of the CPUs gives beyond the ones measured (model.json capacity_efficiency).
struct capacity_efficiency {
  double log_mean = 0;    ///< μ: mean ln(measured / bound) per doubling, in [-1, 1]
  double log_sd = 0;      ///< τ: its sd between machines and runs per doubling, in [0, 1]
  std::size_t rows = 0;   ///< rows it was estimated from, > 0
  std::size_t runs = 0;   ///< calibrations those rows came from, > 0
  std::size_t hosts = 0;  ///< distinct hosts among them, > 0
  std::string statistic;  ///< the point statistic of the rows it was estimated from (observations.hpp)
  std::string estimated;  ///< the UTC date of the estimate (YYYY-MM-DD)
  std::string source;     ///< the file it was read from, as given
};

/// What the corpus file says it is ("kind"), and the only layout this build reads.
inline constexpr const char* capacity_efficiency_kind = "pollscale capacity efficiency";
inline constexpr int capacity_efficiency_schema_version = 1;

/// Reads the estimate for `statistic` ("median", "fastest" or "adjusted": what the rows a
/// prediction comes from were summarised by; the fastest batch meets less interference, so
/// its factor is nearer 1) from a capacity-efficiency file (scripts/corpus_capacity.py writes
/// one). Throws datasets::input_error ("file: what") when it is unreadable, not JSON, of
/// another kind or version, has no estimate for `statistic`, or when log_mean is not a
/// finite number in [-1, 1] (a factor of e per doubling is no machine worth modelling),
/// log_sd not one in [0, 1], or rows, runs or hosts not a count > 0.
capacity_efficiency read_capacity_efficiency(const std::filesystem::path& file, const std::string& statistic);

/// The model.json block, and back: capacity_efficiency_from_json throws
/// std::invalid_argument naming the field for the same faults as the reader.
nlohmann::json to_json(const capacity_efficiency& e);
capacity_efficiency capacity_efficiency_from_json(const nlohmann::json& j);

/// The capacity bound of C = ratio·c0 CPUs, `bound` (C/c0 times the c0 law), as the corpus's
/// machines deliver it: its value times exp(μ·d), d = log₂(ratio), and each end of its 95%
/// interval moved out in quadrature on the log scale, sqrt(s² + τ²·d) with s that end's own
/// log spread (an end at or below zero stays where it is: nothing said about it). A bound
/// without an interval keeps none: the law's own spread is unknown. Precondition: ratio >= 1
/// (at ratio 1 the bound is returned unchanged).
scaling_prediction delivered(const capacity_efficiency& e, scaling_prediction bound, double ratio);

}  // namespace pollscale::model
