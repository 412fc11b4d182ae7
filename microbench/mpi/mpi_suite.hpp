// The MPI suite (Xu and Hwang (1995), section 4 and Tables 4 to 6; Eom and Hollingsworth's (1998)
// message times): ping-pong between the first and the last rank, a map of every pair's latency and
// bandwidth with each rank's host and hwloc placement, streaming bandwidth one way and both ways
// with a window of non-blocking sends, and collectives over sub-communicators of 2, 4, 8, ...
// ranks.
//
// Google Benchmark is the harness, with manual time: every iteration starts with a barrier, and
// its time is the slowest rank's (an MPI_MAX reduction), so every rank sees the same times and
// makes the same iteration decisions, and nothing deadlocks. Only rank 0 reports.
#pragma once

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "microbench/bench_output.hpp"
#include "microbench/mpi/mpi_plan.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

// One rank's host and place, gathered from all ranks.
struct RankPlace {
  int rank = 0;
  std::string host;
  Placement place;
};

// "same-core", "same-numa", "same-socket", "same-node" or "other-node".
std::string pair_class(const RankPlace& a, const RankPlace& b);

// Every rank's host and placement, gathered with MPI_Allgather.
std::vector<RankPlace> gather_places(const Topology& topology, MPI_Comm world);

// Registers the planned benchmarks; collective: every rank must call it, in the same order.
void register_mpi_suite(const MpiSuitePlan& plan, const std::vector<RankPlace>& places,
                        ParamRegistry& registry);

// The MPI library and version, the hosts with their ranks, and ranks per node.
nlohmann::json mpi_context(const std::vector<RankPlace>& places);

}  // namespace sonde::microbench
