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
#include "microbench/page_buffer.hpp"
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

// A message buffer: page-aligned, so that the copies between two of them meet no offset of
// their own (page_buffer.hpp says why).
using MessageBuffer = PageAlignedVector<unsigned char>;

// Registers the planned benchmarks; collective: every rank must call it, in the same order.
void register_mpi_suite(const MpiSuitePlan& plan, const std::vector<RankPlace>& places,
                        ParamRegistry& registry);

// The streaming benchmark's window: `window` messages of `bytes` bytes, message j at j * slot
// (slot = max(bytes, 1)), each with a pattern of its own (of the sender and of j, its place in the
// window). Filled by the sender before timing; checked by the receiver after it, every message.
void fill_stream_window(MessageBuffer& buffer, std::uint64_t bytes, unsigned window, int sender);
// The index of the first message of a received window that is not the one `sender` filled, or -1
// when every message arrived whole and in its place.
int first_wrong_stream_message(const MessageBuffer& buffer, std::uint64_t bytes, unsigned window,
                               int sender);

// The MPI library and version, the hosts with their ranks, and ranks per node.
nlohmann::json mpi_context(const std::vector<RankPlace>& places);

}  // namespace sonde::microbench
