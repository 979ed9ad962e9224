// Seeded synthetic observations with planted costs, for the model tests.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "model/observations.hpp"

namespace pollscale::model::test {

/// A cell key: find_active over pipes, timeout 0, one thread on CPU 0.
inline datasets::key cell_key(const std::string& mechanism, const std::string& metric = "time_per_call",
                              const std::string& unit = "ns", const std::string& scenario = "find_active") {
  datasets::key k;
  k.scenario = scenario;
  k.mechanism = mechanism;
  k.fd_kind = "pipe";
  k.blocking = 0;
  k.threads = 1;
  k.cpus = 1;
  k.pinning = "0";
  k.metric = metric;
  k.unit = unit;
  return k;
}

/// The context of a machine with L1d 48 KiB, L2 1 MiB, L3 32 MiB.
inline nlohmann::json cache_context() {
  return {{"schema_version", 1},
          {"caches",
           {{{"level", 1}, {"type", "Data"}, {"size_bytes", 49152}},
            {{"level", 2}, {"type", "Unified"}, {"size_bytes", 1 << 20}},
            {{"level", 3}, {"type", "Unified"}, {"size_bytes", 32 << 20}}}}};
}

/// Appends one observation per (n, k) with value truth(n, k) x (1 + N(0, noise)), and
/// `samples` raw repetitions around it when samples > 0.
inline void add_points(observation_set& set, const datasets::key& base, const std::vector<std::int64_t>& ns,
                       const std::vector<std::int64_t>& ks, const std::function<double(double, double)>& truth,
                       double noise, std::mt19937_64& rng, int samples = 0) {
  std::normal_distribution<double> e(0.0, noise);
  for (auto n : ns)
    for (auto k : ks) {
      observation o;
      o.k = base;
      o.k.n_fds = n;
      o.k.n_active = k;
      o.k.active_pos = "middle";
      const double t = truth(static_cast<double>(n), static_cast<double>(k));
      for (int s = 0; s < samples; ++s) o.samples.push_back(t * (1 + e(rng)));
      o.value = t * (1 + e(rng));
      o.where = "synthetic:" + std::to_string(set.rows.size() + 2);
      set.rows.push_back(std::move(o));
    }
}

inline std::vector<const observation*> all_rows(const observation_set& s) {
  std::vector<const observation*> out;
  for (const auto& o : s.rows) out.push_back(&o);
  return out;
}

}  // namespace pollscale::model::test
