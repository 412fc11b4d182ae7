// The MPI suite's plan and pair classes: what every rank must agree on before anything is sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "microbench/cache_flush.hpp"
#include "microbench/mpi/mpi_suite.hpp"

namespace sonde::microbench {
namespace {

// A node with room for every default buffer.
Sizing roomy_node() {
  Sizing sizing;
  sizing.max_buffer_bytes = 64ull << 30;
  return sizing;
}

TEST(MpiPlan, CoversZeroTo16MiBDenselyWhereProtocolsSwitch) {
  const MpiSuitePlan plan = plan_mpi_suite({}, roomy_node(), 4, 4);
  EXPECT_EQ(plan.pingpong_bytes.front(), 0u);
  EXPECT_EQ(plan.pingpong_bytes.back(), 16u << 20);
  EXPECT_TRUE(std::is_sorted(plan.pingpong_bytes.begin(), plan.pingpong_bytes.end()));
  // Four sizes an octave between 256 B and 1 MiB: 4096, 4871, 5793, 6889, 8192.
  const auto count_in = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::count_if(plan.pingpong_bytes.begin(), plan.pingpong_bytes.end(),
                         [&](std::uint64_t m) { return m >= lo && m < hi; });
  };
  EXPECT_EQ(count_in(4096, 8192), 4);
  EXPECT_EQ(count_in(1u << 21, 1u << 22), 1);  // beyond 1 MiB, powers of two
  EXPECT_EQ(plan.communicator_sizes, (std::vector<int>{2, 4}));
  EXPECT_EQ(plan.map_pairs.size(), 6u);  // every pair of 4 ranks
  EXPECT_EQ(plan.parts, mpi_part_names());
  EXPECT_EQ(plan.map_bandwidth_bytes, 4u << 20);
}

TEST(MpiPlan, CommunicatorsDoubleUpToAllRanks) {
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 12, 12).communicator_sizes,
            (std::vector<int>{2, 4, 8, 12}));
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 2, 2).communicator_sizes, (std::vector<int>{2}));
}

TEST(MpiPlan, AskedCollectiveSizesJoinThePlan) {
  // A simulated plan measures 8 B and powers of 4 from 64 B to 64 KiB; 32 KiB and 24 KiB asked
  // for join them in order, and a size it has already is not measured twice.
  const MpiSuitePlan plan = plan_mpi_suite({}, roomy_node(), 4, 4, {}, true, {32768, 24576, 4096});
  EXPECT_EQ(plan.collective_bytes,
            (std::vector<std::uint64_t>{8, 64, 256, 1024, 4096, 16384, 24576, 32768, 65536}));
  EXPECT_EQ(parse_collective_bytes("32KiB"), 32768u);
  EXPECT_THROW(parse_collective_bytes("12"), Error);  // a reduction moves whole doubles
  EXPECT_THROW(parse_collective_bytes("0"), Error);
  const auto planned = planned_collectives(plan);
  EXPECT_TRUE(std::any_of(planned.begin(), planned.end(), [](const PlannedCollective& c) {
    return c.op == "halo" && c.ranks == 4 && c.bytes == 24576;
  }));
}

TEST(MpiPlan, ASimulatedScanStopsAt128Ranks) {
  // Under SMPI beyond 128 ranks the scan (linear there) is left out above 128, with its reason;
  // the other collectives run at every communicator size. A real run keeps it everywhere.
  const MpiSuitePlan simulated = plan_mpi_suite({}, roomy_node(), 256, 256, {}, true);
  EXPECT_EQ(simulated.scan_max_ranks, 128);
  ASSERT_EQ(simulated.left_out.size(), 1u);
  EXPECT_NE(simulated.left_out[0].find("mpi.collective.scan above 128 ranks"), std::string::npos);
  EXPECT_EQ(simulated.communicator_sizes.back(), 256);
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 128, 128, {}, true).scan_max_ranks, 0);
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 256, 256).scan_max_ranks, 0);
}

