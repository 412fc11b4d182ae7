// The resource model of a component (predict/predictor.cpp, component_cost) and of communication,
// on a small made-up profile whose every figure is round, so that each expected time below is
// worked out by hand in its comment.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "predict/predictor.hpp"
#include "predict/workload.hpp"

namespace sonde::predict {
namespace {

profile::Quantity q(double value, const char* unit, double low, double high) {
  profile::Quantity out;
  out.value = value;
  out.unit = unit;
  out.interval = profile::Interval{low, high, 1};
  return out;
}

profile::Quantity q(double value, const char* unit) { return q(value, unit, value, value); }

// One node of 2 cores: a core's peak 10 Gflop/s [9 .. 11], the node's 16; L1d 32 KiB, L2 1 MiB
// (private), L3 8 MiB (shared), DRAM; triad bandwidth L2 100 GB/s [90 .. 110] with one thread and
// 200 with two, DRAM 20 GB/s with one and 30 [27 .. 33] with two; an update in place in DRAM 25
// GB/s with one thread (none measured in the caches); the indexed kernel (a sparse product) 40
// GB/s in L1d and 10 in DRAM with one thread; the stencil kernel 40 GB/s in L3 with one thread;
// latency L2 4 ns, DRAM 100 ns;
// column walks and line gathers as stated below.
profile::Profile made_up_node() {
  profile::Profile p;
  p.machine.name = "made-up";
  p.machine.nodes = 1;
  p.machine.cores_per_node = 2;
  p.compute.peak_flops_per_core = q(10e9, "flop/s", 9e9, 11e9);
  p.compute.peak_flops_per_node = q(16e9, "flop/s");
  p.compute.kernels["fma.throughput"] = q(0.5e-9, "s");
  p.compute.kernels["fma.latency"] = q(2e-9, "s", 1.9e-9, 2.1e-9);
  p.compute.kernels["add.latency"] = q(1e-9, "s");
  profile::MemoryLevel l1, l2, l3, dram;
  l1.name = "L1d";
  l1.capacity_bytes = 32768;
  l1.bandwidth["triad/1"] = q(400e9, "B/s");
  l1.bandwidth["read/1"] = q(256e9, "B/s");
  l1.bandwidth["write/1"] = q(128e9, "B/s");
  l1.bandwidth["indexed/1"] = q(40e9, "B/s");
  l2.name = "L2";
  l2.capacity_bytes = 1048576;
  l2.latency = q(4e-9, "s");
  l2.bandwidth["triad/1"] = q(100e9, "B/s", 90e9, 110e9);
  l2.bandwidth["triad/2"] = q(200e9, "B/s");
  l3.name = "L3";
  l3.capacity_bytes = 8388608;
  l3.bandwidth["triad/1"] = q(50e9, "B/s");
  l3.bandwidth["stencil/1"] = q(40e9, "B/s", 36e9, 44e9);
  dram.name = "DRAM";
  dram.latency = q(100e-9, "s");
  dram.bandwidth["triad/1"] = q(20e9, "B/s");
  dram.bandwidth["triad/2"] = q(30e9, "B/s", 27e9, 33e9);
  dram.bandwidth["update/1"] = q(25e9, "B/s");
  dram.bandwidth["indexed/1"] = q(10e9, "B/s");
  p.memory = {l1, l2, l3, dram};
  // Column walks: with one thread 2 ns a load over 1 MiB, 8 ns [7 .. 9] over 16 MiB; with two
  // threads 12 ns over 16 MiB.
  p.column_walk = {{1, 1048576, 16384, q(2e-9, "s")},
                   {1, 16777216, 16384, q(8e-9, "s", 7e-9, 9e-9)},
                   {2, 16777216, 16384, q(12e-9, "s")}};
  // Line gathers from a 256 MiB buffer, the sum: with one thread 3 ns a line [2.8 .. 3.2] in
  // spans of 4 KiB, 12 ns in spans of 1 MiB (and 16 ns over the whole 256 MiB); with two threads
  // 5 ns in spans of 4 KiB. The copy: 7 ns a line in spans of 4 KiB with one thread.
  p.line_gather = {{"copy", 1, 268435456, 4096, q(7e-9, "s")},
                   {"sum", 1, 268435456, 4096, q(3e-9, "s", 2.8e-9, 3.2e-9)},
                   {"sum", 1, 268435456, 1048576, q(12e-9, "s")},
                   {"sum", 1, 268435456, 268435456, q(16e-9, "s")},
                   {"sum", 2, 134217728, 4096, q(5e-9, "s")}};
  // Ping-pong: t = 1 us [0.9 .. 1.1] + m / 1 GB/s [0.8 .. 1.25].
  profile::PointToPoint p2p;
  profile::HockneySegment segment;
  segment.to_bytes = INFINITY;
  segment.t0 = q(1e-6, "s", 0.9e-6, 1.1e-6);
  segment.r_inf = q(1e9, "B/s", 0.8e9, 1.25e9);
  p2p.segments = {segment};
  p.point_to_point = p2p;
  // A shift (MPI_Sendrecv around a ring) measured at n = 2 only: 2 us at 1000 B, 6 us at 17000 B.
  profile::Collective shift;
  shift.ranks = {2};
  shift.measurements.push_back({2, 1000, q(2e-6, "s", 1.8e-6, 2.2e-6)});
  shift.measurements.push_back({2, 17000, q(6e-6, "s", 5.8e-6, 6.2e-6)});
  p.collectives["shift"] = shift;
  return p;
}

// `body` must throw a sonde Error whose message holds `text`.
template <typename Body>
void expect_error_naming(Body body, const std::string& text) {
  try {
    body();
    ADD_FAILURE() << "no error; expected one naming " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

Predictor predictor(const std::string& csv) {
  return Predictor(parse_workload(csv, "model.csv"), made_up_node(), "made-up.yaml");
}

// A triad a = b + s c over N points, K sweeps, `dop` processes each holding N / dop of them.
std::string triad(const std::string& n_points, const std::string& sweeps, const std::string& dop) {
  const std::string per_process = dop == "1" ? "24*N" : "24*N/n";
  return "kind,name,value,work [flop],traffic [B],access,working set [B],dop\n"
         "parameter,N," +
         n_points +
         ",,,,,\n"
         "parameter,K," +
         sweeps +
         ",,,,,\n"
         "component,triad,,2*N*K,24*N*K,triad," +
         per_process + "," + dop + "\n";
}

TEST(CostModel, ATriadInL2IsBoundByL2Bandwidth) {
  // N = 10^4 doubles, 1000 sweeps on one process: a working set of 240 kB, in L2 (not the 32 KiB
  // L1d). Traffic 24 N K = 2.4e8 B at 100 GB/s = 2.4 ms; work 2e7 flop at 10 Gflop/s = 2 ms.
  // The roofline takes the larger: 2.4 ms, [2.4e8 / 110e9 = 2.18 .. 2.4e8 / 90e9 = 2.67] ms.
  const Point p = predictor(triad("1e4", "1000", "1")).at(1, Scheme::full_overhead);
  ASSERT_EQ(p.costs.size(), 1u);
  EXPECT_NEAR(p.total, 2.4e-3, 1e-12);
  EXPECT_EQ(p.costs[0].level, "L2");
  EXPECT_EQ(p.costs[0].bound, "L2 bandwidth (triad, 1 sharing)");
  ASSERT_TRUE(p.total_range);
  EXPECT_NEAR(p.total_range->low, 2.4e8 / 110e9, 1e-12);
  EXPECT_NEAR(p.total_range->high, 2.4e8 / 90e9, 1e-12);
}

TEST(CostModel, ATriadInMemoryIsBoundByMemoryBandwidth) {
  // N = 10^6: 24 MB, more than L3's 8 MiB: DRAM. 2.4e8 B at 20 GB/s = 12 ms; work 2 ms.
  const Point p = predictor(triad("1e6", "10", "1")).at(1, Scheme::full_overhead);
  EXPECT_NEAR(p.total, 12e-3, 1e-12);
  EXPECT_EQ(p.costs[0].level, "DRAM");
  EXPECT_EQ(p.costs[0].bound, "DRAM bandwidth (triad, 1 sharing)");
}

// A row that does nothing at a process count (its counts times (n<2), as the transpose's self
// block) costs 0 and says so, where the other rows' bounds stand beside it.
TEST(CostModel, ARowWithNoWorkAtThisNIsBoundByNothing) {
  const std::string csv =
      "kind,name,value,work [flop],traffic [B],access,working set [B],dop\n"
      "parameter,N,1e6,,,,,\n"
      "component,self,,0,24*N*(n<2),triad,24*N,1\n";
  const Predictor model = predictor(csv);
  EXPECT_NEAR(model.at(1, Scheme::full_overhead).costs[0].seconds, 2.4e7 / 20e9, 1e-9);
  const Point two = model.at(2, Scheme::full_overhead);
  EXPECT_EQ(two.costs[0].seconds, 0);
  EXPECT_EQ(two.costs[0].bound, "no work at this n");
}

TEST(CostModel, AnUpdateInPlaceIsCostedAtTheUpdateKernelsBandwidth) {
  // y += a x over N = 10^6 doubles, 10 sweeps: 24 MB in DRAM, 2.4e8 B as STREAM counts them. At
  // the update kernel's 25 GB/s: 9.6 ms, where the triad's 20 GB/s (which pays a write-allocate
  // read the update does not) would give 12 ms.
  const std::string sheet =
      "kind,name,value,work [flop],traffic [B],access,working set [B],dop\n"
      "parameter,N,1e6,,,,,\n"
      "component,axpy,,2*N*10,24*N*10,update,24*N,1\n";
  const Point p = predictor(sheet).at(1, Scheme::full_overhead);
  EXPECT_NEAR(p.total, 9.6e-3, 1e-12);
  EXPECT_EQ(p.costs[0].bound, "DRAM bandwidth (update, 1 sharing)");
  // In L2 the made-up node has no update measured: the key is named, nothing is substituted.
  std::string small = sheet;
  small.replace(small.find("1e6"), 3, "1e4");
  expect_error_naming([&] { predictor(small).at(1, Scheme::full_overhead); },
                      "memory.L2.bandwidth.update/1: absent; component 'axpy'");
}

TEST(CostModel, TwoProcessesShareTheNodesMemoryBandwidth) {
  // N = 2e6 points over n processes, 10 sweeps: 4.8e8 B in all. One process: 4.8e8 / 20e9 = 24
  // ms. Two on the node: each moves 2.4e8 B at its half of the two-thread 30 GB/s: 16 ms, a
  // speedup of 1.5, not 2.
  const Predictor shared = predictor(triad("2e6", "10", "n"));
  EXPECT_NEAR(shared.at(1, Scheme::full_overhead).total, 24e-3, 1e-12);
  const Point two = shared.at(2, Scheme::full_overhead);
  EXPECT_DOUBLE_EQ(two.processes_per_node, 2);
  EXPECT_NEAR(two.total, 16e-3, 1e-12);
  EXPECT_EQ(two.costs[0].bound, "DRAM bandwidth (triad, 2 sharing)");
  EXPECT_NEAR(two.total_range->low, 2.4e8 / 16.5e9, 1e-12);
  // Placed one per node, each has a node's one-thread bandwidth: 2.4e8 / 20e9 = 12 ms.
  const Predictor spread =
      predictor(triad("2e6", "10", "n") + "placement,processes per node,1,,,,,\n");
  const Point apart = spread.at(2, Scheme::full_overhead);
  EXPECT_DOUBLE_EQ(apart.processes_per_node, 1);
  EXPECT_NEAR(apart.total, 12e-3, 1e-12);
}

// Threads split their process's share and share the node as processes do (a hybrid program:
// `threads per process` T).
TEST(CostModel, ThreadsShareTheNodeAsProcessesDo) {
  const std::string sheet =
      "kind,name,value,work [flop],traffic [B],access,working set [B],dop\n"
      "parameter,N,2e6,,,,,\n"
      "parameter,T,2,,,,,\n"
      "component,triad,,2*N*10,24*N*10,triad,24*N/n,n*T\n"
      "placement,threads per process,T,,,,,\n";
  const Predictor hybrid = predictor(sheet);
  // One process of two threads: each thread moves half of 4.8e8 B at its half of the two-thread
  // 30 GB/s: 2.4e8 / 15e9 = 16 ms, as two processes of one thread each.
  const Point one = hybrid.at(1, Scheme::full_overhead);
  EXPECT_DOUBLE_EQ(one.threads_per_process, 2);
  EXPECT_DOUBLE_EQ(one.processes_per_node, 1);
  EXPECT_NEAR(one.total, 16e-3, 1e-12);
  EXPECT_EQ(one.costs[0].bound, "DRAM bandwidth (triad, 2 sharing)");
  // T_1 stays the sequential time, one thread's 4.8e8 / 20e9 = 24 ms: S_1 = 1.5 on two threads,
  // E_1 = S_1 / (1 x 2) = 0.75.
  EXPECT_NEAR(hybrid.summary().t1, 24e-3, 1e-12);
  EXPECT_NEAR(one.speedup, 1.5, 1e-9);
  EXPECT_NEAR(one.efficiency, 0.75, 1e-9);
  // Two processes of two threads: the default fills a 2-core node with one process (a core per
  // thread), so each node's two threads move a quarter each: 1.2e8 / 15e9 = 8 ms.
  const Point two = hybrid.at(2, Scheme::full_overhead);
  EXPECT_DOUBLE_EQ(two.processes_per_node, 1);
  EXPECT_NEAR(two.total, 8e-3, 1e-12);

  // A private cache holds a thread's part of its process's working set: N = 2e4 on one process of
  // two threads is 480 kB, 240 kB a thread, in each core's 1 MiB L2 (at 100 GB/s a thread, 2.4e8 B
  // each for K = 1000: 2.4 ms; work 2e7 each at the node's 16 Gflop/s over two: 2.5 ms).
  std::string small = sheet;
  small.replace(small.find("2e6"), 3, "2e4");
  small.replace(small.find("2*N*10,24*N*10"), 14, "2*N*1000,24*N*1000");
  const Point cached = predictor(small).at(1, Scheme::full_overhead);
  EXPECT_EQ(cached.costs[0].level, "L2");
  EXPECT_NEAR(cached.total, 2.5e-3, 1e-12);

  // Starting the team: T - 1 = 1 thread creation a process at 20 us, at one process too (one
  // process sends no message, but it does start its threads).
  profile::Profile with_team = made_up_node();
  with_team.overheads.operations["thread_creation"] = q(20e-6, "s");
  const Predictor team(
      parse_workload("kind,name,value,work [flop],traffic [B],access,working set [B],dop,operation,"
                     "count,after\n"
                     "parameter,N,2e6,,,,,,,,\n"
                     "parameter,T,2,,,,,,,,\n"
                     "component,triad,,2*N*10,24*N*10,triad,24*N/n,n*T,,,\n"
                     "placement,threads per process,T,,,,,,,,\n"
                     "parallelism,team,,,,,,,thread_creation,T-1,triad\n",
                     "team.csv"),
      with_team, "made-up.yaml");
  const Point started = team.at(1, Scheme::full_overhead);
  EXPECT_NEAR(started.parallelism, 20e-6, 1e-15);
  EXPECT_NEAR(started.total, 16e-3 + 20e-6, 1e-12);

  // More threads than the node has cores: said, not hidden.
  const Point crowded =
      predictor(sheet + "placement,processes per node,2,,,,,\n").at(2, Scheme::full_overhead);
  ASSERT_FALSE(crowded.notes.empty());
  EXPECT_NE(crowded.notes[0].find("2 processes of 2 threads on a node of 2 cores"),
            std::string::npos)
      << crowded.notes[0];
  // A placement given twice, or below one thread, is refused with its row.
  expect_error_naming([&] { predictor(sheet + "placement,threads per process,1,,,,,\n"); },
                      "the placement 'threads per process' appears twice");
  std::string none = sheet;
  none.replace(none.find("threads per process,T"), 21, "threads per process,0");
  expect_error_naming([&] { predictor(none); }, "threads per process '0' is 0 at n = 1");
}

TEST(CostModel, APrivateCacheScalesWithTheProcesses) {
  // N = 2e4 over 2 processes: 240 kB each, in each core's L2; 200 GB/s for two threads is 100
  // each. Traffic 24 N K = 4.8e8 B for K = 1000, 2.4e8 each: 2.4 ms; work 2e7 each at the node's
  // 16 Gflop/s shared by two (8 each, under a core's 10): 2.5 ms. Compute bounds it.
  const Point p = predictor(triad("2e4", "1000", "n")).at(2, Scheme::full_overhead);
  EXPECT_NEAR(p.total, 2.5e-3, 1e-12);
  EXPECT_EQ(p.costs[0].bound, "peak rate");
  EXPECT_EQ(p.costs[0].level, "L2");
}

TEST(CostModel, DependentChainsAreCostedAtLatency) {
  // 10^6 fma at 0.5 ns throughput = 0.5 ms; a chain of 10^6 adds at 1 ns latency = 1 ms: the
  // chain bounds it.
  const Point p = predictor(
                      "kind,name,work [flop],ops.fma,chain.add,dop\n"
                      "component,recurrence,3e6,1e6,1e6,1\n")
                      .at(1, Scheme::full_overhead);
  EXPECT_NEAR(p.total, 1e-3, 1e-12);
  EXPECT_EQ(p.costs[0].bound, "add latency (a dependent chain)");
}

TEST(CostModel, AChainThroughMemorySharesTheL1PortsWithTheLoadsAndStores) {
  // 256e6 B loaded at L1d's 256 GB/s read: 1 ms of loads. A chain of store-to-load round trips at
  // 1 ns each beside them: 10^6 of them (1 ms) take (1^2.5 + 1^2.5)^(1/2.5) = 2^0.4 = 1.3195 ms;
  // 5e5 (0.5 ms) take (1 + 0.5^2.5)^0.4 = 1.0673 ms; 10^7 (10 ms) take 10 (1 + 0.1^2.5)^0.4 =
  // 10.0126 ms. A chain of adds (1 ns each) beside the same loads goes through no memory: the
  // larger, 1 ms.
  profile::Profile node = made_up_node();
  node.compute.kernels["store_load.latency"] = q(1e-9, "s");
  const auto at = [&](const std::string& chain, const std::string& count) {
    return Predictor(parse_workload("kind,name,loads [B]," + chain + ",dop\ncomponent,rows,256e6," +
                                        count + ",1\n",
                                    "model.csv"),
                     node, "made-up.yaml")
        .at(1, Scheme::full_overhead);
  };
  const Point equal = at("chain.store_load", "1e6");
  EXPECT_NEAR(equal.total, 1e-3 * std::pow(2.0, 0.4), 1e-12);
  EXPECT_EQ(equal.costs[0].bound,
            "store_load latency (a dependent chain) with L1d loads and stores, sharing the L1 "
            "ports (p = 2.5, no shared-ports kernel in the profile: fitted on the Zen 5 guest's "
            "multiply)");
  EXPECT_NEAR(at("chain.store_load", "5e5").total, 1.0672782e-3, 1e-9);
  EXPECT_NEAR(at("chain.store_load", "1e7").total, 10.012637e-3, 1e-8);
  const Point adds = at("chain.add", "1e6");
  EXPECT_NEAR(adds.total, 1e-3, 1e-12);

  // The profile's own exponent, fitted to its shared-ports kernel: p = 2 [1.5 .. 3]. The equal
  // parts take 2^(1/2) ms = 1.4142 ms, between 2^(1/3) = 1.2599 (p = 3) and 2^(1/1.5) = 1.5874
  // (p = 1.5).
  profile::Quantity p = q(2.0, "1");
  p.origin = profile::Origin::fitted;
  p.interval = profile::Interval{1.5, 3.0, 1.0};
  node.compute.shared_ports_exponent = p;
  const Point own = at("chain.store_load", "1e6");
  EXPECT_NEAR(own.total, 1e-3 * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(own.total_range->low, 1e-3 * std::cbrt(2.0), 1e-12);
  EXPECT_NEAR(own.total_range->high, 1e-3 * std::pow(2.0, 1 / 1.5), 1e-12);
  EXPECT_EQ(own.costs[0].bound,
            "store_load latency (a dependent chain) with L1d loads and stores, sharing the L1 "
            "ports (p = 2, the profile's shared-ports kernel)");
}

TEST(CostModel, RandomAccessesWaitForTheirLevelsLatency) {
  // 10^5 dependent accesses into 1 GB: DRAM's 100 ns each = 10 ms; into 512 kB: L2's 4 ns, 0.4 ms.
  const std::string header = "kind,name,random accesses,working set [B],dop\n";
  EXPECT_NEAR(predictor(header + "component,chase,1e5,1e9,1\n").at(1, Scheme::full_overhead).total,
              10e-3, 1e-12);
  const Point l2 = predictor(header + "component,chase,1e5,5e5,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(l2.total, 0.4e-3, 1e-12);
  EXPECT_EQ(l2.costs[0].bound, "L2 latency (dependent random accesses)");
}

TEST(CostModel, RandomAccessesTakeTheChaseAtTheirWorkingSetWithTheNodesSharers) {
  // The chase curve: one thread 100 ns over 16 MiB, 400 ns [360 .. 440] over 256 MiB; two
  // threads at once 120 ns and 500 ns.
  profile::Profile node = made_up_node();
  // Listed out of order, as a hand-written profile may list them.
  node.random_chase = {{2, 256u << 20, q(500e-9, "s")},
                       {1, 256u << 20, q(400e-9, "s", 360e-9, 440e-9)},
                       {2, 16u << 20, q(120e-9, "s")},
                       {1, 16u << 20, q(100e-9, "s")}};
  const auto at = [&](const std::string& working_set, double n) {
    return Predictor(parse_workload("kind,name,random accesses,working set [B],dop\n"
                                    "component,updates,1e5*n," +
                                        working_set + ",n\n",
                                    "model.csv"),
                     node, "made-up.yaml")
        .at(n, Scheme::full_overhead);
  };
  // 64 MiB lies halfway (log-log) from 16 to 256 MiB: 100 ns x 4^(1/2) = 200 ns, 10^5 of them
  // 20 ms; the interval from 100 x 3.6^(1/2) = 189.7 ns to 100 x 4.4^(1/2) = 209.8 ns. DRAM's
  // plateau latency (100 ns) no longer sets it.
  const Point one = at("67108864", 1);
  EXPECT_NEAR(one.total, 20e-3, 1e-12);
  EXPECT_NEAR(one.total_range->low, 1e5 * 100e-9 * std::sqrt(3.6), 1e-12);
  EXPECT_NEAR(one.total_range->high, 1e5 * 100e-9 * std::sqrt(4.4), 1e-12);
  EXPECT_EQ(one.costs[0].bound, "random chase over 64 MiB, 1 chasing (dependent random accesses)");
  // Two processes on the node, each 10^5 accesses: the two-thread chase, sqrt(120 x 500) ns =
  // 244.9 ns each, 24.49 ms.
  const Point two = at("67108864", 2);
  EXPECT_NEAR(two.total, 1e5 * std::sqrt(120e-9 * 500e-9), 1e-12);
  EXPECT_EQ(two.costs[0].bound, "random chase over 64 MiB, 2 chasing (dependent random accesses)");
  // Beyond the largest chain measured: its time as it is, and the prediction says so.
  const Point beyond = at("1073741824", 1);
  EXPECT_NEAR(beyond.total, 40e-3, 1e-12);
  ASSERT_EQ(beyond.notes.size(), 1u);
  EXPECT_NE(beyond.notes[0].find("the chase over 256 MiB taken as it is"), std::string::npos)
      << beyond.notes[0];
  // Without a working set there is no point on the curve to take: the level's latency (the
  // first level, L1d, has none here; so the default level, DRAM, at 100 ns: 10 ms).
  const Point no_set = Predictor(parse_workload("kind,name,random accesses,dop\n"
                                                "component,updates,1e5,1\n",
                                                "model.csv"),
                                 node, "made-up.yaml")
                           .at(1, Scheme::full_overhead);
  EXPECT_NEAR(no_set.total, 10e-3, 1e-12);
  EXPECT_EQ(no_set.costs[0].bound, "DRAM latency (dependent random accesses)");
  // A profile measured with one thread only: two sharers take it, with a note.
  const auto one_thread = [](const profile::RandomChasePoint& c) { return c.threads == 1; };
  std::erase_if(node.random_chase, [&](const auto& c) { return !one_thread(c); });
  const Point fewer = at("67108864", 2);
  EXPECT_NEAR(fewer.total, 20e-3, 1e-12);
  ASSERT_EQ(fewer.notes.size(), 1u);
  EXPECT_EQ(fewer.notes[0], "updates: random chase measured with 1 thread(s), not 2");
  // A profile measured with two threads only: one process takes the fewest there are, 2.
  node.random_chase = {{2, 16u << 20, q(120e-9, "s")}, {2, 256u << 20, q(500e-9, "s")}};
  const Point more = at("67108864", 1);
  EXPECT_NEAR(more.total, 1e5 * std::sqrt(120e-9 * 500e-9), 1e-12);
  ASSERT_EQ(more.notes.size(), 1u);
  EXPECT_EQ(more.notes[0], "updates: random chase measured with 2 thread(s), not 1");
}

TEST(CostModel, ColumnAccessesAddTheWalkMeasuredDownAsManyRows) {
  // 10^6 loads down the columns of a 4 MiB matrix of the walk's 16 KiB rows, 256 rows: halfway
  // (log-log) from 64 rows' (1 MiB) 2 ns to 1024 rows' (16 MiB) 8 ns, 2 x 4^(1/2) = 4 ns each,
  // 4 ms.
  const std::string header = "kind,name,traffic [B],column accesses,working set [B],dop\n";
  const Point mid =
      predictor(header + "component,gather,,1e6,4194304,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(mid.total, 4e-3, 1e-12);
  EXPECT_EQ(mid.costs[0].bound, "column walk down 256 rows of 16 KiB (loads across rows)");
  // The same 4 MiB in rows of 4 KiB is 1024 rows: the 16 MiB walk's 8 ns, 8 ms.
  const Point short_rows = predictor(
                               "kind,name,column accesses,working set [B],column stride [KiB],dop\n"
                               "component,gather,1e6,4194304,4,1\n")
                               .at(1, Scheme::full_overhead);
  EXPECT_NEAR(short_rows.total, 8e-3, 1e-12);
  EXPECT_EQ(short_rows.costs[0].bound, "column walk down 1024 rows of 4 KiB (loads across rows)");
  // With 2.4 GB of triad traffic in 1 GB (DRAM, 20 GB/s: 120 ms) the walk adds 10^6 loads at the
  // largest walk measured, 16 MiB's 8 ns [7 .. 9]: 128 ms [127 .. 129]; the traffic still bounds
  // it, and the prediction says the walk was taken beyond what was measured.
  const Point dram =
      predictor(header + "component,sweep,2.4e9,1e6,1e9,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(dram.total, 128e-3, 1e-12);
  EXPECT_NEAR(dram.costs[0].range->low, 127e-3, 1e-12);
  EXPECT_NEAR(dram.costs[0].range->high, 129e-3, 1e-12);
  EXPECT_EQ(dram.costs[0].bound, "DRAM bandwidth (triad, 1 sharing)");
  ASSERT_FALSE(dram.notes.empty());
  EXPECT_NE(dram.notes.back().find("beyond the column walks measured (64 to 1024 rows)"),
            std::string::npos)
      << dram.notes.back();
  // Two processes on the node split the loads (dop n): each walks 5 x 10^5 at the two-thread
  // 12 ns, 6 ms.
  const Point two =
      predictor(header + "component,gather,,1e6,16777216,n\n").at(2, Scheme::full_overhead);
  EXPECT_NEAR(two.costs[0].seconds, 6e-3, 1e-12);
  // A profile without the walk: an error naming the field.
  profile::Profile without = made_up_node();
  without.column_walk.clear();
  expect_error_naming(
      [&] {
        Predictor(parse_workload(header + "component,gather,,1e6,4194304,1\n", "model.csv"),
                  without, "made-up.yaml")
            .at(1, Scheme::full_overhead);
      },
      "made-up.yaml: column_walk: absent; component 'gather'");
  // Column accesses without the size of what they walk: an error at the cell.
  expect_error_naming([&] { parse_workload(header + "component,gather,,1e6,,1\n", "model.csv"); },
                      "model.csv:2:4 (column accesses): column accesses are costed by the size");
  // A stride without column accesses, and a stride of 0.
  expect_error_naming(
      [&] {
        parse_workload("kind,name,traffic [B],column stride [B],dop\ncomponent,x,1e6,4096,1\n",
                       "model.csv");
      },
      "model.csv:2:4 (column stride [B]): a column stride is the row of a column walk");
  expect_error_naming(
      [&] {
        predictor(
            "kind,name,column accesses,working set [B],column stride [B],dop\n"
            "component,gather,1e6,4194304,0,1\n")
            .at(1, Scheme::full_overhead);
      },
      "model.csv:2:5 (column stride [B]): the column stride is 0 B at n = 1");
}

TEST(CostModel, GatheredLinesAddTheLineGatherMeasuredAtTheirSpan) {
  // 10^6 lines scattered within 64 KiB: a quarter of the way (log-log) from 4 KiB's 3 ns to
  // 1 MiB's 12 ns, 3 x 4^(2/4) = 6 ns each, 6 ms.
  const std::string header = "kind,name,traffic [B],gathered lines,gather span [KiB],dop\n";
  const Point mid =
      predictor(header + "component,reorder,,1e6,64,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(mid.total, 6e-3, 1e-12);
  EXPECT_EQ(mid.costs[0].bound, "line gather (sum) within 64 KiB (lines no prefetcher brings)");
  // At a measured span its interval carries through: 3 ms [2.8 .. 3.2].
  const Point page =
      predictor(header + "component,reorder,,1e6,4,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(page.costs[0].seconds, 3e-3, 1e-12);
  EXPECT_NEAR(page.costs[0].range->low, 2.8e-3, 1e-12);
  EXPECT_NEAR(page.costs[0].range->high, 3.2e-3, 1e-12);
  // No span given: the widest measured, the whole buffer's 16 ns, 16 ms.
  const Point wide = predictor("kind,name,gathered lines,dop\ncomponent,reorder,1e6,1\n")
                         .at(1, Scheme::full_overhead);
  EXPECT_NEAR(wide.total, 16e-3, 1e-12);
  EXPECT_EQ(wide.costs[0].bound, "line gather (sum) within 256 MiB (lines no prefetcher brings)");
  // The gather adds to the traffic it does not hold: 2.4 GB of triad traffic in DRAM (1 GB
  // working set, 20 GB/s: 120 ms) and 10^6 lines in 4 KiB spans, 3 ms: 123 ms, bound by the
  // traffic. A span below the narrowest measured takes the narrowest, and says so.
  const Point both = predictor(
                         "kind,name,traffic [B],working set [B],gathered lines,gather span "
                         "[B],dop\ncomponent,sweep,2.4e9,1e9,1e6,1024,1\n")
                         .at(1, Scheme::full_overhead);
  EXPECT_NEAR(both.total, 123e-3, 1e-12);
  EXPECT_EQ(both.costs[0].bound, "DRAM bandwidth (triad, 1 sharing)");
  ASSERT_FALSE(both.notes.empty());
  EXPECT_NE(both.notes.back().find("its gather span 1 KiB lies beyond the spans measured (4 KiB "
                                   "to 256 MiB): 4 KiB taken"),
            std::string::npos)
      << both.notes.back();
  // A working set in a cache (1 MiB: L2) does not change the price, but the prediction says that
  // the gather was measured from memory.
  const Point cached = predictor(
                           "kind,name,working set [B],traffic [B],gathered lines,gather span "
                           "[B],dop\ncomponent,reorder,1048576,1e6,1e6,4096,1\n")
                           .at(1, Scheme::full_overhead);
  EXPECT_NEAR(cached.costs[0].seconds - 1e6 / 100e9, 3e-3, 1e-12);
  ASSERT_FALSE(cached.notes.empty());
  EXPECT_EQ(cached.notes.back(),
            "reorder: its gathered lines are priced from memory, but its working set (1 MiB) lies "
            "in L2: lines a cache keeps are traffic there");
  // Two processes on the node split the lines (dop n): each gathers 5 x 10^5 at the two-thread
  // 5 ns in 4 KiB spans, 2.5 ms.
  const Point two = predictor(header + "component,reorder,,1e6,4,n\n").at(2, Scheme::full_overhead);
  EXPECT_NEAR(two.costs[0].seconds, 2.5e-3, 1e-12);
  // A copy (each word stored in order) at the copy's 7 ns: 7 ms; the widest copy measured is
  // 4 KiB, so that is the default span.
  const Point copy =
      predictor("kind,name,gathered lines,gather access,dop\ncomponent,pack,1e6,copy,1\n")
          .at(1, Scheme::full_overhead);
  EXPECT_NEAR(copy.total, 7e-3, 1e-12);
  EXPECT_EQ(copy.costs[0].bound, "line gather (copy) within 4 KiB (lines no prefetcher brings)");
  // A profile without the copy, and one without any gather: errors naming the field.
  profile::Profile sums_only = made_up_node();
  sums_only.line_gather.erase(sums_only.line_gather.begin());
  expect_error_naming(
      [&] {
        Predictor(parse_workload("kind,name,gathered lines,gather access,dop\n"
                                 "component,pack,1e6,copy,1\n",
                                 "model.csv"),
                  sums_only, "made-up.yaml")
            .at(1, Scheme::full_overhead);
      },
      "made-up.yaml: line_gather: no gather of shape 'copy'");
  expect_error_naming(
      [&] {
        parse_workload("kind,name,gathered lines,gather access,dop\ncomponent,pack,1e6,scatter,1\n",
                       "model.csv");
      },
      "model.csv:2:4 (gather access): unknown gather access 'scatter'; expected sum or copy");
  profile::Profile without = made_up_node();
  without.line_gather.clear();
  expect_error_naming(
      [&] {
        Predictor(parse_workload(header + "component,reorder,,1e6,4,1\n", "model.csv"), without,
                  "made-up.yaml")
            .at(1, Scheme::full_overhead);
      },
      "made-up.yaml: line_gather: absent; component 'reorder'");
  // A span without gathered lines, and a span of 0.
  expect_error_naming(
      [&] {
        parse_workload("kind,name,traffic [B],gather span [B],dop\ncomponent,x,1e6,4096,1\n",
                       "model.csv");
      },
      "model.csv:2:4 (gather span [B]): a gather span is how far a line gather scatters");
  expect_error_naming(
      [&] { predictor(header + "component,reorder,,1e6,0,1\n").at(1, Scheme::full_overhead); },
      "model.csv:2:5 (gather span [KiB]): the gather span is 0 B at n = 1");
}

TEST(CostModel, LoadsAndStoresAtL1AddToTheTransfersFromBeyond) {
  // Treibig and Hager's ECM: 4 GB loaded and 1 GB stored by instructions take 4e9 / 256e9 + 1e9 /
  // 128e9 = 23.4375 ms of L1 time, which does not overlap with the transfers from DRAM (a 1 GB
  // working set). 2.4 GB of triad traffic took the triad kernel 2.4e9 / 20e9 = 120 ms, of which
  // its own L1 loads and stores (1.6 GB and 0.8 GB) were 1.6e9 / 256e9 + 0.8e9 / 128e9 = 12.5
  // ms: the transfers are 107.5 ms, and the component 107.5 + 23.4375 = 130.9375 ms.
  const std::string header = "kind,name,traffic [B],loads [GB],stores [GB],working set [B],dop\n";
  const Point dram =
      predictor(header + "component,sweep,2.4e9,4,1,1e9,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(dram.total, 130.9375e-3, 1e-12);
  EXPECT_EQ(dram.costs[0].bound, "L1d loads and stores + DRAM bandwidth (triad, 1 sharing)");
  // A loop that is the triad kernel (1.6 GB loaded, 0.8 GB stored per 2.4 GB of traffic) is
  // costed as the kernel measured it: 120 ms.
  EXPECT_NEAR(predictor(header + "component,triad,2.4e9,1.6,0.8,1e9,1\n")
                  .at(1, Scheme::full_overhead)
                  .total,
              120e-3, 1e-12);
  // With the working set in L1 the L1 time is the whole transfer: 23.4375 ms.
  const Point l1 =
      predictor(header + "component,sweep,2.4e9,4,1,1000,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(l1.total, 23.4375e-3, 1e-12);
  EXPECT_EQ(l1.costs[0].bound, "L1d loads and stores");
}

// Two processes on a node whose memory they saturate (the made-up node's triad: 20 GB/s for one
// thread, 30 [27 .. 33] for two): the ECM model's saturation (Treibig and Hager (2010)).
TEST(CostModel, ProcessesSaturatingTheMemoryHideTheirL1Work) {
  // The sweep of the test above over two processes: each moves 1.2 GB of triad traffic, loads
  // 2 GB and stores 0.5 GB. Alone its transfers take 1.2e9 / 20e9 = 60 ms, less the triad
  // kernel's own L1 time (0.8e9 / 256e9 + 0.4e9 / 128e9 = 6.25 ms), plus its own (2e9 / 256e9 +
  // 0.5e9 / 128e9 = 11.71875 ms): 65.46875 ms. At its half of the two threads' 30 GB/s they take
  // 80 ms [72.7 .. 88.9], more: the memory is saturated and bounds it, the L1 work hidden. (The
  // sum at the shared rate, as before, gave 85.46875 ms.)
  const std::string header = "kind,name,traffic [B],loads [GB],stores [GB],working set [B],dop\n";
  const Point two =
      predictor(header + "component,sweep,2.4e9,4,1,1e9/n,n\n").at(2, Scheme::full_overhead);
  EXPECT_NEAR(two.total, 80e-3, 1e-12);
  ASSERT_TRUE(two.total_range.has_value());
  EXPECT_NEAR(two.total_range->low, 1.2e9 / 16.5e9, 1e-12);
  EXPECT_NEAR(two.total_range->high, 1.2e9 / 13.5e9, 1e-12);
  EXPECT_EQ(two.costs[0].bound,
            "DRAM bandwidth (triad, 2 sharing), saturated: the L1d loads and stores hidden");
  // Ten times the loads: 20 GB a process, 78.125 ms of loads, 82.03125 ms of L1 time. Alone
  // 60 - 6.25 + 82.03125 = 135.78125 ms, more than the shared transfers' 80: the cores do not
  // saturate the memory, and each costs its own sum at one thread's rate.
  const Point busy =
      predictor(header + "component,sweep,2.4e9,40,1,1e9/n,n\n").at(2, Scheme::full_overhead);
  EXPECT_NEAR(busy.total, 135.78125e-3, 1e-12);
  EXPECT_EQ(busy.costs[0].bound,
            "L1d loads and stores + DRAM bandwidth (triad, 2 sharing), below saturation: at one "
            "thread's rate");
  // One process is priced as before: the sum, 130.9375 ms (the test above).
  EXPECT_NEAR(
      predictor(header + "component,sweep,2.4e9,4,1,1e9/n,n\n").at(1, Scheme::full_overhead).total,
      130.9375e-3, 1e-12);
}

TEST(CostModel, MisalignedLoadsAndStoresTakeTheMisalignedRates) {
  // Of 4 GB loaded, 2 GB by misaligned vectors; all 1 GB stored misaligned; the working set in
  // L1. With the misaligned kernels at 64 GB/s: 2e9 / 256e9 + 2e9 / 64e9 + 1e9 / 64e9 = 7.8125 +
  // 31.25 + 15.625 = 54.6875 ms, where all aligned would take 23.4375.
  profile::Profile node = made_up_node();
  node.memory[0].bandwidth["read-misaligned/1"] = q(64e9, "B/s");
  node.memory[0].bandwidth["write-misaligned/1"] = q(64e9, "B/s", 32e9, 64e9);
  const std::string header =
      "kind,name,traffic [B],loads [GB],stores [GB],misaligned loads [GB],misaligned stores "
      "[GB],working set [B],dop\n";
  const auto at_one = [&](const std::string& row, const profile::Profile& profile) {
    return Predictor(parse_workload(header + row, "model.csv"), profile, "made-up.yaml")
        .at(1, Scheme::full_overhead);
  };
  const Point l1 = at_one("component,sweep,2.4e9,4,1,2,1,1000,1\n", node);
  EXPECT_NEAR(l1.total, 54.6875e-3, 1e-12);
  ASSERT_TRUE(l1.total_range);
  EXPECT_NEAR(l1.total_range->high, 7.8125e-3 + 31.25e-3 + 1e9 / 32e9, 1e-12);
  // None misaligned: as before.
  EXPECT_NEAR(at_one("component,sweep,2.4e9,4,1,0,0,1000,1\n", node).total, 23.4375e-3, 1e-12);
  // A profile that did not measure misaligned streams: an error naming the field, no substitute.
  expect_error_naming([&] { at_one("component,sweep,2.4e9,4,1,2,1,1000,1\n", made_up_node()); },
                      "made-up.yaml: memory.L1d.bandwidth.read-misaligned/1: absent; component "
                      "'sweep'");
  // More misaligned than loaded: an error at the cell.
  expect_error_naming([&] { at_one("component,sweep,2.4e9,4,1,5,1,1000,1\n", node); },
                      "model.csv:2:6 (misaligned loads [GB]): misaligned loads of 5000000000 B at "
                      "n = 1 exceed the loads (4000000000 B)");
  // A misaligned part without its whole.
  expect_error_naming(
      [] {
        parse_workload("kind,name,stores [B],misaligned loads [B],dop\ncomponent,x,1,1,1\n",
                       "model.csv");
      },
      "model.csv:2:4 (misaligned loads [B]): misaligned loads are a part of the loads; give the "
      "loads [B] too");
}

TEST(CostModel, AWorkingSetThatOutgrowsACacheTakesTheRateMeasuredAtItsSize) {
  // The sweep measured triad with one thread between the L2's plateau (to 512 KiB) and the L3's
  // (from 2 MiB): 80 GB/s [76 .. 84] at 1 MiB. 2.4e8 B of traffic over a 1 MiB working set take
  // 2.4e8 / 80e9 = 3 ms [2.4e8 / 84e9 .. 2.4e8 / 76e9], not the L2's 2.4 ms nor the L3's 4.8.
  profile::Profile node = made_up_node();
  node.cache_edges.push_back(
      {"L2", "L3", "triad", 1, 524288, 2097152, 1048576, q(80e9, "B/s", 76e9, 84e9)});
  const auto at = [&](const std::string& working_set, double n) {
    return Predictor(parse_workload("kind,name,traffic [B],access,working set [B],dop\n"
                                    "component,triad,2.4e8,triad," +
                                        working_set + ",1\n",
                                    "model.csv"),
                     node, "made-up.yaml")
        .at(n, Scheme::full_overhead);
  };
  const Point mib = at("1048576", 1);
  EXPECT_NEAR(mib.total, 3e-3, 1e-12);
  ASSERT_TRUE(mib.total_range);
  EXPECT_NEAR(mib.total_range->low, 2.4e8 / 84e9, 1e-12);
  EXPECT_NEAR(mib.total_range->high, 2.4e8 / 76e9, 1e-12);
  EXPECT_EQ(mib.costs[0].bound, "L2 to L3 edge bandwidth (triad, 1 sharing, 1 MiB in all)");
  // 1.5 MiB: log-log between 80 GB/s at 1 MiB and the L3's 50 at 2 MiB, where its plateau starts:
  // 80 (50 / 80)^(log 1.5 / log 2) = 60.78 GB/s.
  const double rate = 80e9 * std::pow(50.0 / 80.0, std::log(1.5) / std::log(2.0));
  EXPECT_NEAR(at("1572864", 1).total, 2.4e8 / rate, 1e-12);
  // 768 KiB: between the L2's 100 GB/s at 512 KiB and 80 at 1 MiB.
  const double near_l2 = 100e9 * std::pow(80.0 / 100.0, std::log(1.5) / std::log(2.0));
  EXPECT_NEAR(at("786432", 1).total, 2.4e8 / near_l2, 1e-12);
  // Inside a plateau the edge plays no part: 256 KiB at the L2's 100 GB/s, 4 MiB at the L3's 50.
  EXPECT_NEAR(at("262144", 1).total, 2.4e-3, 1e-12);
  EXPECT_NEAR(at("4194304", 1).total, 4.8e-3, 1e-12);
}

TEST(CostModel, AnEdgePointOutsideItsTwoPlateausIsHeldAtTheNearer) {
  // The sweep read 30 GB/s [29 .. 31] at 1 MiB, below the L3's own plateau (50 GB/s): the rate
  // falls from the L2's 100 to the L3's 50 over the edge, so that point ran in another state of
  // the machine. 2.4e8 B take 2.4e8 / 50e9 = 4.8 ms, not 8 ms, and the prediction says why.
  profile::Profile node = made_up_node();
  node.cache_edges.push_back(
      {"L2", "L3", "triad", 1, 524288, 2097152, 1048576, q(30e9, "B/s", 29e9, 31e9)});
  const auto at_one_mib = [&] {
    return Predictor(parse_workload("kind,name,traffic [B],access,working set [B],dop\n"
                                    "component,triad,2.4e8,triad,1048576,1\n",
                                    "model.csv"),
                     node, "made-up.yaml")
        .at(1, Scheme::full_overhead);
  };
  const Point low = at_one_mib();
  EXPECT_NEAR(low.total, 4.8e-3, 1e-12);
  ASSERT_TRUE(low.total_range);
  EXPECT_NEAR(low.total_range->low, 4.8e-3, 1e-12);
  EXPECT_NEAR(low.total_range->high, 4.8e-3, 1e-12);
  EXPECT_EQ(low.costs[0].bound, "L2 to L3 edge bandwidth (triad, 1 sharing, 1 MiB in all)");
  ASSERT_EQ(low.notes.size(), 1u);
  EXPECT_NE(low.notes[0].find("the sweep read 30.0 GB/s there, outside the L2 and L3 plateaus"),
            std::string::npos)
      << low.notes[0];
  // Above the inner plateau (130 GB/s): held at the L2's 100, 2.4 ms.
  node.cache_edges.back().bytes_per_second = q(130e9, "B/s", 125e9, 135e9);
  EXPECT_NEAR(at_one_mib().total, 2.4e-3, 1e-12);
}

TEST(CostModel, ASparseProductIsCostedAtTheIndexedKernelsRateEvenInL1) {
  // 0.8 GB of traffic as STREAM counts it (12 B a nonzero, 20 a row) from DRAM, at the indexed
  // kernel's 10 GB/s: 80 ms.
  const std::string header =
      "kind,name,traffic [B],access,loads [GB],stores [GB],working set [B],dop\n";
  const Point dram =
      predictor(header + "component,spmv,8e8,indexed,,,1e9,1\n").at(1, Scheme::full_overhead);
  EXPECT_NEAR(dram.total, 80e-3, 1e-12);
  EXPECT_EQ(dram.costs[0].bound, "DRAM bandwidth (indexed, 1 sharing)");
  // A loop that is the kernel (per 80 B counted: 108 B loaded, 8 B stored by instructions) is
  // costed as the kernel measured it, its own L1 time swapped for itself: 80 ms.
  EXPECT_NEAR(predictor(header + "component,spmv,8e8,indexed,1.08,0.08,1e9,1\n")
                  .at(1, Scheme::full_overhead)
                  .total,
              80e-3, 1e-12);
  // From L1 the kernel's rate, not its loads and stores alone: 8e8 / 40e9 = 20 ms, where the L1
  // time of the loads and stores would be 1.08e9 / 256e9 + 0.08e9 / 128e9 = 4.84375 ms.
  const Point l1 = predictor(header + "component,spmv,8e8,indexed,1.08,0.08,1000,1\n")
                       .at(1, Scheme::full_overhead);
  EXPECT_NEAR(l1.total, 20e-3, 1e-12);
  EXPECT_EQ(l1.costs[0].bound, "L1d loads and stores + L1d bandwidth (indexed, 1 sharing)");
}

TEST(CostModel, AStencilSweepIsCostedAtTheStencilKernelsRateAtItsLevel) {
  // 1e8 points of a three-point stencil from a working set of 4 MiB (in L3, 8 MiB): 1.6 GB as
  // STREAM counts it at the stencil kernel's 40 GB/s [36 .. 44] there: 40 ms [36.4 .. 44.4].
  const std::string header =
      "kind,name,traffic [B],access,loads [GB],stores [GB],working set [B],dop\n";
  const Point l3 = predictor(header + "component,sweep,1.6e9,stencil,,,4194304,1\n")
                       .at(1, Scheme::full_overhead);
  EXPECT_NEAR(l3.total, 40e-3, 1e-12);
  ASSERT_TRUE(l3.total_range.has_value());
  EXPECT_NEAR(l3.total_range->low, 1.6e9 / 44e9, 1e-12);
  EXPECT_NEAR(l3.total_range->high, 1.6e9 / 36e9, 1e-12);
  EXPECT_EQ(l3.costs[0].bound, "L3 bandwidth (stencil, 1 sharing)");
  // A loop that is the kernel (three loads and one store of 8 B a point: 2.4 GB loaded, 0.8 GB
  // stored; of them a[i], a[i + 1] and the store misaligned, as the kernel's loop makes them: 1.6
  // and 0.8 GB) is costed as the kernel measured it: its own L1 time (0.8 GB at 256 GB/s, 1.6 and
  // 0.8 at the misaligned 128: 21.875 ms) is swapped for itself.
  profile::Profile node = made_up_node();
  node.memory[0].bandwidth["read-misaligned/1"] = q(128e9, "B/s");
  node.memory[0].bandwidth["write-misaligned/1"] = q(128e9, "B/s");
  const auto priced = [&](const std::string& row) {
    return Predictor(parse_workload("kind,name,traffic [B],access,loads [GB],stores [GB],"
                                    "misaligned loads [GB],misaligned stores [GB],working set "
                                    "[B],dop\n" +
                                        row,
                                    "model.csv"),
                     node, "made-up.yaml")
        .at(1, Scheme::full_overhead)
        .total;
  };
  EXPECT_NEAR(priced("component,sweep,1.6e9,stencil,2.4,0.8,1.6,0.8,4194304,1\n"), 40e-3, 1e-9);
  // Heat's compiled loop loads a[i] twice: a fourth load of 8 B a point, misaligned, 0.8 GB more
  // at 128 GB/s: 6.25 ms more, 46.25 ms.
  EXPECT_NEAR(priced("component,sweep,1.6e9,stencil,3.2,0.8,2.4,0.8,4194304,1\n"), 46.25e-3, 1e-9);
  // Without the misaligned kernels the kernel's own L1 time cannot be taken out: an error naming
  // what is missing, not the aligned rate in its place.
  expect_error_naming(
      [&] {
        predictor(header + "component,sweep,1.6e9,stencil,2.4,0.8,4194304,1\n")
            .at(1, Scheme::full_overhead);
      },
      "memory.L1d.bandwidth.read-misaligned/1: absent; component 'sweep' (model.csv:2) gives the "
      "kernel's own misaligned loads");
  // In L2 the profile has no stencil rate: a clear error naming it, not another kernel's rate.
  try {
    predictor(header + "component,sweep,1.6e9,stencil,,,524288,1\n").at(1, Scheme::full_overhead);
    FAIL() << "a stencil priced where the profile has no stencil rate";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory.L2.bandwidth.stencil/1: absent"),
              std::string::npos)
        << e.what();
  }
}

TEST(CostModel, ADegreeOfParallelismOfNIsUnboundedNotANumber) {
  const Predictor p = predictor(triad("2e6", "10", "n"));
  EXPECT_TRUE(p.summary().unbounded_parallelism);
  const std::vector<std::string> advice = p.grain_advice(2);
  ASSERT_FALSE(advice.empty());
  EXPECT_NE(advice[0].find("grows with n"), std::string::npos) << advice[0];
  EXPECT_FALSE(predictor(triad("2e6", "10", "1")).summary().unbounded_parallelism);
}

TEST(CostModel, AKernelTheProfileLacksIsNamed) {
  expect_error_naming([] { predictor("kind,name,chain.log,dop\ncomponent,logs,10,1\n"); },
                      "made-up.yaml: compute.kernels.log.latency: absent");
}

TEST(CostModel, TheHaloExchangeIsTwoShiftsPerStep) {
  // 100 steps, each exchanging 9000 B with both neighbours by MPI_Sendrecv: 200 shifts. At n = 2
  // the profile measured 2 us at 1000 B and 6 us at 17000 B: 4 us at 9000 B, 0.8 ms in all
  // [200 x 4 [3.8 .. 4.2] us]. One process does not communicate.
  const Predictor halo = predictor(
      "kind,name,value,work [flop],dop,operation,bytes [B],count,after\n"
      "parameter,K,100,,,,,,\n"
      "component,sweep,,1e6,n,,,,\n"
      "communication,halo,,,,shift,9000,2*K*(n>1),sweep\n");
  const Point two = halo.at(2, Scheme::full_overhead);
  EXPECT_NEAR(two.communication, 800e-6, 1e-12);
  // Compute: 1e6 flop over 2 processes at 8 Gflop/s each = 62.5 us [from the node peak: no
  // interval]; the range adds the shift's measured ends.
  EXPECT_NEAR(two.compute, 62.5e-6, 1e-12);
  EXPECT_NEAR(two.total_range->low, 62.5e-6 + 200 * 3.8e-6, 1e-12);
  EXPECT_NEAR(two.total_range->high, 62.5e-6 + 200 * 4.2e-6, 1e-12);
  ASSERT_FALSE(two.notes.empty());
  EXPECT_NE(two.notes[0].find("halo: interpolated"), std::string::npos) << two.notes[0];
  EXPECT_DOUBLE_EQ(halo.at(1, Scheme::full_overhead).communication, 0);
  // At 4 processes the profile has no measurement and no form: a clear error.
  EXPECT_THROW(halo.at(4, Scheme::full_overhead), Error);
}

TEST(CostModel, AHaloStepIsPricedFromTheMeasuredSteps) {
  // The same exchange written as the suite measures it: 100 steps of the halo (two MPI_Sendrecv,
  // down then up, 9000 B each way). At n = 2 the profile measured a step at 5 us [4.5 .. 5.5] for
  // 1000 B and 13 us [12 .. 14] for 17000 B: 9 us [8.25 .. 9.75] at 9000 B, 0.9 ms in all.
  profile::Profile node = made_up_node();
  profile::Collective halo;
  halo.ranks = {2};
  halo.measurements.push_back({2, 1000, q(5e-6, "s", 4.5e-6, 5.5e-6)});
  halo.measurements.push_back({2, 17000, q(13e-6, "s", 12e-6, 14e-6)});
  node.collectives["halo"] = halo;
  const std::string sheet =
      "kind,name,value,work [flop],dop,operation,bytes [B],count,after\n"
      "parameter,K,100,,,,,,\n"
      "component,sweep,,1e6,n,,,,\n"
      "communication,exchange,,,,halo,9000,K*(n>1),sweep\n";
  const Predictor steps(parse_workload(sheet, "model.csv"), node, "made-up.yaml");
  const Point two = steps.at(2, Scheme::full_overhead);
  EXPECT_NEAR(two.communication, 900e-6, 1e-12);
  ASSERT_TRUE(two.communication_range);
  EXPECT_NEAR(two.communication_range->low, 825e-6, 1e-12);
  EXPECT_NEAR(two.communication_range->high, 975e-6, 1e-12);
  // A profile without the halo step is refused, naming it and what to do.
  expect_error_naming([&] { predictor(sheet); }, "collectives.halo: absent");
  expect_error_naming([&] { predictor(sheet); }, "write the step as two shifts");
}

// Work of 1 ms, then 10 messages of 1000 B.
constexpr const char* kTenSends =
    "kind,name,time [s],dop,operation,bytes [B],count,after\n"
    "component,work,1e-3,1,,,,\n"
    "communication,send,,,point_to_point,1000,10,work\n";

TEST(CostModel, PointToPointCarriesTheHockneyIntervals) {
  // 10 messages of 1000 B: 10 x (1 us + 1000 B / 1 GB/s) = 20 us, [10 x (0.9 + 0.8) = 17 ..
  // 10 x (1.1 + 1.25) = 23.5] us.
  const Point p = predictor(kTenSends).at(2, Scheme::full_overhead);
  EXPECT_NEAR(p.communication, 20e-6, 1e-12);
  EXPECT_NEAR(p.total_range->low, 1e-3 + 17e-6, 1e-12);
  EXPECT_NEAR(p.total_range->high, 1e-3 + 23.5e-6, 1e-12);
}

TEST(CostModel, ProcessesBeyondOneNodeOfAOneNodeProfileAreNoted) {
  // Two processes per node, four processes: two nodes, on a profile of one node.
  const Point p = predictor(
                      "kind,name,time [s],dop,operation,bytes [B],count,after\n"
                      "component,work,1e-3,1,,,,\n"
                      "communication,send,,,point_to_point,1000,1,work\n")
                      .at(4, Scheme::full_overhead);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("4 processes on 2 nodes"), std::string::npos) << p.notes[0];
}

TEST(CostModel, MessagesWithinANodeOfAClusterTakeThePairMapsPairsOnOneNode) {
  // The node above characterized as a cluster of 2 such nodes: its ping-pong (rank 0 with the
  // last rank) crossed nodes, 1 us + m / 1 GB/s; its pair map has pairs on one node, 0.2 us [0.15
  // .. 0.25] one way at 8 B and 4 GB/s [3.2 .. 5] at 10^6 B (bytes over the whole time), and pairs
  // on different nodes. A message of m bytes on the line through both sizes takes
  // latency x (1 - m / 10^6) + m / bandwidth. Two processes fill one node: 10 messages of 1000 B
  // take 10 x (0.2 x 0.999 + 0.25) = 4.498 us, [10 x (0.15 x 0.999 + 0.2) = 3.4985 .. 10 x
  // (0.25 x 0.999 + 0.3125) = 5.6225] us.
  profile::Profile cluster = made_up_node();
  cluster.machine.nodes = 2;
  cluster.point_to_point->pair_classes = {
      {"same-node", 1, 8, 1e6, q(0.2e-6, "s", 0.15e-6, 0.25e-6), q(4e9, "B/s", 3.2e9, 5e9)},
      {"other-node", 4, 8, 1e6, q(1e-6, "s"), q(1e9, "B/s")}};
  const Predictor on_cluster(parse_workload(kTenSends, "model.csv"), cluster, "cluster.yaml");
  const Point within = on_cluster.at(2, Scheme::full_overhead);
  EXPECT_NEAR(within.communication, 4.498e-6, 1e-12);
  EXPECT_NEAR(within.communication_range->low, 3.4985e-6, 1e-12);
  EXPECT_NEAR(within.communication_range->high, 5.6225e-6, 1e-12);
  EXPECT_TRUE(within.notes.empty()) << within.notes.front();
  // Four processes on 2 nodes: the ping-pong's own placement, 10 x (1 us + 1 us) = 20 us.
  EXPECT_NEAR(on_cluster.at(4, Scheme::full_overhead).communication, 20e-6, 1e-12);
  // A pair map with no pair on one node: the ping-pong across nodes, and the prediction says so.
  cluster.point_to_point->pair_classes.erase(cluster.point_to_point->pair_classes.begin());
  const Point unmapped = Predictor(parse_workload(kTenSends, "model.csv"), cluster, "cluster.yaml")
                             .at(2, Scheme::full_overhead);
  EXPECT_NEAR(unmapped.communication, 20e-6, 1e-12);
  ASSERT_FALSE(unmapped.notes.empty());
  EXPECT_NE(unmapped.notes[0].find("cluster.yaml's ping-pong crossed nodes"), std::string::npos)
      << unmapped.notes[0];
}

TEST(CostModel, MessagesBetweenNodesTakeThePairMapsPairsOnDifferentNodes) {
  // A profile whose machine's node count is not known (its ping-pong taken for one node's) with
  // a pair map that has pairs on different nodes: 5 us [4 .. 6] one way at 8 B, 0.5 GB/s [0.4 ..
  // 0.625] at 10^6 B. Four processes fill 2 nodes of 2 cores, so the slowest sends across: 10
  // messages of 1000 B take 10 x (5 x 0.999 + 2) = 69.95 us, [10 x (4 x 0.999 + 1.6) = 55.96 ..
  // 10 x (6 x 0.999 + 2.5) = 84.94] us.
  profile::Profile node = made_up_node();
  node.machine.nodes.reset();
  node.point_to_point->pair_classes = {
      {"other-node", 4, 8, 1e6, q(5e-6, "s", 4e-6, 6e-6), q(0.5e9, "B/s", 0.4e9, 0.625e9)}};
  const Point across = Predictor(parse_workload(kTenSends, "model.csv"), node, "node.yaml")
                           .at(4, Scheme::full_overhead);
  EXPECT_NEAR(across.communication, 69.95e-6, 1e-12);
  EXPECT_NEAR(across.communication_range->low, 55.96e-6, 1e-12);
  EXPECT_NEAR(across.communication_range->high, 84.94e-6, 1e-12);
}

TEST(CostModel, ANetworkProfileGivesTheMessagesAndTheNodeTheRest) {
  // The node above (2 cores, DRAM 20 GB/s for one process, 30 GB/s for two) on a cluster whose
  // network profile has one core per node and a ping-pong of 10 us + m / 1 GB/s [no interval].
  // A triad of 2^27 points (3 GiB, DRAM) over 4 processes, one sweep, then 100 messages of 1000 B.
  // One process per node: each has a node's DRAM alone, 24 x 2^27 / 4 B at 20 GB/s = 40.27 ms;
  // messages 100 x (10 us + 1 us) = 1.1 ms [1.1 .. 1.1].
  profile::Profile network;
  network.machine.name = "cluster";
  network.machine.nodes = 64;
  network.machine.cores_per_node = 1;
  profile::PointToPoint p2p;
  profile::HockneySegment segment;
  segment.to_bytes = INFINITY;
  segment.t0 = q(10e-6, "s");
  segment.r_inf = q(1e9, "B/s");
  p2p.segments = {segment};
  network.point_to_point = p2p;
  PredictOptions options;
  options.network = network;
  options.network_path = "cluster.yaml";
  const std::string workload =
      "kind,name,value,work [flop],traffic [B],access,working set [B],dop,operation,bytes [B],"
      "count,after\n"
      "parameter,N,134217728,,,,,,,,,\n"
      "component,triad,,2*N,24*N,triad,24*N/n,n,,,,\n"
      "communication,send,,,,,,,point_to_point,1000,100,triad\n";
  const Predictor on_cluster(parse_workload(workload, "model.csv"), made_up_node(), "made-up.yaml",
                             options);
  const Point p = on_cluster.at(4, Scheme::full_overhead);
  EXPECT_DOUBLE_EQ(p.processes_per_node, 1);
  EXPECT_NEAR(p.compute, 24.0 * 134217728 / 4 / 20e9, 1e-9);
  EXPECT_NEAR(p.communication, 1.1e-3, 1e-12);
  EXPECT_NEAR(p.communication_range->low, 1.1e-3, 1e-12);
  EXPECT_NEAR(p.communication_range->high, 1.1e-3, 1e-12);
  // Without the network profile the node's own: 2 processes a node share 30 GB/s, and 100 x (1 us
  // + 1 us) = 0.2 ms.
  const Point alone = predictor(workload).at(4, Scheme::full_overhead);
  EXPECT_DOUBLE_EQ(alone.processes_per_node, 2);
  EXPECT_NEAR(alone.compute, 24.0 * 134217728 / 4 / 15e9, 1e-9);
  EXPECT_NEAR(alone.communication, 0.2e-3, 1e-12);
  // A collective the network's profile lacks is named with the network's file.
  expect_error_naming(
      [&] {
        Predictor(parse_workload("kind,name,time [s],dop,operation,bytes [B],count,after\n"
                                 "component,work,1e-3,1,,,,\n"
                                 "communication,sum,,,allreduce,8,1,work\n",
                                 "model.csv"),
                  made_up_node(), "made-up.yaml", options);
      },
      "cluster.yaml: collectives.allreduce: absent");
}

// The made-up node with `cores` cores per node and an alltoall of 0 B measured at (n, seconds).
profile::Profile node_with_alltoall(std::uint64_t cores,
                                    const std::vector<std::pair<std::uint64_t, double>>& points) {
  profile::Profile node = made_up_node();
  node.machine.cores_per_node = cores;
  profile::Collective& alltoall = node.collectives["alltoall"];
  for (const auto& [n, seconds] : points) alltoall.measurements.push_back({n, 0, q(seconds, "s")});
  return node;
}

TEST(CostModel, ExtrapolationFromFewCommunicatorsAcrossNodesIsNoted) {
  // Nodes of 8 cores; an alltoall of 0 B measured at n = 2 .. 32 (1 us per rank), its form 1 us x
  // n. At 128 ranks: the point at 32 (32 us) times the form's growth 128 / 32 = 128 us, and a
  // note that only 16 and 32 span nodes.
  profile::Profile node =
      node_with_alltoall(8, {{2, 2e-6}, {4, 4e-6}, {8, 8e-6}, {16, 16e-6}, {32, 32e-6}});
  profile::Collective& alltoall = node.collectives.at("alltoall");
  alltoall.t0.unit = "s";
  alltoall.t0.terms = {profile::Term{"n", 1e-6, 0, std::nullopt}};
  const Predictor exchange(parse_workload("kind,name,time [s],dop,operation,bytes [B],count,after\n"
                                          "component,work,1e-3,1,,,,\n"
                                          "communication,swap,,,alltoall,0,1,work\n",
                                          "model.csv"),
                           node, "made-up.yaml");
  const Point p = exchange.at(128, Scheme::full_overhead);
  EXPECT_NEAR(p.communication, 128e-6, 1e-12);
  bool noted = false;
  for (const std::string& note : p.notes) {
    noted = noted || note.find(
                         "swap: only 2 measured communicator size(s) span nodes of 8 cores "
                         "(16, 32)") != std::string::npos;
  }
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(p.notes, "\n"));
  // At a measured n there is nothing to note.
  for (const std::string& note : exchange.at(32, Scheme::full_overhead).notes) {
    EXPECT_EQ(note.find("span nodes"), std::string::npos) << note;
  }
}

TEST(CostModel, BeyondTheMeasuredCommunicatorsTheGrowthAcrossNodesIsTheSpanningPoints) {
  // Nodes of 8 cores. Recursive doubling: 0.25 us a round inside a node (0.25, 0.5, 0.75 us at
  // n = 2, 4, 8), 2.25 us a round between nodes (3, 5.25, 7.5 us at 16, 32, 64: 2.25 log2 k us
  // beyond one node, k = n / 8 nodes). The form fitted over every n, 0.12 n us, would double the
  // 7.5 us from 64 to 128; one more round between nodes gives 7.5 + 2.25 (4 - 3) = 9.75 us.
  profile::Profile node = node_with_alltoall(
      8, {{2, 0.25e-6}, {4, 0.5e-6}, {8, 0.75e-6}, {16, 3e-6}, {32, 5.25e-6}, {64, 7.5e-6}});
  profile::Collective& rounds = node.collectives.at("alltoall");
  rounds.t0.unit = "s";
  rounds.t0.terms = {profile::Term{"n", 0.12e-6, 0, std::nullopt}};
  const auto predictor_on = [](const profile::Profile& profile) {
    return Predictor(parse_workload("kind,name,time [s],dop,operation,bytes [B],count,after\n"
                                    "component,work,1e-3,1,,,,\n"
                                    "communication,swap,,,alltoall,0,1,work\n",
                                    "model.csv"),
                     profile, "made-up.yaml");
  };
  const Point p = predictor_on(node).at(128, Scheme::full_overhead);
  EXPECT_NEAR(p.communication, 9.75e-6, 1e-12);
  // The interval reaches the form's extrapolation, 15 us.
  ASSERT_TRUE(p.communication_range);
  EXPECT_NEAR(p.communication_range->low, 9.75e-6, 1e-12);
  EXPECT_NEAR(p.communication_range->high, 15e-6, 1e-12);
  const std::string notes = fmt::format("{}", fmt::join(p.notes, "\n"));
  EXPECT_NE(notes.find("across nodes of 8 cores"), std::string::npos) << notes;
  EXPECT_NE(notes.find("log k"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("span nodes"), std::string::npos) << notes;

  // A message to every rank: 1 us a rank inside a node (8 us at n = 8), 10 us more a node beyond
  // the first (18, 38, 78 us at 16, 32, 64: 10 (k - 1) us). At 128 ranks: 78 + 10 (16 - 8) =
  // 158 us.
  profile::Profile each = node_with_alltoall(
      8, {{2, 2e-6}, {4, 4e-6}, {8, 8e-6}, {16, 18e-6}, {32, 38e-6}, {64, 78e-6}});
  profile::Collective& alltoall = each.collectives.at("alltoall");
  alltoall.t0.unit = "s";
  alltoall.t0.terms = {profile::Term{"log n", 13e-6, 0, std::nullopt}};
  EXPECT_NEAR(predictor_on(each).at(128, Scheme::full_overhead).communication, 158e-6, 1e-11);

  // Three points that grow unevenly (the 64 B alltoall of a simulated fat tree of 8-core nodes:
  // 1.68 us at one node, then 5.38, 7.11 and 15.8 us at 2, 4 and 8 nodes) are no step: with one
  // coefficient in every form none is simpler, and the step, first in the list but worst left
  // out, must not win for being first. The growth to 64 nodes is then several times the 15.8 us.
  profile::Profile uneven = node_with_alltoall(
      8, {{2, 0.86e-6}, {4, 1.46e-6}, {8, 1.68e-6}, {16, 5.38e-6}, {32, 7.11e-6}, {64, 15.8e-6}});
  profile::Collective& bruck = uneven.collectives.at("alltoall");
  bruck.t0.unit = "s";
  bruck.t0.terms = {profile::Term{"log n", 2e-6, 0, std::nullopt}};
  const Point grown = predictor_on(uneven).at(512, Scheme::full_overhead);
  EXPECT_GT(grown.communication, 4 * 15.8e-6);
  const std::string grown_notes = fmt::format("{}", fmt::join(grown.notes, "\n"));
  EXPECT_EQ(grown_notes.find("is a step"), std::string::npos) << grown_notes;

  // Three communicators across nodes but none inside one: the form's growth, and a note says why.
  profile::Profile outside = node_with_alltoall(8, {{16, 3e-6}, {32, 5.25e-6}, {64, 7.5e-6}});
  outside.collectives.at("alltoall").t0 = rounds.t0;
  const Point by_form = predictor_on(outside).at(128, Scheme::full_overhead);
  EXPECT_NEAR(by_form.communication, 15e-6, 1e-12);
  const std::string why = fmt::format("{}", fmt::join(by_form.notes, "\n"));
  EXPECT_NE(why.find("no growth across nodes of 8 cores could be fitted at 0 B"), std::string::npos)
      << why;

  // On nodes of one core nothing changes: the form's growth from the point at 64, 2 x 7.5 us.
  profile::Profile single = node;
  single.machine.cores_per_node = 1;
  EXPECT_NEAR(predictor_on(single).at(128, Scheme::full_overhead).communication, 15e-6, 1e-12);
}

TEST(CostModel, CommunicationNotesLeaveTheComponentsOut) {
  // Four processes on a node of 4 cores share DRAM measured with 2 threads: a note on the triad.
  // The alltoall measured at n = 2 and 4: a note on the exchange. T_comm's notes hold only that.
  const Predictor p(
      parse_workload("kind,name,value,work [flop],traffic [B],access,working set [B],dop,"
                     "operation,bytes [B],count,after\n"
                     "parameter,N,2e6,,,,,,,,,\n"
                     "component,triad,,2*N*10,24*N*10,triad,24*N/n,n,,,,\n"
                     "communication,swap,,,,,,,alltoall,0,1,triad\n",
                     "model.csv"),
      node_with_alltoall(4, {{2, 1e-6}, {4, 3e-6}}), "made-up.yaml");
  const Point four = p.at(4, Scheme::full_overhead);
  EXPECT_NEAR(four.communication, 3e-6, 1e-15);
  ASSERT_EQ(four.communication_notes.size(), 1u)
      << fmt::format("{}", fmt::join(four.communication_notes, "\n"));
  EXPECT_EQ(four.communication_notes[0], "swap: measured at 0 B at n = 4");
  EXPECT_GT(four.notes.size(), 1u);
  EXPECT_EQ(four.notes[0], "triad: DRAM bandwidth measured with 2 thread(s), not 4");
}

}  // namespace
}  // namespace sonde::predict
