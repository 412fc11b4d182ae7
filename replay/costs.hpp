// What communication costs on the target, as the replay asks for it: the time of a message of m
// bytes within a node or between nodes, and of a collective on n ranks. Built from machine
// profiles (the point-to-point fit or its table of half round trips, the collective forms), or by
// hand in tests.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile.hpp"
#include "trace/trace.hpp"

namespace sonde::replay {

enum class Link { within_node, between_nodes };

// One collective's cost and how it was reached ("form in n", "decomposed: recursive doubling
// over point-to-point, 2 rounds"), for the report.
struct CollectiveCost {
  double seconds = 0;
  std::string how;
};

// ExtraP's linear master-slave barrier (Shanmugam, Malony and Mohr (1995), section 3.3.3 and
// Table 1): slaves send an entry message to rank 0 of the communicator, which lowers the barrier
// when all have arrived and sends each a release message. Times in seconds.
struct ExtrapBarrier {
  double entry = 0, exit = 0, check = 0, exit_check = 0, model = 0;
  bool by_messages = true;
  double message_bytes = 128;
  std::vector<std::string> from_profile;  // which parameters the profile gave; the rest are 0
};

struct Costs {
  // The time from a send's start to the message's arrival at the receiver (half a round trip).
  std::function<double(double bytes, Link link)> message;
  // The time of one collective on `ranks` ranks on `nodes` nodes (as many as its members' distinct
  // nodes) with m = `bytes` per rank (the suite's convention: per pair for alltoall), from the
  // last member's arrival to the release.
  std::function<CollectiveCost(trace::CollectiveOp op, std::uint32_t ranks, double bytes, Link link,
                               std::uint32_t nodes)>
      collective;
  // Where set, barriers follow ExtraP's model instead of `collective`.
  std::optional<ExtrapBarrier> extrap_barrier;
  // The per-byte part of a message between nodes (s/B), for the link a node's messages share;
  // 0: no contention is modelled.
  std::function<double(double bytes)> seconds_per_byte_between_nodes;
  std::vector<std::string> notes;  // what the report should say about where the costs came from
};

// How messages are costed from a profile: its piecewise Hockney fit (t0 + m / r_inf), or the
// table of measured half round trips interpolated between sizes, Eom and Hollingsworth's (1998)
// lookup table.
enum class MessageModel { fit, table };

struct CostSources {
  const profile::Profile* within_node = nullptr;    // the target machine's profile
  std::string within_node_file;                     // for messages
  const profile::Profile* between_nodes = nullptr;  // --network; nullptr: none given
  std::string between_nodes_file;
  MessageModel messages = MessageModel::fit;
  double latency_scale = 1, bandwidth_scale = 1;  // applied to the network's model (NF what-ifs)
  bool extrap_barrier = false;
};

// Costs from profiles. Throws an input Error naming the file and key when a profile lacks the
// point-to-point model (or, with the table, its measurements). A collective a profile cannot
// give at n (no form in n, no measurement at n) is decomposed into its point-to-point messages by
// the algorithm MPI libraries use at small sizes (dissemination barrier, binomial broadcast and
// reduce, recursive doubling allreduce, ring allgather, pairwise alltoall), and the report says
// so: a derived cost, not a measured one.
Costs costs_from_profiles(const CostSources& sources);

// ExtraP's MipsRatio (Shanmugam, Malony and Mohr (1995), section 3.3.1): the traced machine's
// processor rate over the target's, by which the traced computation is scaled; from the profiles'
// peak per core (or per node). An input Error names the profile without one.
double mips_ratio(const profile::Profile& traced_on, const std::string& traced_on_file,
                  const profile::Profile& target, const std::string& target_file);

// The same for memory-bound computation: the traced machine's DRAM bandwidth per core over the
// target's, each at the most threads it was measured with (the bandwidth a rank gets when every
// core streams). An input Error names the profile without a measured DRAM bandwidth.
double memory_ratio(const profile::Profile& traced_on, const std::string& traced_on_file,
                    const profile::Profile& target, const std::string& target_file);

// The half round trip at `bytes` from measured points (bytes, seconds), piecewise linear between
// them, the nearest end's per-byte slope beyond them.
double interpolate_table(const std::vector<std::pair<double, double>>& points, double bytes);

}  // namespace sonde::replay
