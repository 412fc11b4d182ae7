#include "microbench/working_sets.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sonde::microbench {

std::vector<std::uint64_t> working_set_sweep(const std::vector<std::uint64_t>& capacities,
                                             const SweepSpec& spec) {
  if (spec.granule_bytes == 0 || spec.min_bytes < spec.granule_bytes ||
      spec.max_bytes < spec.min_bytes || spec.points_per_octave <= 0) {
    throw std::invalid_argument("bad working-set sweep specification");
  }
  std::vector<double> sizes;
  const double octaves = std::log2(static_cast<double>(spec.max_bytes) / spec.min_bytes);
  const int steps = static_cast<int>(std::floor(octaves * spec.points_per_octave + 1e-9));
  for (int i = 0; i <= steps; ++i) {
    sizes.push_back(spec.min_bytes * std::exp2(i / spec.points_per_octave));
  }
  sizes.push_back(static_cast<double>(spec.max_bytes));
  if (spec.dense_points_per_octave > 0) {
    const int half =
        static_cast<int>(std::round(spec.dense_half_width_octaves * spec.dense_points_per_octave));
    for (std::uint64_t capacity : capacities) {
      for (int i = -half; i <= half; ++i) {
        sizes.push_back(capacity * std::exp2(i / spec.dense_points_per_octave));
      }
    }
  }
  std::vector<std::uint64_t> result;
  for (double size : sizes) {
    const auto granules = static_cast<std::uint64_t>(std::llround(size / spec.granule_bytes));
    const std::uint64_t bytes = granules * spec.granule_bytes;
    if (bytes >= spec.min_bytes && bytes <= spec.max_bytes) result.push_back(bytes);
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

}  // namespace sonde::microbench
