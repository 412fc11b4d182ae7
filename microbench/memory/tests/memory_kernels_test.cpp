#include "microbench/memory/memory_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

namespace sonde::microbench {
namespace {

TEST(ChaseVisitOrder, IsAPermutationOfAllLines) {
  for (std::size_t lines : {1u, 2u, 7u, 64u, 1000u, 4099u}) {
    for (std::size_t group : {std::size_t{1}, std::size_t{64}, lines}) {
      std::vector<std::uint32_t> order = chase_visit_order(lines, group, 42);
      ASSERT_EQ(order.size(), lines);
      std::sort(order.begin(), order.end());
      for (std::size_t i = 0; i < lines; ++i) ASSERT_EQ(order[i], i);
    }
  }
}

TEST(ChaseVisitOrder, InPageOrderStaysInsideEachGroupUntilItIsDone) {
  const std::size_t lines = 64 * 20 + 5, group = 64;
  const std::vector<std::uint32_t> order = chase_visit_order(lines, group, 7);
  std::set<std::uint32_t> finished_groups;
  std::uint32_t current = order[0] / group;
  for (std::uint32_t line : order) {
    if (line / group != current) {
      finished_groups.insert(current);
      current = line / group;
      ASSERT_FALSE(finished_groups.contains(current)) << "the chase came back to group " << current;
    }
  }
}

TEST(ChaseVisitOrder, RandomOrderIsNotSequentialAndSeedMatters) {
  const auto a = chase_visit_order(4096, 4096, 1);
  const auto b = chase_visit_order(4096, 4096, 2);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, chase_visit_order(4096, 4096, 1));
  std::size_t neighbours = 0;  // consecutive visits to adjacent lines help the prefetcher
  for (std::size_t i = 1; i < a.size(); ++i) neighbours += (a[i] == a[i - 1] + 1);
  EXPECT_LT(neighbours, 20u);
}

TEST(Chase, IsOneCycleOverTheWholeWorkingSet) {
  for (std::size_t line_bytes : {64u, 128u}) {
    for (std::size_t lines : {1u, 3u, 512u, 10000u}) {
      std::vector<char> buffer(lines * line_bytes);
      for (std::size_t group : {std::size_t{64}, lines}) {
        void* start = link_chase(buffer.data(), line_bytes, chase_visit_order(lines, group, 3));
        EXPECT_EQ(chase_cycle_length(start, lines + 1), lines)
            << lines << " lines of " << line_bytes << " B, groups of " << group;
        // Every line is visited exactly once per trip.
        std::set<const void*> seen;
        const void* p = start;
        for (std::size_t i = 0; i < lines; ++i) {
          seen.insert(p);
          p = chase(p, 1);
        }
        EXPECT_EQ(seen.size(), lines);
        EXPECT_EQ(chase(start, lines), start);
        EXPECT_EQ(chase(start, 3 * lines + 1), chase(start, 1));
      }
    }
  }
}

TEST(Chase, PointersStayInsideTheBufferAndOnLineStarts) {
  const std::size_t lines = 300, line_bytes = 64;
  std::vector<char> buffer(lines * line_bytes);
  const void* p = link_chase(buffer.data(), line_bytes, chase_visit_order(lines, lines, 9));
  for (std::size_t i = 0; i < lines; ++i) {
    const auto offset = static_cast<const char*>(p) - buffer.data();
    ASSERT_GE(offset, 0);
    ASSERT_LT(offset, static_cast<std::ptrdiff_t>(buffer.size()));
    ASSERT_EQ(offset % line_bytes, 0);
    p = chase(p, 1);
  }
}

TEST(StreamKernels, ComputeWhatTheyClaim) {
  for (std::size_t n : {0u, 1u, 31u, 32u, 33u, 1000u, 4097u}) {
    std::vector<double> a(n), b(n), c(n);
    std::iota(a.begin(), a.end(), 1.0);
    EXPECT_DOUBLE_EQ(read_kernel(a.data(), n), n * (n + 1) / 2.0) << n;
    write_kernel(b.data(), n, 2.5);
    EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](double x) { return x == 2.5; }));
    copy_kernel(c.data(), a.data(), n);
    EXPECT_EQ(c, a);
    triad_kernel(c.data(), a.data(), b.data(), 3.0, n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + 3.0 * 2.5);
    update_kernel(c.data(), b.data(), -3.0, n);  // in place: c = a + 7.5 - 7.5
    EXPECT_EQ(c, a);
  }
}

TEST(StreamKernels, MisalignedKernelsComputeWhatTheyClaimAtAnyOffset) {
  EXPECT_TRUE(vector_bytes() == 16 || vector_bytes() == 32 || vector_bytes() == 64);
  for (std::size_t n : {0u, 1u, 7u, 63u, 64u, 65u, 1000u, 4097u}) {
    // One double past the start: every vector of the kernels misaligned, and the tail after it.
    std::vector<double> a(n + 2, -1.0), b(n + 2, -1.0);
    std::iota(a.begin() + 1, a.end() - 1, 1.0);
    EXPECT_DOUBLE_EQ(misaligned_read_kernel(a.data() + 1, n), n * (n + 1) / 2.0) << n;
    misaligned_write_kernel(b.data() + 1, n, 2.5);
    EXPECT_EQ(b.front(), -1.0) << n;
    EXPECT_EQ(b.back(), -1.0) << n;
    EXPECT_TRUE(std::all_of(b.begin() + 1, b.end() - 1, [](double x) { return x == 2.5; })) << n;
  }
}