TEST(MpiPlan, LargeCollectivesRunFromColdBuffers) {
  // From 64 KiB on a real machine; a quick run's 4 KiB too, so that both ways run; none
  // simulated (SMPI models no caches), nor where nothing can flush the caches.
  const std::uint64_t flushable = can_flush_caches() ? 1 : 0;
  const MpiSuitePlan real = plan_mpi_suite({}, roomy_node(), 4, 4);
  EXPECT_EQ(real.cold_collective_bytes, flushable * 65536u);
  EXPECT_EQ(real.collective_bytes.back(), 16u << 20);
  CommonOptions quick;
  quick.quick = true;
  EXPECT_EQ(plan_mpi_suite(quick, roomy_node(), 2, 2).cold_collective_bytes, flushable * 4096u);
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 4, 4, {}, true).cold_collective_bytes, 0u);
  EXPECT_EQ(plan_mpi_suite(quick, roomy_node(), 4, 4, {}, true).cold_collective_bytes, 0u);
}

TEST(MpiPlan, LargeJobsSampleTheMap) {
  const MpiSuitePlan plan = plan_mpi_suite({}, roomy_node(), 64, 64);
  // Rank 0 with each of the 63 others, and each of ranks 1..31 with the one 32 away.
  EXPECT_EQ(plan.map_pairs.size(), 63u + 31u);
  EXPECT_NE(std::find(plan.map_pairs.begin(), plan.map_pairs.end(), std::make_pair(5, 37)),
            plan.map_pairs.end());
}

TEST(MpiPlan, OneRankHasNothingToMeasure) {
  const MpiSuitePlan plan = plan_mpi_suite({}, roomy_node(), 1, 1);
  EXPECT_TRUE(plan.parts.empty());
  EXPECT_EQ(plan.skipped_parts.size(), mpi_part_names().size());
}

TEST(MpiPlan, ChosenMessageSizesReplaceTheSweep) {
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 2, 2, {2000000, 8}).pingpong_bytes,
            (std::vector<std::uint64_t>{8, 2000000}));
}

TEST(MpiPlan, CollectiveBuffersFitTheNodesAllowance) {
  Sizing small = roomy_node();
  small.max_buffer_bytes = 64u << 20;  // shared by 8 ranks of a node: 8 MiB each
  const MpiSuitePlan plan = plan_mpi_suite({}, small, 16, 8);
  EXPECT_EQ(plan.collective_buffer_cap, 8u << 20);
  // A rank of k holds 2 (k + 1) m B (send and receive of k m, two of m for the reductions):
  // 6 MiB at 2 ranks of 1 MiB fits, 24 MiB at 4 MiB does not; 8 ranks of 256 KiB hold 4.5 MiB,
  // 16 ranks 8.5 MiB. A shift holds 4 m, a halo step 6 m: 1 MiB fits at every k, 4 MiB does
  // not. The plan says what it left out, for each k the wide collectives, the shift and the halo.
  ASSERT_EQ(plan.left_out.size(), 12u);
  EXPECT_EQ(plan.left_out[0],
            "mpi.collective.* but shift and halo at 2 ranks and 4194304, 16777216 B: 2 (k + 1) m "
            "B of buffers exceed the allowance of 8388608 B");
  EXPECT_EQ(plan.left_out[1],
            "mpi.collective.shift at 2 ranks and 4194304, 16777216 B: 4 m B of buffers exceed "
            "the allowance of 8388608 B");
  EXPECT_EQ(plan.left_out[2],
            "mpi.collective.halo at 2 ranks and 4194304, 16777216 B: 6 m B of buffers exceed the "
            "allowance of 8388608 B");
  EXPECT_EQ(plan.left_out[6],
            "mpi.collective.* but shift and halo at 8 ranks and 1048576, 4194304, 16777216 B: "
            "2 (k + 1) m B of buffers exceed the allowance of 8388608 B");
  EXPECT_EQ(plan.left_out[9],
            "mpi.collective.* but shift and halo at 16 ranks and 262144, 1048576, 4194304, "
            "16777216 B: 2 (k + 1) m B of buffers exceed the allowance of 8388608 B");
  const auto planned = planned_collectives(plan);
  const auto has = [&](const std::string& op, int k, std::uint64_t m) {
    return std::any_of(planned.begin(), planned.end(), [&](const PlannedCollective& c) {
      return c.op == op && c.ranks == k && c.bytes == m;
    });
  };
  EXPECT_TRUE(has("halo", 16, 1u << 20));
  EXPECT_TRUE(has("shift", 16, 1u << 20));
  EXPECT_FALSE(has("alltoall", 16, 1u << 20));
  EXPECT_FALSE(has("halo", 16, 4u << 20));
  EXPECT_EQ(plan_mpi_suite({}, roomy_node(), 16, 8).collective_buffer_cap, 256u << 20);
  // Roomy: 256 MiB a rank; 16 MiB at 8 ranks needs 288 MiB.
  const MpiSuitePlan roomy = plan_mpi_suite({}, roomy_node(), 16, 8);
  ASSERT_EQ(roomy.left_out.size(), 2u);
  EXPECT_NE(roomy.left_out[0].find("at 8 ranks and 16777216 B"), std::string::npos);
}

