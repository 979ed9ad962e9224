// A wakeup row as calibrate's wakeup probe writes it: two threads woken through a pipe, no
// mechanism between them, on one CPU (pinning 0+0: one same-CPU hand-off each way) or across
// the first two (0+1), for the CPU-scaling tests that price a hand-off by it.
#pragma once

#include <string>

#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"

namespace pollscale::model::test {

inline observation wakeup_round_trip(double ns, const std::string& pinning = "0+0") {
  observation o;
  o.k.scenario = std::string(datasets::name(datasets::scenario::wakeup));
  o.k.fd_kind = "pipe";
  o.k.n_fds = 1;
  o.k.n_active = 1;
  o.k.blocking = 1;
  o.k.threads = 2;
  o.k.cpus = pinning == "0+0" ? 1 : 2;
  o.k.pinning = pinning;
  o.k.metric = std::string(datasets::name(datasets::metric::round_trip));
  o.k.unit = "ns";
  o.value = ns;
  o.where = "test";
  return o;
}

}  // namespace pollscale::model::test
