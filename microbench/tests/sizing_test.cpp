// Sizes and plans on machines we do not have: recorded and synthetic hwloc topologies, memory
// limits given as readings, latency curves made up to the shape real ones have.
#include "microbench/sizing.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "characterize/characterize.hpp"
#include "characterize/run_plan.hpp"
#include "core/error.hpp"

namespace sonde::microbench {
namespace {

using namespace characterize;  // the plan and the suites it runs are tested with the harness

constexpr std::uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

UsableMemory usable(std::uint64_t bytes, const std::string& by = "test") {
  return {bytes, by, {by}};
}

// A latency curve two points an octave, flat inside each level and rising over one point past
// its capacity, as a random chase through a cache with near-LRU replacement is.
std::vector<LatencyPoint> curve(const std::vector<std::pair<std::uint64_t, double>>& levels,
                                double memory_seconds, std::uint64_t up_to) {
  std::vector<LatencyPoint> points;
  for (int i = 0;; ++i) {
    const auto bytes = static_cast<std::uint64_t>(4096.0 * std::exp2(i / 2.0)) / 64 * 64;
    if (bytes > up_to) break;
    double seconds = memory_seconds;
    for (auto it = levels.rbegin(); it != levels.rend(); ++it) {
      if (bytes <= it->first) seconds = it->second;
    }
    points.push_back({bytes, seconds});
  }
  return points;
}

Topology fixture(const std::string& name) {
  return Topology::from_xml_file("microbench/tests/fixtures/" + name);
}

TEST(LatencySteps, FindsEachRiseAndIgnoresASlowOutlier) {
  auto points = curve({{48 * KiB, 1e-9}, {1 * MiB, 4e-9}, {4 * MiB, 12e-9}}, 100e-9, 256 * MiB);
  for (LatencyPoint& p : points) {
    if (p.bytes == 2 * MiB) p.seconds = 1e-6;  // another tenant, once
  }
  const auto steps = latency_steps(points);
  // Each capacity within one probe step (a factor of the square root of 2) of the truth.
  ASSERT_EQ(steps.size(), 3u);
  for (const auto& [step, capacity] : {std::pair{steps[0], 48 * KiB}, std::pair{steps[1], 1 * MiB},
                                       std::pair{steps[2], 4 * MiB}}) {
    EXPECT_GE(step, capacity / 1.42) << step;
    EXPECT_LE(step, capacity * 1.42) << step;
  }
}

// A probe's points as recorded: two an octave from 4 KiB, in ns per load.
std::vector<LatencyPoint> probe_points(const std::vector<double>& ns) {
  std::vector<LatencyPoint> points;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    points.push_back(
        {static_cast<std::uint64_t>(4096.0 * std::exp2(static_cast<double>(i) / 2.0)) / 64 * 64,
         ns[i] * 1e-9});
  }
  return points;
}

// The probe as it ran on the guest whose hwloc claims an L3 of 508 MiB per core (2026-11-22, the
// fastest of three repetitions, ns per load): L1 and L2 where hwloc says, an L3 that behaves like
// about 14 MiB, DRAM from 32 MiB, and a slow rise in memory beyond 512 MiB (nested page walks).
std::vector<LatencyPoint> recorded_turin_vm_probe() {
  return probe_points({1.18, 1.17, 1.16, 1.16, 1.17, 1.17, 1.20, 1.18, 4.10, 4.04, 4.06, 4.05, 4.06,
                       4.11, 4.67, 5.83, 8.52, 12.5, 13.5, 14.7, 16.7, 18.0, 20.6, 35.3, 89.5, 134,
                       151,  162,  171,  183,  198,  244,  201,  210,  231,  290,  349,  369});
}

TEST(LatencySteps, TheRecordedVmProbeHasThreeCachesAndAStepInMemory) {
  const LatencySteps steps = latency_steps_split(recorded_turin_vm_probe());
  ASSERT_EQ(steps.caches.size(), 3u);
  EXPECT_NEAR(std::log2(steps.caches[0] / double(48 * KiB)), 0, 0.5);
  EXPECT_NEAR(std::log2(steps.caches[1] / double(1 * MiB)), 0, 0.5);
  EXPECT_GE(steps.caches[2], 8 * MiB);
  EXPECT_LE(steps.caches[2], 24 * MiB);
  ASSERT_EQ(steps.in_memory.size(), 1u);
  EXPECT_GE(steps.in_memory[0], 256 * MiB);
}

// Two probes of the Zen 5 guest minutes apart (2026-11-27, epyc-vm-1127h and epyc-vm-1127i, the
// fastest of three repetitions, ns per load): L1 to 45 KiB, L2 to about 1 MiB, an L3 that holds
// about 4 MiB, then memory. In the second the L3's stretch rose 1.13 times a point, above the
// 1.12 that ends a rise, and the two steps read as one at 4 MiB: the L3 was dropped.
std::vector<LatencyPoint> recorded_short_l3_probe(bool second) {
  return second
             ? probe_points({0.988, 1,    0.979, 0.997, 0.988, 0.984, 0.987, 0.981,
                             3.43,  3.47, 3.47,  3.48,  3.47,  3.43,  3.94,  5,
                             7.13,  11.2, 12.7,  14.4,  19.8,  137,   130,   148,
                             149,   156,  159,   163,   171,   172,   178})
             : probe_points({1.05, 0.983, 0.988, 0.972, 0.988, 1.07, 0.966, 0.992, 3.43, 3.41, 3.42,
                             3.42, 3.44,  3.44,  3.85,  4.48,  6.63, 11.6,  13.1,  13.5, 14,   131,
                             131,  148,   143,   144,   155,   163,  168,   174,   186});
}

TEST(LatencySteps, AShortPlateauInsideARiseIsALevel) {
  for (const bool second : {false, true}) {
    const LatencySteps steps = latency_steps_split(recorded_short_l3_probe(second));
    ASSERT_EQ(steps.caches.size(), 3u) << second;
    EXPECT_NEAR(std::log2(steps.caches[0] / double(48 * KiB)), 0, 0.5) << second;
    EXPECT_NEAR(std::log2(steps.caches[1] / double(1 * MiB)), 0, 0.5) << second;
    EXPECT_GE(steps.caches[2], 4 * MiB) << second;
    EXPECT_LE(steps.caches[2], 6 * MiB) << second;
    EXPECT_TRUE(steps.in_memory.empty()) << second;
  }
}

// A single boundary whose rise wavers (noise, a replacement policy's shape) stays one step: the
// stretch inside grows more than a third as fast as the rise around it.
TEST(LatencySteps, AWaveringRiseIsOneStep) {
  const LatencySteps steps = latency_steps_split(
      probe_points({1, 1, 1, 1, 1, 1, 1, 1, 1.4, 2.2, 2.7, 4.4, 4.5, 4.5, 4.5, 4.5, 4.5, 4.5}));
  ASSERT_EQ(steps.caches.size(), 1u);
}

TEST(LatencySteps, AFlatCurveHasNone) {
  EXPECT_TRUE(latency_steps(curve({}, 80e-9, 64 * MiB)).empty());
}

// The probe as it ran on the 16-core Xeon guest (2026-11-23, machines/h100-host-16c.yaml, the
// fastest of three repetitions, ns per load): L1 48 KiB, L2 2 MiB, then a step near 17.5 MiB,
// far inside the 300 MiB of L3 that hwloc claims.
std::vector<LatencyPoint> recorded_16_core_probe() {
  return probe_points({1.95, 2.01, 1.88, 1.91, 1.87, 1.88, 1.89, 1.91, 5.95, 5.99, 6.17, 6.00, 6.05,
                       6.00, 6.67, 7.34, 7.75, 8.07, 14.6, 36.6, 41.7, 41.6, 43.2, 45.0, 67.2, 123,
                       146,  143,  148,  138,  139,  147,  141,  140,  150,  160,  169});
}

// There one thread's probe stepped at 17.5 MiB while 16 threads still streamed 134 MiB from the
// L3: "dram" lies beyond twice hwloc's claim, not only beyond the probe's step, and the sweep
// reaches it.
TEST(Sizing, TheSixteenCoreNodesDramLiesBeyondHwlocsL3) {
  const Topology node = Topology::from_synthetic(
      "package:1 l3:1(size=314572800) l2:16(size=2097152) l1d:1(size=49152) pu:1");
  const Sizing before = default_sizing(node, usable(125 * GiB, "MemAvailable"));
  const Sizing after = refine_with_probe(before, recorded_16_core_probe());
  ASSERT_EQ(after.levels.size(), 3u);
  EXPECT_EQ(after.levels[2].source, "probe");
  EXPECT_LT(after.levels[2].bytes, 32 * MiB);
  const Topology sized = sized_topology(node, after);
  EXPECT_EQ(after.claimed_last_level_total_bytes(sized), 300 * MiB);
  EXPECT_GE(after.dram_bytes(sized), 600 * MiB);
  EXPECT_GE(after.sweep_max_bytes(sized), after.dram_bytes(sized));
}

// The Zen 5 guest's probe of 2026-11-26 (ns per load): L1 and L2 where hwloc says, then DRAM from
// 12 MiB, inside the 32 MiB of L3 hwloc claims. Sized for 10 MiB, the sweep stopped at 80 MiB and
// two threads streamed its largest sizes at 2.3 times their memory's rate: the sweep and "dram"
// lie beyond the claim as well.
TEST(Sizing, MemoryIsSweptBeyondAClaimTheProbeSawLess) {
  const Topology guest = Topology::from_synthetic(
      "package:1 l3:1(size=33554432) l2:2(size=1048576) l1d:1(size=49152) pu:1");
  const Sizing before = default_sizing(guest, usable(23 * GiB, "MemAvailable"));
  const Sizing after = refine_with_probe(
      before,
      probe_points({0.958, 0.956, 0.950, 0.958, 0.965, 0.965, 0.967, 0.979, 3.38, 3.40, 3.43,
                    3.45,  3.48,  3.44,  3.84,  4.68,  7.07,  9.44,  10.9,  14.0, 13.6, 14.3,
                    14.1,  98.8,  141,   130,   144,   149,   153,   159,   172}));
  ASSERT_EQ(after.levels.size(), 3u);
  EXPECT_EQ(after.levels[2].source, "probe");
  EXPECT_LT(after.levels[2].bytes, 16 * MiB);
  const Topology sized = sized_topology(guest, after);
  EXPECT_EQ(after.dram_side_last_level_bytes(sized), 32 * MiB);
  EXPECT_EQ(after.dram_bytes(sized), 128 * MiB);
  EXPECT_EQ(after.sweep_max_bytes(sized), 256 * MiB);
}

TEST(Sizing, TheVmWhoseL3ClaimIs508MiBIsSizedFromTheData) {
  const Topology vm = fixture("turin-vm-508mib-l3.xml");
  const Sizing before = default_sizing(vm, usable(vm.total_memory_bytes(), "hwloc NUMA memory"));
  // The claim alone would sweep to 8 x 1016 MiB; a quarter of the 5.5 GiB bounds every buffer.
  EXPECT_EQ(before.max_buffer_bytes, vm.total_memory_bytes() / 4 / 4096 * 4096);
  EXPECT_LE(before.sweep_max_bytes(sized_topology(vm, before)), before.max_buffer_bytes);
  EXPECT_FALSE(before.notes.empty());
  const auto probe = probe_working_sets(before, false);
  EXPECT_LE(probe.back(), before.max_buffer_bytes);
  EXPECT_GE(probe.back(), 1 * GiB);  // beyond the claimed 508 MiB, to see there is no step

  // What the probe saw on that guest.
  const Sizing after = refine_with_probe(before, recorded_turin_vm_probe());
  ASSERT_EQ(after.levels.size(), 3u);
  EXPECT_EQ(after.levels[0].source, "hwloc");  // agrees within 2 times
  EXPECT_EQ(after.levels[1].source, "hwloc");
  EXPECT_EQ(after.levels[2].source, "probe");
  EXPECT_EQ(after.levels[2].hwloc_bytes, 508 * MiB);
  EXPECT_LE(after.levels[2].bytes, 24 * MiB);
  EXPECT_EQ(after.memory_steps.size(), 1u);
  ASSERT_EQ(after.notes.size(), before.notes.size() + 1);
  EXPECT_NE(after.notes.back().find("508 MiB"), std::string::npos) << after.notes.back();
  // The sweep's levels follow the data, but "dram" lies beyond twice hwloc's claim (2 x 508 MiB):
  // the one-thread probe cannot rule out that many threads' data fits the claimed L3. Here the
  // quarter of the 5.5 GiB that bounds every buffer stops it first.
  const Topology sized = sized_topology(vm, after);
  EXPECT_EQ(sized.data_caches().back().size_bytes, after.levels[2].bytes);
  EXPECT_EQ(after.claimed_last_level_total_bytes(sized), 1016 * MiB);
  EXPECT_EQ(after.dram_bytes(sized), after.max_buffer_bytes);
  EXPECT_EQ(after.sweep_max_bytes(sized), after.max_buffer_bytes);

  // Round trip through the file the benchmark programs read.
  const Sizing back = sizing_from_json(to_json(after), "sizing.json");
  EXPECT_EQ(back.levels[2].bytes, after.levels[2].bytes);
  EXPECT_EQ(back.notes, after.notes);
  EXPECT_EQ(back.effort, after.effort);
}

TEST(Sizing, ExtraStepsAndMissingLevelsAreSaidNotGuessed) {
  const Topology vm = fixture("amd-epyc-2core-vm.xml");  // L1d 48 KiB, L2 1 MiB, L3 32 MiB
  const Sizing before = default_sizing(vm, usable(16 * GiB));
  // A TLB step at 256 KiB beside the three caches: it matches none of them.
  const Sizing tlb = refine_with_probe(
      before, curve({{48 * KiB, 1e-9}, {256 * KiB, 2.5e-9}, {1 * MiB, 4e-9}, {32 * MiB, 12e-9}},
                    100e-9, 256 * MiB));
  ASSERT_EQ(tlb.extra_steps.size(), 1u);
  EXPECT_NEAR(std::log2(tlb.extra_steps[0] / double(256 * KiB)), 0, 0.5);
  for (const LevelCapacity& level : tlb.levels) EXPECT_EQ(level.source, "hwloc") << level.name;
  // No step for the L3 anywhere in a probe that reached far beyond it.
  const Sizing missing =
      refine_with_probe(before, curve({{48 * KiB, 1e-9}, {1 * MiB, 4e-9}}, 100e-9, 256 * MiB));
  EXPECT_FALSE(missing.levels[2].seen);
  EXPECT_EQ(sized_topology(vm, missing).data_caches().size(), 2u);
}

TEST(Sizing, MalformedSizingFilesAreRefusedWithTheKey) {
  const Sizing good = default_sizing(fixture("amd-epyc-2core-vm.xml"), usable(8 * GiB));
  nlohmann::json json = to_json(good);
  json["levels"][0].erase("bytes");
  try {
    sizing_from_json(json, "run/sizing.json");
    FAIL() << "accepted a level without bytes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run/sizing.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("levels[].bytes"), std::string::npos) << e.what();
  }
  json = to_json(good);
  json["effort"]["repetitions"] = 0;
  EXPECT_THROW(sizing_from_json(json, "s.json"), Error);
}

TEST(Sizing, ThreadCountsThinToTheEffortKeepingOneTwoAndAll) {
  Sizing sizing;
  EXPECT_EQ(sizing.thread_counts(128), (std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64, 128}));
  sizing.effort.max_thread_counts = 4;
  const auto four = sizing.thread_counts(128);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four.front(), 1u);
  EXPECT_EQ(four[1], 2u);
  EXPECT_EQ(four.back(), 128u);
  EXPECT_EQ(sizing.thread_counts(2), (std::vector<unsigned>{1, 2}));
}

