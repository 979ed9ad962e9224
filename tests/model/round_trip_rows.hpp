// Round trips between two threads as calibrate's probes write them, for the CPU-scaling tests
// that price a hand-off or a cache line by them: the wakeup probe (two threads woken through a
// pipe, no mechanism between them, on one CPU — pinning 0+0, one same-CPU hand-off each way —
// or across the first two, 0+1) and the cache_line probe (a line's round trip between two CPUs).
#pragma once

#include <string>

#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"

namespace pollscale::model::test {

inline observation round_trip_row(datasets::scenario s, double ns, const std::string& pinning) {
  observation o;
  o.k.scenario = std::string(datasets::name(s));
  o.k.threads = 2;
  o.k.cpus = pinning == "0+0" ? 1 : 2;
  o.k.pinning = pinning;
  o.k.metric = std::string(datasets::name(datasets::metric::round_trip));
  o.k.unit = "ns";
  o.value = ns;
  o.where = "test";
  return o;
}

inline observation wakeup_round_trip(double ns, const std::string& pinning = "0+0") {
  observation o = round_trip_row(datasets::scenario::wakeup, ns, pinning);
  o.k.fd_kind = "pipe";
  o.k.n_fds = 1;
  o.k.n_active = 1;
  o.k.blocking = 1;
  return o;
}

inline observation cache_line_at(double ns, const std::string& pinning = "0+1") {
  return round_trip_row(datasets::scenario::cache_line, ns, pinning);
}

}  // namespace pollscale::model::test
