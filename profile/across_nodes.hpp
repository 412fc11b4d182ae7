// A collective's growth beyond the largest measured communicator on a cluster of multi-core
// nodes, taken from the communicators measured across nodes alone.
#pragma once

#include <cstdint>
#include <optional>

#include "profile/profile.hpp"

namespace sonde::profile {

// On nodes of c > 1 cores a collective's time steps up where its communicator first spans nodes,
// and a form fitted over every measured n smooths over that step: its growth beyond the largest
// measured n is then mostly that of messages inside a node (on a simulated cluster of 8-core
// nodes the allreduce's form came out linear in n where recursive doubling adds one round between
// nodes per doubling). Here the time beyond one node, t(n, m) - t(b, m) with b the largest
// measured communicator within one node, is fitted at the message size m as a g(k) of the node
// count k = n / c, g one of 1 (a step), log k, k - 1 and k log k (the one of smallest
// leave-one-out error), over the measured communicators that span nodes (which filled nodes of
// c); the prediction on `nodes_at_n` nodes (those the n processes occupy) is the measurement at
// the largest N plus a (g(nodes_at_n) - g(N / c)). Nothing (nullopt) where n is not beyond N, N
// does not span nodes, fewer than three measured communicators span nodes, none lies within one
// node, or the time beyond one node is not positive at each of them.
std::optional<CollectiveEstimate> across_nodes(const Collective& collective, double n, double bytes,
                                               std::uint64_t cores_per_node, double nodes_at_n);

}  // namespace sonde::profile