// Every fixture, as it comes and under a 4 GiB cgroup limit: the plan is accepted, every buffer
// of every benchmark fits the memory the process may use, and the estimate fits the budget.
struct Machine {
  const char* fixture;
  std::uint64_t memory;  // what the OS says is available
};

class FixturePlans : public ::testing::TestWithParam<Machine> {};

TEST_P(FixturePlans, FitTheMemoryAndTheBudget) {
  const Topology topology = fixture(GetParam().fixture);
  for (const std::uint64_t cgroup : {std::uint64_t{0}, 4 * GiB}) {
    MemoryReadings readings;
    readings.os_available_bytes = GetParam().memory;
    if (cgroup > 0) {
      readings.cgroup_limit_bytes = cgroup;
      readings.cgroup_usage_bytes = 0;
      readings.cgroup_path = "/sys/fs/cgroup/job/memory.max";
    }
    const UsableMemory memory = usable_memory(readings, topology.total_memory_bytes());
    const Sizing sizing = default_sizing(topology, memory);
    SuiteSelection selection;
    for (const bool quick : {false, true}) {
      selection.memory.common.quick = quick;
      const double budget = quick ? 60 : 600;
      const RunPlan plan = plan_run(selection, topology, sizing, budget, true);
      SCOPED_TRACE(format_plan(plan, topology));
      EXPECT_TRUE(plan.fits()) << GetParam().fixture << " cgroup " << cgroup << " quick " << quick;
      EXPECT_GT(plan.parts.size(), 8u);
      const Topology sized = sized_topology(topology, plan.sizing);
      EXPECT_LE(plan.sizing.sweep_max_bytes(sized), memory.bytes / 4);
      EXPECT_LE(plan.sizing.dram_bytes(sized), memory.bytes / 4);
      for (std::uint64_t bytes : probe_working_sets(plan.sizing, quick)) {
        EXPECT_LE(bytes, memory.bytes / 4);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RecordedAndSynthetic, FixturePlans,
                         ::testing::Values(Machine{"turin-vm-508mib-l3.xml", 23 * GiB},
                                           Machine{"amd-epyc-2core-vm.xml", 23 * GiB},
                                           Machine{"two-socket-128-core-8-numa.xml", 500 * GiB},
                                           Machine{"vcache-1152mib-l3.xml", 380 * GiB},
                                           Machine{"hbm-node.xml", 380 * GiB},
                                           Machine{"no-l3.xml", 30 * GiB}),
                         [](const ::testing::TestParamInfo<Machine>& info) {
                           std::string name = info.param.fixture;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(RunPlan, AColumnWalkIsEstimatedWithTheTouchOfEveryThreadsMatrix) {
  // Two threads each touch a 1 GiB matrix once: 2 GiB at 2 ns a byte, 4.3 s, before any walk.
  const nlohmann::json walk = {
      {"kernel", "column_read"}, {"working_set_bytes", 1073741824}, {"threads", 2}};
  const double seconds = estimate_benchmark_seconds(walk, 3, 0.03);
  EXPECT_GT(seconds, 2.0 * 1073741824 * 2e-9);
  EXPECT_LT(seconds, 2.0 * 1073741824 * 2e-9 + 1.0);
}

TEST(RunPlan, ABudgetTooShortIsNotMet) {
  const Topology topology = fixture("two-socket-128-core-8-numa.xml");
  const Sizing sizing = default_sizing(topology, usable(64 * GiB));
  const RunPlan plan = plan_run({}, topology, sizing, 5, true);
  EXPECT_FALSE(plan.fits());
  EXPECT_EQ(plan.sizing.effort.name, effort_ladder().back().name);
  EXPECT_EQ(plan.efforts_tried.size(), effort_ladder().size() - 1);
}

TEST(RunPlan, LessEffortMeansAShorterEstimate) {
  const Topology topology = fixture("amd-epyc-2core-vm.xml");
  Sizing sizing = default_sizing(topology, usable(16 * GiB));
  double previous = 1e30;
  for (const Effort& effort : effort_ladder()) {
    sizing.effort = effort;
    const double seconds = plan_run_at_effort({}, topology, sizing, 1e9, false).total_seconds();
    EXPECT_LT(seconds, previous) << effort.name;
    previous = seconds;
  }
}

TEST(RunPlan, LauncherRanksAndDurations) {
  EXPECT_EQ(launcher_ranks({"mpirun", "-np", "64", "--hostfile", "h"}), 64);
  EXPECT_EQ(launcher_ranks({"srun", "--ntasks=256"}), 256);
  EXPECT_EQ(launcher_ranks({"srun"}), std::nullopt);
  EXPECT_EQ(format_duration(245), "4m05s");
  EXPECT_EQ(format_duration(12), "12s");
}

}  // namespace
}  // namespace sonde::microbench
