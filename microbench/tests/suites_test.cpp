// The overhead and compute suites' plans and kernels, and how `characterize` routes suites and
// parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "characterize/characterize.hpp"
#include "core/error.hpp"
#include "microbench/compute/compute_kernels.hpp"
#include "microbench/compute/compute_suite.hpp"
#include "microbench/compute/shared_ports.hpp"
#include "microbench/contention/contention_suite.hpp"
#include "microbench/overhead/overhead_suite.hpp"

namespace sonde::microbench {
namespace {

using namespace characterize;  // the plan and the suites it runs are tested with the harness

constexpr const char* kBigMachine =
    "pack:2 numa:2(memory=68719476736) l3:4(size=33554432) l2:4(size=1048576) "
    "l1d:1(size=49152) core:1 pu:2";

TEST(KernelLibrary, FollowsXuHwangFlopRules) {
  // Xu and Hwang (1995), Table 1: +, -, * count 1; divide and sqrt 4; exp and sin 8; a
  // conversion 1.
  std::map<std::string_view, unsigned> rule;
  for (const OperationInfo& info : operations()) rule[info.name] = info.counted_flops;
  EXPECT_EQ(rule.at("add"), 1u);
  EXPECT_EQ(rule.at("multiply"), 1u);
  EXPECT_EQ(rule.at("divide"), 4u);
  EXPECT_EQ(rule.at("sqrt"), 4u);
  EXPECT_EQ(rule.at("exp"), 8u);
  EXPECT_EQ(rule.at("sin"), 8u);
  EXPECT_EQ(rule.at("int_to_double"), 1u);
  // A fused multiply-add is a multiply and an add; log an intrinsic like exp; a conversion either
  // way 1; integer operations, calls and branches are no floating-point operations.
  EXPECT_EQ(rule.at("fma"), 2u);
  EXPECT_EQ(rule.at("log"), 8u);
  EXPECT_EQ(rule.at("double_to_int"), 1u);
  EXPECT_EQ(rule.at("int_multiply"), 0u);
  EXPECT_EQ(rule.at("indirect_call"), 0u);
  EXPECT_EQ(rule.at("branch_mispredict"), 0u);
  EXPECT_EQ(rule.at("store_load"), 0u);
  EXPECT_EQ(operations().size(), 14u);
}

TEST(KernelLibrary, ChainsComputeWhatTheySay) {
  EXPECT_NEAR(run_latency_chain(Operation::add, 1000), 0.5 + 1000 * 1e-9, 1e-12);
  EXPECT_DOUBLE_EQ(run_latency_chain(Operation::divide, 1000), 0.5);  // c / (c / x) = x
  EXPECT_DOUBLE_EQ(run_latency_chain(Operation::int_to_double, 1000), 1000.0);
  EXPECT_DOUBLE_EQ(run_latency_chain(Operation::indirect_call, 1000), 1000.5);
  // exp(-x) converges to the omega constant, sin(x) + 1 to its fixed point near 1.935.
  EXPECT_NEAR(run_latency_chain(Operation::exp, 1000), 0.567143290409784, 1e-12);
  const double s = run_latency_chain(Operation::sin, 1000);
  EXPECT_NEAR(s, std::sin(s) + 1.0, 1e-9);
  double expected = 0;
  for (unsigned k = 0; k < kThroughputChains; ++k) expected += 0.5 + 0.01 * k + 1000;
  EXPECT_NEAR(run_throughput_chains(Operation::indirect_call, 1000), expected, 1e-9);
}

TEST(KernelLibrary, NewChainsComputeWhatTheySay) {
  // fma: x = x * 0.999999 + 1e-6, one rounding a step (std::fma is exact in any implementation).
  double f = 0.5;
  for (int i = 0; i < 1000; ++i) f = std::fma(f, 0.999999, 1e-6);
  EXPECT_EQ(run_latency_chain(Operation::fma, 1000), f);
  // log(x) + 2 converges to its fixed point near 3.146.
  const double l = run_latency_chain(Operation::log, 1000);
  EXPECT_NEAR(l, std::log(l) + 2.0, 1e-9);
  EXPECT_TRUE(std::isfinite(run_throughput_chains(Operation::log, 1000)));
  // The integer multiply chain: 1000 multiplications by the odd constant, modulo 2^64.
  std::uint64_t n = 1;
  for (int i = 0; i < 1000; ++i) n *= 0x9E3779B97F4A7C15ull;
  EXPECT_EQ(run_latency_chain(Operation::int_multiply, 1000), static_cast<double>(n >> 11));
  // double to int: the chain counts its steps; each throughput chain sums trunc(x0 + i) = i for
  // i = 1 .. 1000, 500500, over eight chains.
  EXPECT_EQ(run_latency_chain(Operation::double_to_int, 1000), 1000.0);
  EXPECT_EQ(run_throughput_chains(Operation::double_to_int, 1000), 8 * 500500.0);
  // store_load: each value comes back unchanged from its slot, 0.5 on the one chain, 0.5 + 0.01 k
  // on chain k.
  EXPECT_EQ(run_latency_chain(Operation::store_load, 1000), 0.5);
  double start = 0;
  for (unsigned k = 0; k < kThroughputChains; ++k) start += 0.5 + 0.01 * k;
  EXPECT_DOUBLE_EQ(run_throughput_chains(Operation::store_load, 1000), start);
}

TEST(SharedPorts, EachRoleUpdatesTheRowsItSays) {
  // y[j] += 1e-3 b[j] + 2e-3 c[j], b[j] = 1 + j, c[j] = 2 j, b and c walking by the width (0, 16,
  // ..., back to 0 where the next segment would not fit), y by the width each row of
  // kSharedPortsRowSteps steps (each step for the stream). The same loop written plainly, scalar,
  // is the reference; 100 steps make rows.
  constexpr std::uint64_t steps = 100;
  for (const SharedPortsRole role :
       {SharedPortsRole::chain, SharedPortsRole::stream, SharedPortsRole::both}) {
    for (const unsigned width : {16u, 24u}) {
      SharedPortsArrays arrays;
      for (unsigned j = 0; j < kSharedPortsArrayDoubles; ++j) {
        arrays.b()[j] = 1.0 + j;
        arrays.c()[j] = 2.0 * j;
      }
      std::vector<double> y(kSharedPortsArrayDoubles, 0.0);
      const unsigned wide = role == SharedPortsRole::chain ? kSharedPortsChainDoubles : width;
      unsigned at = 0, row = 0;
      for (std::uint64_t i = 0; i < steps; ++i) {
        const unsigned segment = role == SharedPortsRole::stream ? at : row;
        for (unsigned j = 0; j < wide; ++j) {
          y[segment + j] = y[segment + j] + 1e-3 * (1.0 + at + j) + 2e-3 * (2.0 * (at + j));
        }
        at = at + 2 * wide > kSharedPortsArrayDoubles ? 0 : at + wide;
        if ((i + 1) % kSharedPortsRowSteps == 0) {
          row = row + 2 * wide > kSharedPortsArrayDoubles ? 0 : row + wide;
        }
      }
      EXPECT_DOUBLE_EQ(run_shared_ports(role, width, steps, arrays), y[0]);
      for (unsigned j = 0; j < kSharedPortsArrayDoubles; ++j) {
        ASSERT_DOUBLE_EQ(arrays.y()[j], y[j]) << to_string(role) << " " << width << " " << j;
      }
      // Nothing written past y's own doubles (the stagger before b stays zero), b and c untouched.
      for (unsigned j = kSharedPortsArrayDoubles; j < SharedPortsArrays::kStrideDoubles; ++j) {
        ASSERT_EQ(arrays.storage[j], 0.0) << j;
      }
      EXPECT_EQ(arrays.b()[7], 8.0);
      EXPECT_EQ(arrays.c()[7], 14.0);
    }
  }
}

TEST(KernelLibrary, BranchesOnRandomBitsAreTakenHalfTheTime) {
  // Latency: the result is the steps plus the branches not taken; random bits take half.
  const double steps = 100000;
  const double latency = run_latency_chain(Operation::branch_mispredict, 100000);
  EXPECT_GE(latency, steps);
  EXPECT_LE(latency, 2 * steps);
  EXPECT_NEAR((latency - steps) / steps, 0.5, 0.02);
  // Throughput: the branches taken of 8 a step.
  const double taken = run_throughput_chains(Operation::branch_mispredict, 100000);
  EXPECT_NEAR(taken / (kThroughputChains * steps), 0.5, 0.02);
  // Calls read on through the bits rather than repeating the same ones each time: of ten short
  // calls, not all take the same number of branches.
  std::set<double> counts;
  for (int i = 0; i < 10; ++i)
    counts.insert(run_throughput_chains(Operation::branch_mispredict, 64));
  EXPECT_GT(counts.size(), 1u);
}

TEST(PeakKernel, EveryUnitComputesTheSameRecurrence) {
  const std::vector<FmaUnit> units = available_fma_units();
  ASSERT_FALSE(units.empty());
  EXPECT_EQ(units.back().name, "scalar") << "the portable unit is always there";
  for (const FmaUnit& unit : units) {
    // Accumulator j starts at 1 + j in every lane: the sum is lanes * 78 before any round.
    EXPECT_DOUBLE_EQ(run_peak_kernel(unit, 0), unit.vector_doubles * 78.0) << unit.name;
    const double one_round = unit.vector_doubles * (78.0 * 0.999999 + 12 * 1e-6);
    EXPECT_NEAR(run_peak_kernel(unit, 1), one_round, 1e-12 * one_round) << unit.name;
    EXPECT_TRUE(std::isfinite(run_peak_kernel(unit, 100000))) << unit.name;
  }
}

// A machine with room for every default size.
Sizing roomy() {
  Sizing sizing;
  sizing.usable = {64ull << 30, "test", {}};
  sizing.max_buffer_bytes = 16ull << 30;
  return sizing;
}

TEST(OverheadPlan, ThreadCountsDoubleUpToAllCores) {
  const OverheadSuitePlan big =
      plan_overhead_suite({}, Topology::from_synthetic(kBigMachine), roomy());
  EXPECT_EQ(big.thread_counts, (std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(big.parts, (std::vector<std::string>{"process", "pipe", "sync"}));
  EXPECT_TRUE(big.two_cores);
  CommonOptions quick;
  quick.quick = true;
  quick.parts = {"sync"};
  const OverheadSuitePlan small =
      plan_overhead_suite(quick, Topology::from_synthetic("core:3 pu:1"), roomy());
  EXPECT_EQ(small.thread_counts, (std::vector<unsigned>{1, 2, 3}));
  EXPECT_EQ(small.parts, std::vector<std::string>{"sync"});
  EXPECT_EQ(small.repetitions, 2);
}

TEST(Contention, ExperimentsAreNamedInAmatoStyle) {
  EXPECT_EQ(experiment_code({1, 1, "l1", false, false}), "p1.s1.l1.LE");
  EXPECT_EQ(experiment_code({8, 256, "dram", true, true}), "p8.s256.dram.SC");
  EXPECT_EQ(experiment_code({2, 32, "l2", true, false}), "p2.s32.l2.SE");
}

TEST(Contention, SubArraysAreSizedForTheirLevel) {
  const Topology vm = Topology::from_xml_file("microbench/tests/fixtures/amd-epyc-2core-vm.xml");
  EXPECT_EQ(sub_array_bytes(vm, "l1", 2, false, 128u << 20), 24u << 10);  // half of a private L1
  EXPECT_EQ(sub_array_bytes(vm, "l2", 1, true, 128u << 20), 512u << 10);
  EXPECT_EQ(sub_array_bytes(vm, "l3", 1, false, 128u << 20),
            16u << 20);  // the shared L3: half of it
  EXPECT_EQ(sub_array_bytes(vm, "l3", 2, false, 128u << 20),
            8u << 20);  // split between two threads
  EXPECT_EQ(sub_array_bytes(vm, "l3", 2, true, 128u << 20), 16u << 20);  // one array for both
  EXPECT_EQ(sub_array_bytes(vm, "dram", 2, false, 128u << 20), 64u << 20);
  EXPECT_EQ(sub_array_bytes(vm, "dram", 2, true, 128u << 20), 128u << 20);
  // 64 threads reach all sixteen 32 MiB slices of the big machine.
  const Topology big = Topology::from_synthetic(kBigMachine);
  EXPECT_EQ(sub_array_bytes(big, "l3", 64, true, 2048u << 20), 256u << 20);
  // Never larger than memory's sub-array, which the buffer allowance bounds.
  EXPECT_EQ(sub_array_bytes(big, "l3", 64, true, 128u << 20), 128u << 20);
  EXPECT_EQ(sub_array_bytes(vm, "l3", 2, false, 8u << 20), 4u << 20);
  EXPECT_EQ(sub_array_bytes(big, "l3", 4, false, 128u << 20), 4u << 20);
  EXPECT_THROW(sub_array_bytes(big, "l7", 1, false, 128u << 20), Error);
}

TEST(Contention, PlanCoversTable1AndSaysWhatItSkips) {
  const ContentionSuitePlan plan =
      plan_contention_suite({}, Topology::from_synthetic(kBigMachine), roomy());
  EXPECT_EQ(plan.strides, (std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(plan.levels, (std::vector<std::string>{"l1", "l2", "l3", "dram"}));
  EXPECT_EQ(plan.thread_counts, (std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(plan.parts,
            (std::vector<std::string>{"access", "one-word", "false-sharing", "coherence", "numa"}));
  // Four nodes; the NUMA working set is four times the whole L3 (16 x 32 MiB), capped at 1 GiB.
  EXPECT_EQ(plan.numa_nodes, 4u);
  EXPECT_EQ(plan.numa_bytes, 1ull << 30);
  const ContentionSuitePlan one =
      plan_contention_suite({}, Topology::from_synthetic("core:1 pu:1"), roomy());
  EXPECT_EQ(one.parts, (std::vector<std::string>{"access", "one-word"}));
  EXPECT_NE(std::find(one.skipped_parts.begin(), one.skipped_parts.end(),
                      "numa: one NUMA node, no remote memory to measure"),
            one.skipped_parts.end());
}

TEST(PlanSuites, PartsPickTheirSuites) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  SuiteSelection selection;
  EXPECT_EQ(plan_suites(selection, topology, roomy()).size(), 4u);

  selection.memory.common.parts = {"stride", "sync"};
  const std::vector<SuiteRun> runs = plan_suites(selection, topology, roomy());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].suite, "memory");
  EXPECT_EQ(runs[0].parts, std::vector<std::string>{"stride"});
  EXPECT_EQ(runs[0].program, "sonde-bench-memory");
  EXPECT_EQ(runs[1].suite, "overhead");
  EXPECT_EQ(runs[1].parts, std::vector<std::string>{"sync"});
  for (const SuiteRun& run : runs) {
    for (const std::string& argument : run.arguments) {
      EXPECT_EQ(argument.rfind("--part", 0), std::string::npos) << "parts go per invocation";
    }
  }

  selection.memory.common.parts = {};
  selection.suites = {"compute"};
  ASSERT_EQ(plan_suites(selection, topology, roomy()).size(), 1u);
  EXPECT_EQ(plan_suites(selection, topology, roomy())[0].parts,
            (std::vector<std::string>{"peak", "kernels", "shared_ports"}));
}

TEST(PlanSuites, AskedCollectiveSizesGoToTheMpiSuiteAlone) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  SuiteSelection selection;
  selection.mpi = true;
  selection.collective_bytes = {32768, 24576};
  bool mpi = false;
  for (const SuiteRun& run : plan_suites(selection, topology, roomy())) {
    const bool asked = std::find(run.arguments.begin(), run.arguments.end(),
                                 "--collective-bytes=32768,24576") != run.arguments.end();
    EXPECT_EQ(asked, run.suite == "mpi") << run.suite;
    mpi = mpi || run.suite == "mpi";
  }
  EXPECT_TRUE(mpi);
}

TEST(PlanSuites, UnknownSuitesAndPartsAreUsageErrors) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  SuiteSelection selection;
  selection.suites = {"network"};
  EXPECT_THROW(plan_suites(selection, topology, roomy()), Error);
  selection.suites = {"compute"};
  selection.memory.common.parts = {"stride"};  // a memory part, but memory is not selected
  try {
    plan_suites(selection, topology, roomy());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("unknown part 'stride'; the parts are peak, kernels"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sonde::microbench
