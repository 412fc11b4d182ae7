#include "microbench/working_sets.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace sonde::microbench {
namespace {

TEST(WorkingSetSweep, CoversTheRangeLogSpacedAndIsDenserAroundCaches) {
  SweepSpec spec;
  spec.min_bytes = 4096;
  spec.max_bytes = 256ull << 20;
  const std::vector<std::uint64_t> caches{48 << 10, 1 << 20, 32 << 20};
  const auto sizes = working_set_sweep(caches, spec);
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.front(), 4096u);
  EXPECT_EQ(sizes.back(), 256ull << 20);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(std::adjacent_find(sizes.begin(), sizes.end()), sizes.end()) << "duplicates";
  for (std::uint64_t size : sizes) EXPECT_EQ(size % 64, 0u);
  // No gap wider than half an octave anywhere.
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    EXPECT_LE(static_cast<double>(sizes[i]) / sizes[i - 1], std::sqrt(2.0) * 1.01);
  }
  // Around each capacity, within half an octave, at least eight points; far from caches, fewer.
  const auto points_between = [&](double lo, double hi) {
    return std::count_if(sizes.begin(), sizes.end(),
                         [&](std::uint64_t s) { return s >= lo && s <= hi; });
  };
  for (std::uint64_t capacity : caches) {
    EXPECT_GE(points_between(capacity / std::sqrt(2.0), capacity * std::sqrt(2.0)), 8) << capacity;
  }
  EXPECT_LE(points_between(4 << 20, 8 << 20), 3);
  // The capacities themselves are measured.
  for (std::uint64_t capacity : caches) {
    EXPECT_TRUE(std::binary_search(sizes.begin(), sizes.end(), capacity)) << capacity;
  }
}

TEST(WorkingSetSweep, RejectsAnEmptyRange) {
  SweepSpec spec;
  spec.min_bytes = 8192;
  spec.max_bytes = 4096;
  EXPECT_THROW(working_set_sweep({}, spec), std::invalid_argument);
}

}  // namespace
}  // namespace sonde::microbench