TEST(MpiPairs, ClassesFollowHostSocketAndNumaNode) {
  const RankPlace a{0, "n1", {"0", 0, 0, 0}};
  EXPECT_EQ(pair_class(a, {1, "n2", {"0", 0, 0, 0}}), "other-node");
  EXPECT_EQ(pair_class(a, {1, "n1", {"0", 0, 0, 0}}), "same-core");
  EXPECT_EQ(pair_class(a, {1, "n1", {"1", 1, 0, 0}}), "same-numa");
  EXPECT_EQ(pair_class(a, {1, "n1", {"9", 9, 0, 1}}), "same-socket");
  EXPECT_EQ(pair_class(a, {1, "n1", {"40", 40, 1, 2}}), "same-node");
}

// The streaming benchmark's check, on a window as the receiver holds it after timing: every
// message is checked, not only the first, and a message in another's place is wrong too.
TEST(MpiStreamCheck, EveryMessageOfTheWindowIsChecked) {
  const unsigned window = 8;
  for (const std::uint64_t bytes : {100ull, 1ull}) {
    MessageBuffer sent;
    fill_stream_window(sent, bytes, window, 1);
    ASSERT_EQ(sent.size(), bytes * window);
    EXPECT_EQ(first_wrong_stream_message(sent, bytes, window, 1), -1) << bytes;
    // Another sender's window is not this one's.
    MessageBuffer other;
    fill_stream_window(other, bytes, window, 0);
    EXPECT_EQ(first_wrong_stream_message(other, bytes, window, 1), 0) << bytes;
    // One byte wrong in the middle of message 4.
    MessageBuffer corrupted = sent;
    corrupted[4 * bytes + bytes / 2] ^= 0x5a;
    EXPECT_EQ(first_wrong_stream_message(corrupted, bytes, window, 1), 4) << bytes;
    // Messages 2 and 3 swapped: each whole, neither in its place.
    MessageBuffer swapped = sent;
    std::swap_ranges(swapped.begin() + 2 * bytes, swapped.begin() + 3 * bytes,
                     swapped.begin() + 3 * bytes);
    EXPECT_EQ(first_wrong_stream_message(swapped, bytes, window, 1), 2) << bytes;
    // The last message missing (a window cut short): its slot still holds what was there before.
    MessageBuffer short_window = sent;
    std::fill(short_window.begin() + 7 * bytes, short_window.end(), 0);
    EXPECT_EQ(first_wrong_stream_message(short_window, bytes, window, 1), 7) << bytes;
  }
  // Empty messages carry nothing to check.
  MessageBuffer empty;
  fill_stream_window(empty, 0, window, 1);
  EXPECT_EQ(first_wrong_stream_message(empty, 0, window, 1), -1);
}

// Every message buffer starts on a page, whatever its size and whatever was allocated before,
// so that no two of them lie at different offsets in their pages (page_buffer.hpp says why).
TEST(MessageBuffers, StartOnAPage) {
  const std::size_t page = base_page_bytes();
  std::vector<MessageBuffer> buffers;
  for (const std::size_t bytes : {1ul, 8ul, 100ul, 4096ul, 4097ul, 1ul << 20, (4ul << 20) + 24}) {
    buffers.emplace_back(bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffers.back().data()) % page, 0u) << bytes;
  }
  buffers.clear();  // freed to the heap, which a later allocation may reuse
  for (const std::size_t bytes : {24ul, 8ul << 20, 3ul << 20}) {
    MessageBuffer again(bytes, 7);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(again.data()) % page, 0u) << bytes;
    EXPECT_EQ(again[bytes - 1], 7);
  }
  PageAlignedVector<double> sums(3, 1.5);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(sums.data()) % page, 0u);
}

}  // namespace
}  // namespace sonde::microbench