TEST(StreamKernels, StridedReadTouchesEveryStrideThWord) {
  std::vector<double> a(1000);
  std::iota(a.begin(), a.end(), 0.0);
  for (std::size_t stride : {1u, 2u, 3u, 8u, 256u, 999u, 1000u, 5000u}) {
    double expected = 0;
    for (std::size_t i = 0; i < a.size(); i += stride) expected += a[i];
    EXPECT_DOUBLE_EQ(strided_read_kernel(a.data(), a.size(), stride), expected) << stride;
  }
}

TEST(StreamKernels, ColumnReadSumsTheChosenColumnsOfEveryRow) {
  // 7 rows of 10 words (a row count that leaves a remainder after the four accumulators), word
  // (r, c) = 100 r + c: columns 3 and 4 sum to 7 * 7 + 100 * 21 * 2 = 4249.
  std::vector<double> a(70);
  for (std::size_t r = 0; r < 7; ++r)
    for (std::size_t c = 0; c < 10; ++c) a[r * 10 + c] = 100.0 * r + c;
  EXPECT_DOUBLE_EQ(column_read_kernel(a.data(), 7, 10, 3, 2), 4249.0);
  EXPECT_DOUBLE_EQ(column_read_kernel(a.data(), 7, 10, 0, 10), 70 * 45 / 10.0 + 100 * 21 * 10);
}

TEST(StreamKernels, LineGatherReadsTheFirstWordOfEveryLineOnceInItsBlocksOrder) {
  // 3 blocks of 8 lines of 4 words (one more line than the four accumulators take twice), word
  // (line, w) = 1000 line + w: only w = 0 is read, each line once, so the sum is 1000 x (0 + 1 +
  // ... + 23) = 276000 whatever the order and masks (each a permutation of the block's lines).
  std::vector<double> a(3 * 8 * 4);
  for (std::size_t line = 0; line < 24; ++line)
    for (std::size_t w = 0; w < 4; ++w) a[line * 4 + w] = 1000.0 * line + w;
  const std::vector<std::uint32_t> order = {5, 2, 7, 0, 3, 6, 1, 4};
  const std::vector<std::uint32_t> masks = {0, 3, 7};
  EXPECT_DOUBLE_EQ(line_gather_kernel(a.data(), 3, 8, 4, order.data(), masks.data()), 276000.0);
  // Blocks of 2 lines (fewer than the accumulators: the remainder loop), order {1, 0}, masks 1
  // and 0: lines 0 and 1, then 3 and 2, 6000.
  const std::vector<std::uint32_t> pair = {1, 0};
  const std::vector<std::uint32_t> pair_masks = {1, 0};
  EXPECT_DOUBLE_EQ(line_gather_kernel(a.data(), 2, 2, 4, pair.data(), pair_masks.data()), 6000.0);
}

TEST(StreamKernels, LineGatherCopyStoresEachLinesFirstWordInOrderIntoItsBuffer) {
  // Blocks of 4 lines of 2 words, word (line, w) = 10 line + w, order {2, 0, 3, 1}, masks 0 and 1.
  // Each block's words go to the buffer from its start, as a scratch row is refilled for each
  // row: block 0 stores lines 2, 0, 3, 1; block 1 then lines 4 + (3, 1, 2, 0) over them.
  std::vector<double> a(16);
  for (std::size_t line = 0; line < 8; ++line)
    for (std::size_t w = 0; w < 2; ++w) a[line * 2 + w] = 10.0 * line + w;
  const std::vector<std::uint32_t> order = {2, 0, 3, 1};
  const std::vector<std::uint32_t> masks = {0, 1};
  std::vector<double> out(8, -1.0);
  line_gather_copy_kernel(out.data(), 7, a.data(), 1, 4, 2, order.data(), masks.data());
  EXPECT_EQ(out, (std::vector<double>{20, 0, 30, 10, -1, -1, -1, -1}));
  line_gather_copy_kernel(out.data(), 7, a.data(), 2, 4, 2, order.data(), masks.data());
  EXPECT_EQ(out, (std::vector<double>{70, 50, 60, 40, -1, -1, -1, -1}));
  // A buffer of 2 words (mask 1) wraps within a block: lines 6 then 4 are left.
  line_gather_copy_kernel(out.data(), 1, a.data(), 2, 4, 2, order.data(), masks.data());
  EXPECT_EQ(out, (std::vector<double>{60, 40, 60, 40, -1, -1, -1, -1}));
}

