#include "replay/costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "profile/across_nodes.hpp"

namespace sonde::replay {

double interpolate_table(const std::vector<std::pair<double, double>>& points, double bytes) {
  if (points.empty()) throw input_error("point_to_point.measurements", "empty");
  if (points.size() == 1) return points.front().second;
  // Below the smallest size or above the largest: the slope of the nearest two points, never
  // below the nearest point's time at the small end (a message is not cheaper than 0 bytes).
  auto line = [&](std::size_t i, double x) {
    const auto& [x0, y0] = points[i];
    const auto& [x1, y1] = points[i + 1];
    return x1 == x0 ? y0 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  };
  if (bytes <= points.front().first) return points.front().second;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (bytes <= points[i + 1].first) return line(i, bytes);
  }
  return std::max(points.back().second, line(points.size() - 2, bytes));
}

double mips_ratio(const profile::Profile& traced_on, const std::string& traced_on_file,
                  const profile::Profile& target, const std::string& target_file) {
  return profile::require_peak_flops(traced_on, traced_on_file).value /
         profile::require_peak_flops(target, target_file).value;
}

namespace {

double dram_bytes_per_second_per_core(const profile::Profile& profile, const std::string& file) {
  for (const profile::MemoryLevel& level : profile.memory) {
    if (level.name != "DRAM") continue;
    const auto [key, best] = profile::best_bandwidth(level);
    if (best == nullptr) break;
    const int threads = std::max(1, profile::bandwidth_threads(key));
    return best->value / threads;
  }
  throw input_error(file + ": memory", "no DRAM level with a measured bandwidth");
}

}  // namespace

double memory_ratio(const profile::Profile& traced_on, const std::string& traced_on_file,
                    const profile::Profile& target, const std::string& target_file) {
  return dram_bytes_per_second_per_core(traced_on, traced_on_file) /
         dram_bytes_per_second_per_core(target, target_file);
}

namespace {

using MessageCost = std::function<double(double)>;

unsigned rounds(std::uint32_t ranks) {
  return ranks <= 1 ? 0u : static_cast<unsigned>(std::ceil(std::log2(static_cast<double>(ranks))));
}

// A collective as the point-to-point messages of the algorithm MPI libraries use for it at small
// and medium sizes (Thakur, Rabenseifner and Gropp (2005)): what it costs when a profile has no
// measurement of it at this communicator size.
CollectiveCost decomposed(trace::CollectiveOp op, std::uint32_t ranks, double bytes,
                          const MessageCost& message) {
  using trace::CollectiveOp;
  const unsigned k = rounds(ranks);
  const double others = ranks > 0 ? ranks - 1.0 : 0.0;
  switch (op) {
    case CollectiveOp::barrier:
      return {k * message(0), fmt::format("dissemination over point-to-point, {} rounds", k)};
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::scan:
      return {k * message(bytes), fmt::format("binomial tree over point-to-point, {} rounds", k)};
    case CollectiveOp::allreduce:
      return {k * message(bytes),
              fmt::format("recursive doubling over point-to-point, {} rounds", k)};
    case CollectiveOp::gather:
    case CollectiveOp::scatter: {
      double seconds = 0;
      for (unsigned round = 0; round < k; ++round) seconds += message(std::ldexp(bytes, round));
      return {seconds, fmt::format("binomial tree over point-to-point, {} rounds", k)};
    }
    case CollectiveOp::allgather:
      return {others * message(bytes), fmt::format("ring over point-to-point, {} steps", others)};
    case CollectiveOp::alltoall:
      return {others * message(bytes),
              fmt::format("pairwise exchange over point-to-point, {} steps", others)};
    case CollectiveOp::reduce_scatter:
      return {others * message(ranks > 0 ? bytes / ranks : bytes),
              fmt::format("ring over point-to-point, {} steps", others)};
    case CollectiveOp::other:
      break;
  }
  throw input_error("collective", "no model for this operation");
}

// A message's cost from one profile: its Hockney segments or its table of half round trips.
MessageCost message_cost(const profile::Profile& profile, const std::string& file,
                         MessageModel model) {
  const profile::PointToPoint& p2p = profile::require_point_to_point(profile, file);
  if (model == MessageModel::fit) {
    if (p2p.segments.empty()) {
      throw input_error(file + ": point_to_point.segments",
                        "absent; the replay costs messages with the Hockney fit (or use the "
                        "measured table: --messages table)");
    }
    return [p2p](double bytes) { return p2p.seconds(bytes); };
  }
  // The table: the median of the ping-pong's half round trips at each size.
  std::map<double, std::vector<double>> by_size;
  for (const profile::PointToPointMeasurement& point : p2p.measurements) {
    by_size[point.bytes].push_back(point.time.value);
  }
  if (by_size.empty()) {
    throw input_error(file + ": point_to_point.measurements",
                      "absent; --messages table needs the measured half round trips");
  }
  std::vector<std::pair<double, double>> table;
  for (auto& [bytes, times] : by_size) {
    std::sort(times.begin(), times.end());
    table.emplace_back(bytes, times[times.size() / 2]);
  }
  return [table](double bytes) { return interpolate_table(table, bytes); };
}

// A cost with its latency part (the cost at 0 bytes) and the rest scaled: a network with another
// start-up time or bandwidth, Eom and Hollingsworth's (1998) NF what-if of a changed network.
double scaled(double at_zero, double at_bytes, double latency_scale, double bandwidth_scale) {
  if (latency_scale == 1 && bandwidth_scale == 1) return at_bytes;
  return latency_scale * at_zero + std::max(0.0, at_bytes - at_zero) / bandwidth_scale;
}

struct Side {
  const profile::Profile* profile = nullptr;
  std::string file;
  MessageCost message;
};

}  // namespace

