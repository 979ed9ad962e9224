// A producers row as calibrate's producers probe writes it (T producers, one eventfd each,
// and the consumer on `cpus` CPUs), for the tests of the CPU-scaling protocols.
#pragma once

#include <cstdint>
#include <string>

#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"

namespace pollscale::model::test {

inline observation producers_row(std::int64_t t, std::int64_t cpus, double value) {
  observation o;
  o.k.scenario = std::string(datasets::name(datasets::scenario::producers));
  o.k.mechanism = "epoll";
  o.k.variant = "lt";
  o.k.fd_kind = "eventfd";
  o.k.n_fds = t;
  o.k.threads = t + 1;
  o.k.cpus = cpus;
  o.k.pinning = "0";
  for (std::int64_t i = 1; i <= t; ++i) o.k.pinning += "+" + std::to_string(i % cpus);
  o.k.metric = std::string(datasets::name(datasets::metric::throughput));
  o.k.unit = "1/s";
  o.value = value;
  o.where = "test";
  return o;
}

}  // namespace pollscale::model::test
