// A shared_epoll row as calibrate's probe writes it (T threads passing `tokens` tokens over
// one level-triggered epoll instance, on `cpus` CPUs), for the tests of the CPU-scaling rules.
#pragma once

#include <cstdint>
#include <string>

#include "datasets/vocabulary.hpp"
#include "model/observations.hpp"

namespace pollscale::model::test {

inline observation ring_row(std::int64_t t, std::int64_t cpus, std::int64_t tokens, datasets::metric m,
                            const std::string& unit, double value) {
  observation o;
  o.k.scenario = std::string(datasets::name(datasets::scenario::shared_epoll));
  o.k.mechanism = "epoll";
  o.k.variant = "lt";
  o.k.fd_kind = "pipe";
  o.k.n_fds = t;
  o.k.n_active = tokens;
  o.k.threads = t;
  o.k.cpus = cpus;
  o.k.pinning = "0";
  for (std::int64_t i = 1; i < t; ++i) o.k.pinning += "+" + std::to_string(i % cpus);
  o.k.metric = std::string(datasets::name(m));
  o.k.unit = unit;
  o.value = value;
  o.where = "test";
  return o;
}

}  // namespace pollscale::model::test
