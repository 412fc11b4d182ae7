#include "characterize/drift.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/error.hpp"

namespace sonde::characterize {
namespace {

using microbench::MachineSample;

constexpr double GB = 1e9;

// A probe of a 2-core machine: each core alone, then both at once.
DriftProbe probe(double seconds, const std::string& after, const std::string& before, double core0,
                 double core1, double both) {
  DriftProbe p;
  p.seconds = seconds;
  p.utc = "2026-11-26T14:00:00Z";
  p.after = after;
  p.before = before;
  p.samples = {MachineSample{0, 1, "", core0 * GB, 0.48e-9, 0, 0},
               MachineSample{1, 1, "", core1 * GB, 0.47e-9, 0, 0},
               MachineSample{0, 2, "", both * GB, 0, 0, 0}};
  return p;
}

profile::Quantity rate(double gb, double low, double high) {
  profile::Quantity q;
  q.value = gb * GB;
  q.unit = "B/s";
  q.interval = profile::Interval{low * GB, high * GB, 1};
  q.note = "triad/2 (kernel/threads): median over 5 working sets on the plateau";
  return q;
}

profile::Profile two_level_profile() {
  profile::Profile p;
  profile::MemoryLevel l1;
  l1.name = "L1d";
  l1.bandwidth["triad/2"] = rate(900, 880, 920);
  profile::MemoryLevel dram;
  dram.name = "DRAM";
  dram.bandwidth["triad/1"] = rate(45, 44, 46);
  dram.bandwidth["copy/2"] = rate(50, 49.5, 50.5);
  dram.bandwidth["triad/2"] = rate(53, 52.5, 54);
  p.memory = {l1, dram};
  return p;
}

// The two-thread triad was measured at 53 GB/s while the probes around its part saw both cores
// together at 50 and 52: it ran as the machine was at 52. Over the run the probes read 48 .. 83.
// Had the part run in the fastest state it would have read 53 x 83 / 52, in the slowest 53 x 48
// / 52.
TEST(Drift, WidensTheMemorysBandwidthsToWhatTheProbesSawAroundTheirPart) {
  const std::vector<DriftProbe> probes = {
      probe(1000, "", "memory-latency-random-base", 40, 42, 83),
      probe(1100, "memory-latency-random-loaded", "memory-bandwidth-t1", 44, 45, 80),
      probe(1230, "memory-bandwidth-t1", "memory-bandwidth-t2", 43, 41, 52),
      probe(1360, "memory-bandwidth-t2", "contention-qsm", 42, 42, 50),
      probe(1500, "mpi-collectives", "", 39, 44, 48)};
  profile::Profile p = two_level_profile();
  const std::vector<std::string> lines = account_for_drift(p, probes);
  ASSERT_EQ(lines.size(), 2u);
  const auto& dram = p.memory.back().bandwidth;
  const profile::Quantity& triad2 = dram.at("triad/2");
  EXPECT_DOUBLE_EQ(triad2.value, 53 * GB);  // the value stays what was measured
  EXPECT_NEAR(triad2.interval->low, 53 * GB * 48 / 52, 1);
  EXPECT_NEAR(triad2.interval->high, 53 * GB * 83 / 52, 1);
  EXPECT_NE(triad2.note.find("median over 5 working sets"), std::string::npos);
  EXPECT_NE(triad2.note.find("interval widened to the machine's drift (derived)"),
            std::string::npos);
  EXPECT_NE(triad2.note.find("48.0 .. 83.0 GB/s, usual 50.0: the probes fall into two states "
                             "apart at 52.0 .. 80.0, and 3 of them in the slower one; the part's "
                             "triad read 53.0 GB/s, the probe beside it nearest that 52.0"),
            std::string::npos)
      << triad2.note;
  // Every kernel with two threads moves with the same probes, from the state the triad placed.
  EXPECT_NEAR(dram.at("copy/2").interval->high, 50 * GB * 83 / 52, 1);
  // The two-thread part ran in the run's usual state (52; the slower of the two the probes fell
  // into, 52, 50 and 48 against 83 and 80, whose median is 50, within 5%): kept as measured.
  EXPECT_EQ(triad2.origin, profile::Origin::measured);
  // One thread: each core alone, 39 .. 45 over the run (median 42), 41 .. 45 around
  // bandwidth-t1; the triad (45) ran as the machine was at 45, the fastest it was: the interval
  // widens downwards only, and the value moves to the median state, 45 x 42 / 45.
  const profile::Quantity& triad1 = dram.at("triad/1");
  EXPECT_NEAR(triad1.interval->low, 45 * GB * 39 / 45, 1);
  EXPECT_NEAR(triad1.interval->high, 46 * GB, 1);
  EXPECT_NEAR(triad1.value, 42 * GB, 1);
  EXPECT_EQ(triad1.origin, profile::Origin::derived);
  EXPECT_NE(triad1.note.find("value moved to the run's usual state (derived): measured 45.0 "
                             "GB/s, x 42.0 / 45.0 GB/s"),
            std::string::npos)
      << triad1.note;
  EXPECT_NE(lines[0].find("DRAM bandwidths with 1 thread (GB/s): triad 45.0 -> 42.0; intervals "
                          "widened to 0.87 .. 1.00 of each as measured"),
            std::string::npos)
      << lines[0];
  // The caches are not the probes' business.
  EXPECT_DOUBLE_EQ(p.memory.front().bandwidth.at("triad/2").interval->high, 920 * GB);
  EXPECT_NE(lines[1].find("DRAM bandwidths with 2 threads (GB/s): copy 50.0, triad 53.0; "
                          "intervals widened to 0.92 .. 1.60"),
            std::string::npos)
      << lines[1];
}

// The run spent most of its time fast (both cores at once 80 .. 83 GB/s) and the two-thread part
// ran in a slow spell (the probes beside it 52 and 50; its triad 53): every two-thread figure moves
// to the usual state, the median of the three fast probes, 82 / 52, each from its own measurement.
TEST(Drift, MovesAFigureMeasuredInAnUnusualStateToTheRunsUsualOne) {
  const std::vector<DriftProbe> probes = {
      probe(1000, "", "memory-bandwidth-t1", 45, 45, 83),
      probe(1100, "memory-bandwidth-t1", "memory-bandwidth-t2", 45, 45, 52),
      probe(1230, "memory-bandwidth-t2", "compute-peak", 45, 45, 50),
      probe(1360, "compute-peak", "mpi-pingpong", 45, 45, 81),
      probe(1500, "mpi-pingpong", "", 45, 45, 82)};
  profile::Profile p = two_level_profile();
  account_for_drift(p, probes);
  const auto& dram = p.memory.back().bandwidth;
  EXPECT_NEAR(dram.at("triad/2").value, 53 * GB * 82 / 52, 1);
  EXPECT_NEAR(dram.at("copy/2").value, 50 * GB * 82 / 52, 1);  // after triad/2 in the map
  EXPECT_EQ(dram.at("copy/2").origin, profile::Origin::derived);
  // The interval: the measured figure in the slowest and fastest states, 53 x 50 / 52 .. 53 x 83
  // / 52; the moved value lies inside it.
  EXPECT_NEAR(dram.at("triad/2").interval->low, 53 * GB * 50 / 52, 1);
  EXPECT_NEAR(dram.at("triad/2").interval->high, 53 * GB * 83 / 52, 1);
  // Each core alone stayed at 45 all along: the one-thread figure is untouched.
  EXPECT_DOUBLE_EQ(dram.at("triad/1").value, 45 * GB);
  EXPECT_EQ(dram.at("triad/1").origin, profile::Origin::measured);
  EXPECT_EQ(dram.at("triad/1").note.find("drift"), std::string::npos);
}

// A faster median state lifts a figure at most to q times its one-thread figure: the indexed
// kernel (19 GB/s alone, 37 with two threads) was bound by each core, not by the node's memory,
// and stays near 38 where the triad goes from 49 to 49 x 83 / 49 (the fast probes' median).
TEST(Drift, AFigureRisesNoFurtherThanQTimesItsOneThreadFigure) {
  profile::Profile p = two_level_profile();
  auto& dram = p.memory.back().bandwidth;
  dram["triad/1"] = rate(42, 41.5, 42.5);
  dram["triad/2"] = rate(49, 48.5, 49.5);
  dram["indexed/1"] = rate(19, 18.8, 19.2);
  dram["indexed/2"] = rate(37, 36.5, 37.5);
  account_for_drift(p, {probe(1000, "", "memory-bandwidth-t2", 42, 42, 49),
                        probe(1100, "memory-bandwidth-t2", "", 42, 42, 82),
                        probe(1200, "mpi-map", "", 42, 42, 84)});
  EXPECT_NEAR(dram.at("triad/2").value, 49 * GB * 83 / 49, 1);  // 83 < 2 x 42
  EXPECT_NEAR(dram.at("indexed/2").value, 2 * 19 * GB, 1);
  EXPECT_NE(dram.at("indexed/2").note.find("at most 2 x its one-thread figure"), std::string::npos)
      << dram.at("indexed/2").note;
  EXPECT_DOUBLE_EQ(dram.at("indexed/1").value, 19 * GB);  // each core alone never moved
}

// A slower usual state: the triad falls with the probes (80 to 80 x 50 / 80); another kernel falls
// by the same ratio at most (copy, 84 -> 52.5) and not below the triad's new figure (read, 60 ->
// 50, not 37.5); one already below that stays (indexed, 37).
TEST(Drift, InASlowerStateAFigureFallsNoFurtherThanTheTriad) {
  profile::Profile p = two_level_profile();
  auto& dram = p.memory.back().bandwidth;
  dram["triad/2"] = rate(80, 79, 81);
  dram["copy/2"] = rate(84, 83, 85);
  dram["read/2"] = rate(60, 59, 61);
  dram["indexed/2"] = rate(37, 36.5, 37.5);
  account_for_drift(
      p, {probe(1000, "", "memory-bandwidth-t2", 42, 42, 80),
          probe(1100, "memory-bandwidth-t2", "", 42, 42, 49),
          probe(1200, "mpi-map", "", 42, 42, 50), probe(1300, "mpi-collectives", "", 42, 42, 51)});
  // The state: the probe nearest the triad's 80 (80); the usual one: the median of the three slow
  // probes 49, 50, 51 (the median of all four, 50.5, would do nearly as well here).
  const double ratio = 50.0 / 80;
  EXPECT_NEAR(dram.at("triad/2").value, 80 * GB * ratio, 1);
  EXPECT_NEAR(dram.at("copy/2").value, 84 * GB * ratio, 1);
  EXPECT_NEAR(dram.at("read/2").value, 50 * GB, 1);
  EXPECT_NE(dram.at("read/2").note.find("not below the triad's 50.0 GB/s there"), std::string::npos)
      << dram.at("read/2").note;
  EXPECT_DOUBLE_EQ(dram.at("indexed/2").value, 37 * GB);
  EXPECT_EQ(dram.at("indexed/2").origin, profile::Origin::measured);
  EXPECT_NEAR(dram.at("indexed/2").interval->low, 37 * GB * 49 / 80, 1);  // its range still widens
}

// The part's triad (94) matched neither probe beside it (49, 51): the machine changed state during
// the part, and its kernels may each have run in another. Nothing moves; each interval spans every
// state the run saw (x 48 / 88 .. x 88 / 48), the top no higher than twice the best one thread
// got.
TEST(Drift, APartThatChangedStateMovesNothing) {
  profile::Profile p = two_level_profile();
  auto& dram = p.memory.back().bandwidth;
  dram["triad/2"] = rate(94, 93, 95);
  dram["copy/2"] = rate(47, 46.5, 47.5);
  dram["copy/1"] = rate(40, 39, 41);
  const std::vector<std::string> lines =
      account_for_drift(p, {probe(1000, "", "memory-bandwidth-t2", 45, 45, 49),
                            probe(1100, "memory-bandwidth-t2", "", 45, 45, 51),
                            probe(1200, "mpi-map", "mpi-stream", 45, 45, 88),
                            probe(1300, "mpi-stream", "", 45, 45, 48)});
  EXPECT_DOUBLE_EQ(dram.at("triad/2").value, 94 * GB);
  EXPECT_EQ(dram.at("triad/2").origin, profile::Origin::measured);
  EXPECT_DOUBLE_EQ(dram.at("copy/2").value, 47 * GB);
  EXPECT_NEAR(dram.at("copy/2").interval->low, 47 * GB * 48 / 88, 1);
  EXPECT_NEAR(dram.at("copy/2").interval->high, 2 * 41 * GB, 1);  // not 47 x 88 / 48 = 86.2
  EXPECT_NEAR(dram.at("triad/2").interval->low, 94 * GB * 48 / 88, 1);
  EXPECT_NEAR(dram.at("triad/2").interval->high, 95 * GB, 1);  // 2 x 45 < 94: as measured
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("no probe beside it within 15% of that (49.0 .. 51.0): the state "
                          "changed during the part, so nothing was moved"),
            std::string::npos)
      << lines[0];
}

// The two-thread part read 90 GB/s for the triad and 88 for the copy, twice and 2.2 times their
// one-thread figures: its kernels agree, so it ran in one state, though the probes beside it both
// read the slow one (48, 47). Its state is its own triad's, 90, and the run's usual one 48 (the
// median of the slow probes 47, 48, 50 against 82, 86; their spread 86 / 47, whose square root
// 1.35 the kernels' 1.1 lies within): the triad moves to 90 x 48 / 90 = 48, the copy to 88 x 48 /
// 90 = 46.9 but not below the triad there.
TEST(Drift, APartWhoseKernelsAgreeRanInItsOwnTriadsState) {
  profile::Profile p = two_level_profile();
  auto& dram = p.memory.back().bandwidth;
  dram["triad/2"] = rate(90, 89, 91);
  dram["copy/2"] = rate(88, 87, 89);
  dram["copy/1"] = rate(40, 39, 41);
  const std::vector<std::string> lines =
      account_for_drift(p, {probe(1000, "", "memory-bandwidth-t1", 45, 45, 82),
                            probe(1100, "memory-bandwidth-t1", "memory-bandwidth-t2", 45, 45, 48),
                            probe(1200, "memory-bandwidth-t2", "mpi-stream", 45, 45, 47),
                            probe(1300, "mpi-stream", "mpi-collectives", 45, 45, 50),
                            probe(1400, "mpi-collectives", "", 45, 45, 86)});
  EXPECT_NEAR(dram.at("triad/2").value, 48 * GB, 1);
  EXPECT_EQ(dram.at("triad/2").origin, profile::Origin::derived);
  EXPECT_NEAR(dram.at("copy/2").value, 48 * GB, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("but its kernels agree (their 2-thread figures spread 1.10-fold"),
            std::string::npos)
      << lines[0];
}

// A 16-core node probes two cores alone and 8 at once: the 8 stand in for the parts of 2, 4 and
// 16 threads, whose rates are not theirs. The 2-thread triad (23.7 GB/s) lies far below every
// 8-core probe (51 .. 79), yet no state of the machine is told by that: nothing is moved, and its
// interval spans the run's states, 23.7 x 51 / 79 up to 23.7 x 79 / 51 (within twice the one-thread
// figure at its best). The 8-thread triad, which the probes did measure, is placed as before.
TEST(Drift, ProbesOfOtherThreadCountsStandInWithoutMovingAnything) {
  const auto node_probe = [](double seconds, const std::string& after, const std::string& before,
                             double eight) {
    DriftProbe p;
    p.seconds = seconds;
    p.utc = "2026-11-27T00:14:00Z";
    p.after = after;
    p.before = before;
    p.samples = {MachineSample{0, 1, "", 13 * GB, 0.4e-9, 0, 0},
                 MachineSample{15, 1, "", 13 * GB, 0.4e-9, 0, 0},
                 MachineSample{0, 8, "", eight * GB, 0, 0, 0}};
    return p;
  };
  profile::Profile p = two_level_profile();
  auto& dram = p.memory.back().bandwidth;
  dram["triad/1"] = rate(13, 12.9, 13.1);
  dram["triad/2"] = rate(23.7, 23.6, 23.8);
  dram["copy/2"] = rate(22, 21.9, 22.1);
  dram["triad/8"] = rate(52, 51.5, 52.5);
  const std::vector<std::string> lines =
      account_for_drift(p, {node_probe(1000, "", "memory-bandwidth-t1", 72),
                            node_probe(1100, "memory-bandwidth-t1", "memory-bandwidth-t2", 79),
                            node_probe(1200, "memory-bandwidth-t2", "memory-bandwidth-t8", 72),
                            node_probe(1300, "memory-bandwidth-t8", "memory-bandwidth-t16", 51),
                            node_probe(1400, "memory-bandwidth-t16", "", 72)});
  const profile::Quantity& triad2 = dram.at("triad/2");
  EXPECT_DOUBLE_EQ(triad2.value, 23.7 * GB);
  EXPECT_EQ(triad2.origin, profile::Origin::measured);
  EXPECT_NEAR(triad2.interval->low, 23.7 * GB * 51 / 79, 1);
  EXPECT_NEAR(triad2.interval->high, 26.2 * GB, 1);  // 2 x 13.1, below 23.7 x 79 / 51 = 36.7
  EXPECT_DOUBLE_EQ(dram.at("copy/2").value, 22 * GB);
  // The 8-thread part's triad (52) beside the probe that read 51: the slow state, moved to the
  // usual 72 as far as the triad allows.
  EXPECT_GT(dram.at("triad/8").value, 52 * GB);
  EXPECT_EQ(dram.at("triad/8").origin, profile::Origin::derived);
  const auto said = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find(
               "DRAM bandwidths with 2 threads (GB/s): copy 22.0, triad 23.7; intervals "
               "widened") != std::string::npos &&
           line.find(
               "the probes took 8 cores at once, not 2: where the part ran among their "
               "states is not known, so nothing was moved") != std::string::npos;
  });
  EXPECT_NE(said, lines.end()) << fmt::format("{}", fmt::join(lines, "\n"));
}