Costs costs_from_profiles(const CostSources& sources) {
  if (sources.within_node == nullptr) throw usage_error("--machine", "a profile is needed");
  if (!(sources.latency_scale > 0) || !(sources.bandwidth_scale > 0)) {
    throw usage_error("--latency-scale/--bandwidth-scale", "expected factors above 0");
  }
  auto within = std::make_shared<Side>();
  within->profile = sources.within_node;
  within->file = sources.within_node_file;
  within->message = message_cost(*within->profile, within->file, sources.messages);
  std::shared_ptr<Side> between;
  if (sources.between_nodes != nullptr) {
    between = std::make_shared<Side>();
    between->profile = sources.between_nodes;
    between->file = sources.between_nodes_file;
    between->message = message_cost(*between->profile, between->file, sources.messages);
  }

  Costs costs;
  const double latency_scale = sources.latency_scale, bandwidth_scale = sources.bandwidth_scale;
  auto side_of = [within, between](Link link) -> const Side& {
    if (link == Link::between_nodes) {
      if (!between) {
        throw usage_error("--network",
                          fmt::format("the placement puts ranks on more than one node, and {} "
                                      "was measured within one: give the network between nodes "
                                      "as a profile (--network q.yaml)",
                                      within->file));
      }
      return *between;
    }
    return *within;
  };
  costs.message = [side_of, latency_scale, bandwidth_scale](double bytes, Link link) {
    const Side& side = side_of(link);
    return scaled(side.message(0), side.message(bytes), latency_scale, bandwidth_scale);
  };
  costs.collective = [side_of, latency_scale, bandwidth_scale](
                         trace::CollectiveOp op, std::uint32_t ranks, double bytes, Link link,
                         std::uint32_t nodes) -> CollectiveCost {
    const Side& side = side_of(link);
    if (ranks <= 1) return {0, "one rank moves nothing"};
    auto message = [&side, latency_scale, bandwidth_scale](double m) {
      return scaled(side.message(0), side.message(m), latency_scale, bandwidth_scale);
    };
    const auto found = side.profile->collectives.find(trace::name(op));
    if (found != side.profile->collectives.end()) {
      try {
        profile::CollectiveEstimate at_bytes = found->second.estimate(ranks, bytes);
        profile::CollectiveEstimate at_zero = found->second.estimate(ranks, 0);
        // Beyond the measured communicators, where the members sit on several nodes of several
        // cores: the growth of the communicators that span nodes, as `sonde predict` takes it,
        // on the nodes the members occupy. (The 0-byte estimate only splits latency from
        // bandwidth for the what-if scales; where the growth cannot be fitted at 0 B the form's
        // stands there.)
        const std::optional<std::uint64_t> cores = side.profile->machine.cores_per_node;
        if (at_bytes.extrapolated_from && cores && *cores > 1 && nodes > 1) {
          if (auto spanning = profile::across_nodes(found->second, ranks, bytes, *cores, nodes)) {
            at_bytes = std::move(*spanning);
            if (auto zero = profile::across_nodes(found->second, ranks, 0, *cores, nodes)) {
              at_zero = std::move(*zero);
            }
          }
        }
        return {scaled(at_zero.seconds, at_bytes.seconds, latency_scale, bandwidth_scale),
                fmt::format("{}: {}", side.file, at_bytes.how)};
      } catch (const Error&) {
        // No form in n and no measurement at this n: decomposed below, and said so.
      }
    }
    CollectiveCost cost = decomposed(op, ranks, bytes, message);
    cost.how = fmt::format("{}: {} at n = {} is not in the profile; {} (derived)", side.file,
                           trace::name(op), ranks, cost.how);
    return cost;
  };
  if (between) {
    // The per-byte part of the network's Hockney segment for a message, for links shared by
    // several messages at once.
    costs.seconds_per_byte_between_nodes = [between, bandwidth_scale](double bytes) {
      const double at_zero = between->message(0);
      return bytes > 0 ? std::max(0.0, between->message(bytes) - at_zero) / bytes / bandwidth_scale
                       : 0.0;
    };
  }
  if (sources.extrap_barrier) {
    // Table 1's parameters where the profile has them (overheads.operations.barrier_<name>,
    // seconds); ExtraP's Table 3 gives only the model time for the CM-5.
    ExtrapBarrier barrier;
    const auto& operations = sources.within_node->overheads.operations;
    for (auto [key, field] : {std::pair{"barrier_entry_time", &barrier.entry},
                              {"barrier_exit_time", &barrier.exit},
                              {"barrier_check_time", &barrier.check},
                              {"barrier_exit_check_time", &barrier.exit_check},
                              {"barrier_model_time", &barrier.model}}) {
      const auto found = operations.find(key);
      if (found != operations.end()) {
        *field = found->second.value;
        barrier.from_profile.push_back(key);
      }
    }
    costs.extrap_barrier = barrier;
    costs.notes.push_back(fmt::format(
        "barriers: ExtraP's linear master-slave model (Shanmugam et al. 1995, Table 1); from "
        "{}: {}; the other parameters 0",
        sources.within_node_file,
        barrier.from_profile.empty() ? "none"
                                     : fmt::format("{}", fmt::join(barrier.from_profile, ", "))));
  }
  costs.notes.push_back(fmt::format(
      "messages within a node: {} of {}",
      sources.messages == MessageModel::fit ? "the Hockney fit" : "the table of half round trips",
      sources.within_node_file));
  if (between) {
    costs.notes.push_back(fmt::format("messages between nodes and collectives spanning nodes: {}",
                                      sources.between_nodes_file));
  }
  if (latency_scale != 1 || bandwidth_scale != 1) {
    costs.notes.push_back(fmt::format(
        "every message and collective: start-up time x {}, bandwidth x {} (a what-if, not a "
        "measurement)",
        latency_scale, bandwidth_scale));
  }
  return costs;
}

}  // namespace sonde::replay
