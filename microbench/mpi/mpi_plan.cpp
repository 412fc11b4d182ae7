#include "microbench/mpi/mpi_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/units.hpp"
#include "microbench/cache_flush.hpp"

namespace sonde::microbench {

namespace {

// Whether what one rank of a k-rank collective of m B holds (collective_blocks) fits a rank's
// share of the node's allowance.
bool buffers_fit(const MpiSuitePlan& plan, const std::string& op, int k, std::uint64_t m) {
  return 2 * (collective_blocks(op, k) + 1) * m <= plan.collective_buffer_cap;
}

}  // namespace

std::uint64_t collective_blocks(const std::string& op, int k) {
  if (op == "shift") return 1;
  if (op == "halo") return 2;
  return static_cast<std::uint64_t>(k);
}

std::uint64_t parse_collective_bytes(const std::string& text) {
  const std::uint64_t bytes = parse_bytes(text, "--collective-bytes");
  if (bytes == 0 || bytes % 8 != 0) {
    throw usage_error("--collective-bytes",
                      fmt::format("'{}' is {} B; expected a multiple of 8 B above 0 (the "
                                  "reductions move doubles)",
                                  text, bytes));
  }
  return bytes;
}

std::vector<std::string> collective_names() {
  return {"barrier", "bcast",     "gather", "scatter",   "alltoall", "shift",
          "halo",    "allgather", "reduce", "allreduce", "scan"};
}

std::vector<PlannedCollective> planned_collectives(const MpiSuitePlan& plan) {
  std::vector<PlannedCollective> out;
  for (int k : plan.communicator_sizes) {
    for (const std::string& op : collective_names()) {
      if (op == "scan" && plan.scan_max_ranks > 0 && k > plan.scan_max_ranks) continue;
      if (op == "barrier") {
        out.push_back({op, k, 0});
        continue;
      }
      for (std::uint64_t m : plan.collective_bytes) {
        if (buffers_fit(plan, op, k, m)) out.push_back({op, k, m});
      }
    }
  }
  return out;
}

MpiSuitePlan plan_mpi_suite(const CommonOptions& options, const Sizing& sizing, int ranks,
                            int ranks_per_node, const std::vector<std::uint64_t>& message_bytes,
                            bool simulated,
                            const std::vector<std::uint64_t>& more_collective_bytes) {
  MpiSuitePlan plan;
  plan.ranks = ranks;
  plan.simulated = simulated;
  plan.repetitions = planned_repetitions(options, sizing);
  plan.min_time_seconds = planned_min_time(options, sizing, 0.02, 0.001);
  plan.warm_up_seconds = options.quick ? 0.0 : 0.05;
  if (simulated) {
    // Simulated time repeats exactly: two repetitions show it (a spread of zero), a minimum time
    // below any batch's leaves Google Benchmark at one iteration, and nothing needs warming up.
    if (options.repetitions == 0) plan.repetitions = 2;
    if (options.min_time_seconds == 0) plan.min_time_seconds = 1e-9;
    plan.warm_up_seconds = 0;
    // Every simulated rank lives in the one simulating process.
    ranks_per_node = ranks;
  }
  // Every rank of a node holds a collective's buffers at once: together they stay within the
  // node's buffer allowance.
  plan.collective_buffer_cap = std::min<std::uint64_t>(
      plan.collective_buffer_cap,
      sizing.max_buffer_bytes / static_cast<std::uint64_t>(std::max(1, ranks_per_node)));
  // Ping-pong: 0 B, then every power of two to 16 MiB, and four points an octave from 256 B to
  // 1 MiB, where eager, rendezvous and shared-memory protocols usually switch.
  std::set<std::uint64_t> sizes = {0};
  if (options.quick) {
    sizes.insert({8, 1024, 65536, 1u << 20});
  } else {
    for (std::uint64_t m = 1; m <= (16u << 20); m *= 2) sizes.insert(m);
    for (double e = 8; e <= 20; e += 0.25)
      sizes.insert(static_cast<std::uint64_t>(std::round(std::pow(2.0, e))));
    // Simulated: eight points an octave from 4 KiB to 256 KiB too, where simulated platforms put
    // their protocol switches (SMPI's factors), so that the fit finds them closely.
    if (simulated) {
      for (double e = 12; e <= 18; e += 0.125)
        sizes.insert(static_cast<std::uint64_t>(std::round(std::pow(2.0, e))));
    }
  }
  if (!message_bytes.empty()) sizes = {message_bytes.begin(), message_bytes.end()};
  plan.pingpong_bytes.assign(sizes.begin(), sizes.end());
  plan.map_bandwidth_bytes = options.quick ? (64u << 10) : (4u << 20);
  if (ranks <= 32) {
    for (int i = 0; i < ranks; ++i) {
      for (int j = i + 1; j < ranks; ++j) plan.map_pairs.emplace_back(i, j);
    }
  } else {
    // Beyond 32 ranks the map samples: rank 0 with every rank, and each rank with the one half
    // the job away (on a block-placed job, another node).
    for (int j = 1; j < ranks; ++j) plan.map_pairs.emplace_back(0, j);
    for (int i = 1; i < ranks / 2; ++i) plan.map_pairs.emplace_back(i, i + ranks / 2);
  }
  if (options.quick) {
    plan.stream_bytes = {8, 65536};
  } else {
    for (std::uint64_t m = 1; m <= (16u << 20); m *= 4) plan.stream_bytes.push_back(m);
  }
  for (int k = 2; k < ranks; k *= 2) plan.communicator_sizes.push_back(k);
  if (ranks >= 2) plan.communicator_sizes.push_back(ranks);
  // SMPI's MPI_Scan is linear: every rank receives from every lower one, n (n - 1) / 2 messages
  // in flight at once, and SimGrid's sharing of the links among them grows faster than the
  // messages: one scan of 8 B on the 256-node fat tree took 200 s to simulate, 1.9 s at 128 ranks.
  if (simulated && ranks > 128) {
    plan.scan_max_ranks = 128;
    plan.left_out.push_back(
        "mpi.collective.scan above 128 ranks: SMPI's scan is linear (n (n - 1) / 2 messages at "
        "once) and one took 200 s to simulate at 256 ranks; its form in n is fitted to 128");
  }
  if (simulated || !can_flush_caches()) plan.cold_collective_bytes = 0;
  if (options.quick) {
    plan.collective_bytes = {8, 4096};
    // So that a quick run goes both ways, where it can go cold at all.
    if (plan.cold_collective_bytes > 0) plan.cold_collective_bytes = 4096;
  } else if (simulated) {
    // 8 B (one double: the commonest reduction), then every power of 4 from 64 B to 64 KiB. Three
    // sizes (8 B, 1 KiB, 64 KiB) were too few: between them a prediction is a straight line in m,
    // and MPICH's alltoall changes algorithm at 256 B, where that line was 2.7 times too low.
    plan.collective_bytes = {8, 64, 256, 1024, 4096, 16384, 65536};
  } else {
    // 8 B, then every factor of 8 to 256 KiB, then 1, 4 and 16 MiB, the ping-pong's largest: a
    // distributed FFT's transpose exchanges blocks of megabytes, and on 2 ranks of a 2-core guest
    // an alltoall of 4 MiB blocks took 668 us where the line through 256 KiB and 1 MiB gave 486.
    for (std::uint64_t m = 8; m <= (1u << 20); m *= 8) plan.collective_bytes.push_back(m);
    for (std::uint64_t m = 1u << 20; m <= (16u << 20); m *= 4) plan.collective_bytes.push_back(m);
  }
  // Sizes a program sends, asked for (--collective-bytes): between measured sizes a prediction
  // is a straight line in m, which bends where protocols switch or links are shared.
  if (!more_collective_bytes.empty()) {
    std::set<std::uint64_t> sizes(plan.collective_bytes.begin(), plan.collective_bytes.end());
    sizes.insert(more_collective_bytes.begin(), more_collective_bytes.end());
    plan.collective_bytes.assign(sizes.begin(), sizes.end());
  }
  // A collective whose buffers (2 (k + 1) m B a rank; a shift's 4 m, a halo step's 6 m) exceed a
  // rank's share of the node's allowance is left out (planned_collectives); the plan says which.
  for (int k : plan.communicator_sizes) {
    for (const auto& [op, what, held] :
         {std::tuple{"alltoall", "* but shift and halo", "2 (k + 1) m"},
          std::tuple{"shift", "shift", "4 m"}, std::tuple{"halo", "halo", "6 m"}}) {
      std::vector<std::uint64_t> sizes;
      for (std::uint64_t m : plan.collective_bytes) {
        if (!buffers_fit(plan, op, k, m)) sizes.push_back(m);
      }
      if (sizes.empty()) continue;
      plan.left_out.push_back(
          fmt::format("mpi.collective.{} at {} ranks and {} B: {} B of buffers exceed the "
                      "allowance of {} B",
                      what, k, fmt::join(sizes, ", "), held, plan.collective_buffer_cap));
    }
  }
  for (const std::string& part : select_parts(options.parts, mpi_part_names())) {
    if (ranks < 2) {
      plan.skipped_parts.push_back(part + ": needs two ranks (run it under mpirun -np 2 or more)");
    } else {
      plan.parts.push_back(part);
    }
  }
  return plan;
}

nlohmann::json to_json(const MpiSuitePlan& plan) {
  return {{"ranks", plan.ranks},
          {"parts", plan.parts},
          {"skipped_parts", plan.skipped_parts},
          {"pingpong_bytes", plan.pingpong_bytes},
          {"map_latency_bytes", plan.map_latency_bytes},
          {"map_bandwidth_bytes", plan.map_bandwidth_bytes},
          {"map_pairs", plan.map_pairs.size()},
          {"stream_bytes", plan.stream_bytes},
          {"window", plan.window},
          {"communicator_sizes", plan.communicator_sizes},
          {"collective_bytes", plan.collective_bytes},
          {"cold_collective_bytes", plan.cold_collective_bytes},
          {"repetitions", plan.repetitions},
          {"min_time_seconds", plan.min_time_seconds},
          {"warm_up_seconds", plan.warm_up_seconds},
          {"left_out", plan.left_out}};
}

}  // namespace sonde::microbench