// Two fast probes (82, 83) and two slow (48, 47): the median of all four (65) is a rate the machine
// never ran at. With the two states as often, the usual one is that of the last probe, 83 here: the
// fast one, at 82.5, so the triad measured in the slow state (49, beside 48) moves to 49 x 82.5 /
// 48.
TEST(Drift, TwoStatesAsOftenTakeTheOneTheRunEndedIn) {
  profile::Profile p = two_level_profile();
  auto& dram = p.memory.back().bandwidth;
  dram["triad/2"] = rate(49, 48.5, 49.5);
  const std::vector<std::string> lines =
      account_for_drift(p, {probe(1000, "", "memory-bandwidth-t1", 45, 45, 82),
                            probe(1100, "memory-bandwidth-t1", "memory-bandwidth-t2", 45, 45, 48),
                            probe(1200, "memory-bandwidth-t2", "mpi-stream", 45, 45, 47),
                            probe(1300, "mpi-stream", "", 45, 45, 83)});
  EXPECT_NEAR(dram.at("triad/2").value, 49 * GB * 82.5 / 48, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(
      lines[0].find("usual 82.5: the probes fall into two states apart at 48.0 .. 82.0, and 2 "
                    "of them in the faster one, as many as in the other, the last among them"),
      std::string::npos)
      << lines[0];
}

TEST(Drift, LeavesTheProfileAloneWithOneProbeOrAnIntervalThatHoldsTheDrift) {
  profile::Profile p = two_level_profile();
  const profile::Profile before = p;
  EXPECT_TRUE(account_for_drift(p, {probe(1000, "", "memory-bandwidth-t1", 40, 42, 83)}).empty());
  EXPECT_EQ(p, before);
  // Probes within the measured spread change nothing.
  const std::vector<DriftProbe> steady = {probe(1000, "", "memory-bandwidth-t2", 45, 45, 53),
                                          probe(1100, "memory-bandwidth-t2", "", 45, 45, 53.2)};
  EXPECT_TRUE(account_for_drift(p, steady).empty());
  EXPECT_EQ(p, before);
}

// Probes from a run whose bandwidth parts were never bracketed (a resumed run that kept them):
// the state is the run's probe nearest the triad; without a triad, either end of the run's.
TEST(Drift, WithoutProbesAroundThePartTakesTheWholeRun) {
  const std::vector<DriftProbe> probes = {probe(1000, "", "contention-qsm", 40, 40, 60),
                                          probe(1100, "contention-qsm", "", 40, 40, 75)};
  profile::Profile p = two_level_profile();
  account_for_drift(p, probes);
  const profile::Quantity& triad2 = p.memory.back().bandwidth.at("triad/2");
  EXPECT_NEAR(triad2.interval->low, 52.5 * GB, 1);  // 53 x 60 / 60 is inside
  EXPECT_NEAR(triad2.interval->high, 53 * GB * 75 / 60, 1);
  profile::Profile no_triad = two_level_profile();
  no_triad.memory.back().bandwidth.erase("triad/2");
  account_for_drift(no_triad, probes);
  const profile::Quantity& copy2 = no_triad.memory.back().bandwidth.at("copy/2");
  EXPECT_NEAR(copy2.interval->low, 50 * GB * 60 / 75, 1);
  EXPECT_NEAR(copy2.interval->high, 50 * GB * 75 / 60, 1);
  EXPECT_NE(copy2.note.find("60.0 .. 75.0 GB/s around its part"), std::string::npos) << copy2.note;
}

class DriftLog : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("sonde-drift-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
               "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  void write(const std::string& text) { std::ofstream(drift_log_path(folder_)) << text; }
  std::filesystem::path folder_;
};

TEST_F(DriftLog, RoundTripsAndAppends) {
  const std::filesystem::path path = drift_log_path(folder_);
  EXPECT_TRUE(read_drift_log(path).empty());  // no log yet: no probes
  append_drift_log(path, probe(1000.5, "", "memory-bandwidth-t1", 40, 42, 83));
  append_drift_log(path, probe(1100, "memory-bandwidth-t1", "", 44, 45, 80));
  const std::vector<DriftProbe> probes = read_drift_log(path);
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_DOUBLE_EQ(probes[0].seconds, 1000.5);
  EXPECT_EQ(probes[1].after, "memory-bandwidth-t1");
  ASSERT_EQ(probes[1].samples.size(), 3u);
  EXPECT_EQ(probes[1].samples[2].threads, 2u);
  EXPECT_DOUBLE_EQ(probes[1].samples[2].dram_triad_bytes_per_second, 80 * GB);
  EXPECT_DOUBLE_EQ(probes[0].samples[1].add_latency_seconds, 0.47e-9);
  const std::string table = format_drift(probes);
  EXPECT_NE(table.find("after memory-bandwidth-t1"), std::string::npos) << table;
  EXPECT_NE(table.find("core 0 44.0, core 1 45.0; 2 at once 80.0"), std::string::npos) << table;
}

// The in-core reads go through the log and into the table; a log written before the probe read
// L1 (no such fields) reads as not timed.
TEST_F(DriftLog, CarriesTheInCoreReadAndReadsOlderLogsWithout) {
  const std::filesystem::path path = drift_log_path(folder_);
  DriftProbe p = probe(1000, "", "memory-bandwidth-t1", 40, 42, 83);
  p.samples[0].l1_read_bytes_per_second = 171.5 * GB;
  p.samples[0].l1_bytes = 16384;
  append_drift_log(path, p);
  const std::vector<DriftProbe> probes = read_drift_log(path);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_DOUBLE_EQ(probes[0].samples[0].l1_read_bytes_per_second, 171.5 * GB);
  EXPECT_EQ(probes[0].samples[0].l1_bytes, 16384u);
  EXPECT_EQ(probes[0].samples[1].l1_bytes, 0u);
  EXPECT_NE(format_drift(probes).find("in-core read 171.5"), std::string::npos);
  write(R"({"probes": [{"seconds": 1, "utc": "x", "after": "", "before": "",
             "samples": [{"core": 0, "threads": 1, "dram_triad_bytes_per_second": 4e10,
                          "add_latency_seconds": 1e-9}]}]})");
  const std::vector<DriftProbe> older = read_drift_log(path);
  ASSERT_EQ(older.size(), 1u);
  EXPECT_EQ(older[0].samples[0].l1_read_bytes_per_second, 0);
  EXPECT_EQ(format_drift(older).find("  in-core read"), std::string::npos);
}

