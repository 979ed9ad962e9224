// The random cycle behind the memory_latency probe (memory_latency.cpp holds the essay),
// declared here so that tests can check it is one cycle through every line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pollscale::calibrate::probes {

/// A uniformly random cyclic permutation of 0..n-1 with a single cycle (Sattolo), as a
/// successor table: following next[] from any i visits all n before returning to i.
/// Same n and seed, same table. Precondition: 1 <= n < 2^32.
std::vector<std::uint32_t> random_cycle(std::size_t n, std::uint64_t seed);

}  // namespace pollscale::calibrate::probes
