// Working-set sizes for the memory sweeps, taken from the detected caches rather than constants:
// log-spaced over the whole range, with denser points around each cache capacity where the
// latency and bandwidth change.
#pragma once

#include <cstdint>
#include <vector>

namespace sonde::microbench {

struct SweepSpec {
  std::uint64_t min_bytes = 4096;
  std::uint64_t max_bytes = 0;
  double points_per_octave = 2;        // over the whole range
  double dense_points_per_octave = 8;  // around each capacity
  double dense_half_width_octaves = 0.5;
  std::uint64_t granule_bytes = 64;  // every size is a multiple of this
};

// Sorted, unique sizes in [min_bytes, max_bytes], multiples of granule_bytes.
std::vector<std::uint64_t> working_set_sweep(const std::vector<std::uint64_t>& capacities,
                                             const SweepSpec& spec);

}  // namespace sonde::microbench