TEST_F(DriftLog, NamesTheFieldThatIsWrong) {
  const auto error_of = [&](const std::string& text) {
    write(text);
    try {
      read_drift_log(drift_log_path(folder_));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{\"probes\": [").find("drift.json: not JSON"), std::string::npos);
  EXPECT_NE(error_of("[]").find("an array 'probes'"), std::string::npos);
  EXPECT_NE(error_of(R"({"probes": [{"seconds": 1, "utc": "x", "after": "", "before": ""}]})")
                .find("probes[0].samples: missing"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"probes": [{"seconds": 1, "utc": "x", "after": "", "before": "",
               "samples": [{"core": -1, "threads": 1, "dram_triad_bytes_per_second": 1,
                            "add_latency_seconds": 0}]}]})")
                .find("probes[0].samples[0].core: missing or not a whole number >= 0"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"probes": [{"seconds": 1, "utc": "x", "after": "", "before": "",
               "samples": [{"core": 0, "threads": 1, "dram_triad_bytes_per_second": -5,
                            "add_latency_seconds": 0}]}]})")
                .find("probes[0].samples[0]: expected threads >= 1"),
            std::string::npos);
}

// Four probes' in-core reads on core 0 of 150, 120, 200 and 180 GB/s (median 165): every
// bandwidth of the first level widens to value x 120/165 .. value x 200/165 and keeps its value;
// the DRAM's are left to the triads (here one state: nothing moves).
TEST(Drift, WidensTheFirstLevelsBandwidthsToTheInCoreReadsSpread) {
  std::vector<DriftProbe> probes;
  double at = 1000;
  for (const double read : {150.0, 120.0, 200.0, 180.0}) {
    DriftProbe p = probe(at, "", "", 45, 45, 53);
    at += 100;
    p.samples[0].l1_read_bytes_per_second = read * GB;
    p.samples[0].l1_bytes = 16384;
    probes.push_back(p);
  }
  profile::Profile p = two_level_profile();
  const std::vector<std::string> lines = account_for_drift(p, probes);
  const profile::Quantity& l1 = p.memory.front().bandwidth.at("triad/2");
  EXPECT_DOUBLE_EQ(l1.value, 900 * GB);
  EXPECT_NEAR(l1.interval->low, 900 * GB * 120 / 165, 1);
  EXPECT_NEAR(l1.interval->high, 900 * GB * 200 / 165, 1);
  EXPECT_NE(l1.note.find("interval widened to the in-core drift (derived): the probes' in-core "
                         "read (one core, 4 of them) 120.0 .. 200.0 GB/s, median 165.0 GB/s"),
            std::string::npos)
      << l1.note;
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("L1d bandwidths: triad/2; intervals widened to 0.73 .. 1.21"),
            std::string::npos)
      << lines.back();
  // Two reads are too few to say how far it wanders: the level is left as measured.
  probes.resize(2);
  profile::Profile two = two_level_profile();
  account_for_drift(two, probes);
  EXPECT_EQ(two.memory.front().bandwidth.at("triad/2"),
            two_level_profile().memory.front().bandwidth.at("triad/2"));
}

