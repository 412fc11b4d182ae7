// The MPI suite's plan, known without MPI: `sonde characterize` plans and estimates it, the MPI
// program (microbench/mpi/mpi_suite.cpp) runs it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "microbench/sizing.hpp"
#include "microbench/suite_options.hpp"

namespace sonde::microbench {

inline std::vector<std::string> mpi_part_names() {
  return {"pingpong", "map", "stream", "collectives"};
}

struct MpiSuitePlan {
  int ranks = 1;
  std::vector<std::string> parts;
  std::vector<std::string> skipped_parts;
  std::vector<std::uint64_t> pingpong_bytes;  // 0 B to 16 MiB, dense where protocols switch
  std::uint64_t map_latency_bytes = 8;
  std::uint64_t map_bandwidth_bytes = 4u << 20;
  std::vector<std::pair<int, int>> map_pairs;
  std::vector<std::uint64_t> stream_bytes;
  unsigned window = 64;                         // non-blocking sends in flight
  std::vector<int> communicator_sizes;          // 2, 4, 8, ..., all ranks
  std::vector<std::uint64_t> collective_bytes;  // per rank (per pair for alltoall)
  std::uint64_t collective_buffer_cap = 256u << 20;
  // Collectives of this many bytes and more run from cold buffers: flushed from every cache before
  // each operation, one operation per timed iteration, as a program's large exchange runs from
  // buffers it wrote long before. 0: none (a simulated platform models no caches).
  std::uint64_t cold_collective_bytes = 65536;
  int repetitions = 0;
  double min_time_seconds = 0;
  double warm_up_seconds = 0;  // Google Benchmark's warm-up before each benchmark's runs
  bool simulated = false;      // under SMPI (plan_mpi_suite)
  // The scan only on communicators of at most this many ranks (0: no limit), and why.
  int scan_max_ranks = 0;
  std::vector<std::string> left_out;  // benchmarks the plan leaves out, each with its reason
};

std::vector<std::string> collective_names();
// A collective message size as --collective-bytes takes it ("32KiB", "24576"): a usage Error
// naming the option unless it is a positive multiple of 8 B (the reductions move doubles).
std::uint64_t parse_collective_bytes(const std::string& text);
// The blocks of m B a rank of a k-rank collective sends (and receives): k for the widest
// (alltoall, allgather; the rooted ones at the root), 1 for a shift, 2 for a halo step.
std::uint64_t collective_blocks(const std::string& op, int k);

// One collective benchmark of a plan: the operation, its communicator size and message size (0
// for the barrier).
struct PlannedCollective {
  std::string op;
  int ranks = 2;
  std::uint64_t bytes = 0;
};

// Every collective the plan measures, communicator size by size, operation by operation, size by
// size: the barrier once per communicator; the others at each message size whose k ranks' buffers
// fit the allowance, and the scan only up to scan_max_ranks. The suite registers these, and the
// run's estimate counts them.
std::vector<PlannedCollective> planned_collectives(const MpiSuitePlan& plan);

// The plan for `ranks` ranks; the same on every rank, so that all register the same benchmarks.
// `message_bytes`, when given, replaces the ping-pong sizes.
// `ranks_per_node` ranks share one node's usable memory (`sizing`), which bounds the collectives'
// buffers. `simulated`: the program runs under SimGrid's SMPI, where every rank is a thread of one
// process (they all share that process's memory) and simulated time has no noise: one repetition
// of one iteration measures exactly, and fewer sizes keep the simulation affordable.
MpiSuitePlan plan_mpi_suite(const CommonOptions& options, const Sizing& sizing, int ranks,
                            int ranks_per_node,
                            const std::vector<std::uint64_t>& message_bytes = {},
                            bool simulated = false,
                            const std::vector<std::uint64_t>& more_collective_bytes = {});

nlohmann::json to_json(const MpiSuitePlan& plan);

}  // namespace sonde::microbench