TEST(StreamKernels, StridedWriteTouchesEveryStrideThWordOnly) {
  for (std::size_t stride : {1u, 3u, 32u, 256u}) {
    std::vector<double> a(1000, 0.0);
    strided_write_kernel(a.data(), a.size(), stride, 2.0);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], i % stride == 0 ? 2.0 : 0.0) << i;
  }
}

TEST(StreamKernels, TrafficTableMatchesTheFormulas) {
  EXPECT_EQ(traffic_of(StreamKernel::read).bytes_per_element(), 8u);
  EXPECT_EQ(traffic_of(StreamKernel::write).bytes_per_element(), 8u);
  EXPECT_EQ(traffic_of(StreamKernel::copy).bytes_per_element(), 16u);
  EXPECT_EQ(traffic_of(StreamKernel::triad).bytes_per_element(), 24u);
  EXPECT_EQ(traffic_of(StreamKernel::triad).flops, 2u);
  // An update in place loads two arrays and stores into one of them: 24 B counted, two arrays.
  EXPECT_EQ(traffic_of(StreamKernel::update).bytes_per_element(), 24u);
  EXPECT_EQ(traffic_of(StreamKernel::update).arrays, 2u);
  EXPECT_EQ(traffic_of(StreamKernel::update).flops, 2u);
  EXPECT_EQ(stream_kernel_named("update"), StreamKernel::update);
  EXPECT_EQ(stream_kernel_named("copy"), StreamKernel::copy);
  EXPECT_FALSE(stream_kernel_named("scale").has_value());
  // The stencil is counted as STREAM counts a copy: one point loaded and one stored, 5 flops.
  EXPECT_EQ(traffic_of(StreamKernel::stencil).bytes_per_element(), 16u);
  EXPECT_EQ(traffic_of(StreamKernel::stencil).arrays, 2u);
  EXPECT_EQ(traffic_of(StreamKernel::stencil).flops, 5u);
  EXPECT_EQ(stream_kernel_named("stencil"), StreamKernel::stencil);
}

TEST(StreamKernels, StencilTakesTheSecondDifferenceInsideAndLeavesTheEndsAlone) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 9u, 64u, 65u, 1001u}) {
    // a[i] = i^2: its second difference is 2 everywhere, so b[i] = i^2 + 0.25 * 2 inside.
    std::vector<double> a(n), b(n, -1.0);
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i * i);
    stencil_kernel(b.data(), a.data(), 0.25, n);
    for (std::size_t i = 0; i < n; ++i) {
      const bool end = i == 0 || i + 1 == n;
      ASSERT_EQ(b[i], end ? -1.0 : a[i] + 0.5) << "n " << n << ", i " << i;
    }
  }
}

}  // namespace
TEST(IndexedKernel, TheFivePointProductIsTheStencil) {
  // A 5 x 4 grid: 20 rows, 5 * 20 - 2 (5 + 4) = 82 nonzeros; 12 B each and 20 B a row counted.
  const FivePointShape shape{5, 4};
  EXPECT_EQ(shape.rows(), 20u);
  EXPECT_EQ(shape.nonzeros(), 82u);
  EXPECT_DOUBLE_EQ(shape.counted_bytes(), 12.0 * 82 + 20.0 * 20);
  EXPECT_EQ(shape.footprint_bytes(), 4u * 21 + 12u * 82 + 16u * 20);
  std::vector<std::int32_t> row(21), col(82);
  std::vector<double> val(82), x(20), y(20, -1.0);
  build_five_point(shape, row.data(), col.data(), val.data());
  EXPECT_EQ(row.back(), 82);
  for (std::size_t i = 0; i < 20; ++i) x[i] = static_cast<double>(i * i % 7) + 0.5;
  csr_product_kernel(row.data(), col.data(), val.data(), x.data(), y.data(), 20);
  // Against the stencil itself: 4 x[i] less each grid neighbour inside the grid, in the same
  // order (up, left, centre, right, down), so the sums agree exactly.
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t c = 0; c < 5; ++c) {
      const std::size_t i = r * 5 + c;
      double expected = 0;
      if (r > 0) expected += -1.0 * x[i - 5];
      if (c > 0) expected += -1.0 * x[i - 1];
      expected += 4.0 * x[i];
      if (c + 1 < 5) expected += -1.0 * x[i + 1];
      if (r + 1 < 4) expected += -1.0 * x[i + 5];
      EXPECT_DOUBLE_EQ(y[i], expected) << "row " << i;
    }
  }
  // The squarest grid for a working set: about 80 B a row, never below 4 x 4.
  const FivePointShape mib = five_point_shape(1 << 20);
  EXPECT_EQ(mib.width, 114u);  // sqrt(1048576 / 80 = 13107.2) = 114.5
  EXPECT_EQ(mib.height, 114u);
  EXPECT_NEAR(static_cast<double>(mib.footprint_bytes()), 1048576.0, 0.02 * 1048576);
  EXPECT_EQ(five_point_shape(100).width, 4u);
  EXPECT_EQ(five_point_shape(100).height, 4u);
}

}  // namespace sonde::microbench