// The probes with their size, as characterize now logs it: 192 MiB for one core, and the same
// split between both cores at once.
std::vector<DriftProbe> sized(std::vector<DriftProbe> probes, std::uint64_t bytes) {
  for (DriftProbe& p : probes) {
    for (MachineSample& s : p.samples) s.triad_bytes = bytes;
  }
  return probes;
}

// One core read 40, 44, 42 and 46 GB/s over the run (median 43), both cores 80, 82, 47 and 83:
// two states, 3 probes in the faster one (median 82). That is the state the profile's figures
// stand in, and what sonde check sets its probes against.
TEST(Drift, TheUsualStateAsTheProbesReadItWithTheirSize) {
  constexpr std::uint64_t bytes = 192u << 20;
  const std::vector<DriftProbe> probes =
      sized({probe(1000, "", "memory-bandwidth-t1", 40, 44, 80),
             probe(1060, "memory-bandwidth-t1", "memory-bandwidth-t2", 42, 46, 82),
             probe(1120, "memory-bandwidth-t2", "mpi-stream", 44, 42, 47),
             probe(1180, "mpi-stream", "", 46, 40, 83)},
            bytes);
  const std::vector<profile::UsualState> states = usual_states(probes);
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].threads, 1u);
  EXPECT_EQ(states[0].triad_bytes, bytes);
  EXPECT_DOUBLE_EQ(states[0].dram_triad.value, 43 * GB);
  EXPECT_EQ(states[0].dram_triad.unit, "B/s");
  EXPECT_EQ(states[0].dram_triad.origin, profile::Origin::measured);
  ASSERT_TRUE(states[0].dram_triad.interval);
  EXPECT_DOUBLE_EQ(states[0].dram_triad.interval->low, 40 * GB);
  EXPECT_DOUBLE_EQ(states[0].dram_triad.interval->high, 46 * GB);
  EXPECT_EQ(states[0].dram_triad.note,
            "the run's 4 probes over 3m00s read the DRAM triad (one core at a time) at 40.0 .. "
            "46.0 GB/s, median 43.0");
  EXPECT_EQ(states[1].threads, 2u);
  EXPECT_DOUBLE_EQ(states[1].dram_triad.value, 82 * GB);
  EXPECT_NE(states[1].dram_triad.note.find("2 cores at once) at 47.0 .. 83.0 GB/s, usual 82.0: the "
                                           "probes fall into two states"),
            std::string::npos)
      << states[1].dram_triad.note;

  // A log from before the size was kept, one probe, or probes of two sizes: no state to set a
  // probe of a known size against.
  std::vector<DriftProbe> mixed = probes;
  for (MachineSample& s : mixed[1].samples) s.triad_bytes = 256u << 20;
  EXPECT_TRUE(usual_states(sized(probes, 0)).empty());
  EXPECT_TRUE(usual_states({probes[0]}).empty());
  EXPECT_TRUE(usual_states(mixed).empty());
  // Nor a log resumed across the change: the first probe of no known size, the others of one.
  std::vector<DriftProbe> resumed = probes;
  for (MachineSample& s : resumed[0].samples) s.triad_bytes = 0;
  EXPECT_TRUE(usual_states(resumed).empty());
  // Through the log and back, the size with it; an older log's samples read as size unknown.
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / fmt::format("sonde-drift-sized-{}", ::getpid());
  std::filesystem::create_directories(folder);
  append_drift_log(drift_log_path(folder), probes[0]);
  EXPECT_EQ(read_drift_log(drift_log_path(folder))[0].samples[2].triad_bytes, bytes);
  std::filesystem::remove_all(folder);
}

// The size characterize asks the probe for (microbench::dram_probe_bytes, as sonde check's).
TEST(Drift, SizesTheTriadBeyondTheCachesWithinTheMemory) {
  constexpr std::uint64_t MiB = 1u << 20;
  const auto triad_bytes = [](std::uint64_t cache, std::uint64_t memory) {
    return microbench::dram_probe_bytes(static_cast<double>(cache), memory);
  };
  EXPECT_EQ(triad_bytes(32 * MiB, 22000 * MiB), 256 * MiB);
  EXPECT_EQ(triad_bytes(1 * MiB, 22000 * MiB), 192 * MiB);      // STREAM's floor
  EXPECT_EQ(triad_bytes(1024 * MiB, 64000 * MiB), 2048 * MiB);  // at most 2 GiB
  EXPECT_EQ(triad_bytes(32 * MiB, 800 * MiB), 100 * MiB);       // an eighth of the memory
}

}  // namespace
}  // namespace sonde::characterize
